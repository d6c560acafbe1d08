package schemas

import (
	"encoding/json"
	"fmt"
	"time"
)

// ManifestVersion is the version of Manifest a build writes; readers refuse other versions.
// Version 2 adds Kind and Lifecycle: a reader that ignored them would serve superseded texts
// and replaced versions as current, so a manifest that has them is written as version 2
// (ManifestVersionOf) and one without them stays version 1, which every reader reads.
const ManifestVersion = 1

// ManifestVersionLifecycle is the version of a manifest with a Kind or a Lifecycle.
const ManifestVersionLifecycle = 2

// ManifestVersionOf is the version m is written as: ManifestVersionLifecycle when it has a
// standing kind, a lifecycle table or takedowns (a reader that ignored them would serve
// documents taken down), else ManifestVersion.
func ManifestVersionOf(m Manifest) int {
	if m.Lifecycle != nil || m.Kind == KindStanding || len(m.Takedowns) > 0 {
		return ManifestVersionLifecycle
	}
	return ManifestVersion
}

// Manifest lists the shards of one published index version
// (<store>/indexes/<index>/manifests/<n>.json; CURRENT names the live one).
type Manifest struct {
	Version int    `json:"version"`
	Index   string `json:"index"`
	// Seq is this manifest's number; CURRENT moves from n to n+1 by compare-and-swap.
	Seq       int       `json:"seq"`
	CreatedAt time.Time `json:"created_at"`
	Model     ModelRef  `json:"model"`
	// Period is the shard partitioning: day, week, month, quarter or year.
	Period string      `json:"period"`
	Chunk  ChunkConfig `json:"chunk"`
	Shards []ShardMeta `json:"shards"`
	Counts IndexCounts `json:"counts"`
	// Kind is the kind the index's documents are read as when a row says none: KindNews
	// (also "", every index before kinds) or KindStanding.
	Kind string `json:"kind,omitempty"`
	// Lifecycle, when set, names the index's lifecycle table (internal/lifecycle): when each
	// version of a document stops being current, which standing text supersedes which. Absent
	// when no document is standing or has a second version.
	Lifecycle *LifecycleRef `json:"lifecycle,omitempty"`
	// Takedowns are the documents removed from the index (asof docs delete): none of their
	// versions is served from the manifest that records them on, as of any day; a rebuild or an
	// append carries them forward and counts their rows as deleted. Sorted by doc_id.
	Takedowns []Takedown `json:"takedowns,omitempty"`
	// RestoredFrom, when set, is the number of the earlier manifest this one restores (asof
	// indexes rollback): its shards, model and chunking, with the live takedowns kept.
	RestoredFrom int `json:"restored_from,omitempty"`
}

// TakeDownResult is the manifest that records a takedown (asof docs delete), the documents
// it took down (Taken, with the rows each took out of the counts), those taken down before
// (Already), and the index's counts after it.
type TakeDownResult struct {
	ManifestKey string      `json:"manifest_key"`
	Seq         int         `json:"seq"`
	Unchanged   bool        `json:"unchanged"`
	Taken       []Takedown  `json:"taken"`
	Already     []string    `json:"already,omitempty"`
	Counts      IndexCounts `json:"counts"`
	// Purge is what the purge did, when one was asked for (asof docs delete --purge).
	Purge *PurgeResult `json:"purge,omitempty"`
}

// PurgeResult is what purging the documents taken down from an index did (asof docs delete
// --purge): the documents purged (Docs), the live shards that held them, each written again
// without their rows (Written, or Reused: found written by an earlier try of the purge) or
// dropped (Dropped: nothing else in it), the chunk rows removed, the manifest that lists the
// purged shards, and what the sweep of the rest of the store deleted or rewrote.
type PurgeResult struct {
	Docs        []string   `json:"docs"`
	ManifestKey string     `json:"manifest_key"`
	Seq         int        `json:"seq"`
	Unchanged   bool       `json:"unchanged"`
	Written     int        `json:"shards_written"`
	Reused      int        `json:"shards_reused"`
	Dropped     int        `json:"shards_dropped"`
	Rows        int64      `json:"rows_removed"`
	Sweep       PurgeSweep `json:"sweep"`
}

// PurgeSweep counts what a purge's sweep did to the objects that held a purged document's text
// outside the live shards: shard folders no live manifest lists (earlier manifests' shards),
// lifecycle tables, staged build files and uploaded corpus copies deleted; stored answers and
// digest days rewritten with the document shown as removed (and their archive pages); Objects
// counts every object deleted or rewritten, Scanned every object read.
type PurgeSweep struct {
	Shards    int `json:"shards"`
	Lifecycle int `json:"lifecycle"`
	Staging   int `json:"staging"`
	Corpora   int `json:"corpora"`
	Answers   int `json:"answers"`
	Digests   int `json:"digests"`
	Objects   int `json:"objects"`
	Scanned   int `json:"scanned"`
}

// Takedown records one document removed from an index: when (the takedown workflow's time),
// why, and how many of its indexed rows (versions) it took out of the counts. Purged is when
// its text and vectors left the index's shards (asof docs delete --purge); nil while the shards
// still hold them, masked.
type Takedown struct {
	DocID  string     `json:"doc_id"`
	At     time.Time  `json:"at"`
	Reason string     `json:"reason"`
	Rows   int64      `json:"rows"`
	Purged *time.Time `json:"purged,omitempty"`
}

// LifecycleRef names a stored lifecycle table (Parquet of lifecycle entries) and the report
// beside it (links and warnings, JSON), with what they count.
type LifecycleRef struct {
	// Key and Report are relative to the index folder; SHA256 and Size are the table's.
	Key    string         `json:"key"`
	Report string         `json:"report"`
	SHA256 string         `json:"sha256"`
	Size   int64          `json:"size"`
	Stats  LifecycleStats `json:"stats"`
}

// LifecycleStats count a lifecycle table: standing documents, document versions replaced by a
// newer one, texts superseded (hidden once the superseding text applies) and restated (ranked
// after an inferred restatement), the supersession links by basis and the warnings by reason.
type LifecycleStats struct {
	Standing   int            `json:"standing"`
	Versions   int            `json:"versions"`
	Superseded int            `json:"superseded"`
	Restated   int            `json:"restated"`
	ByBasis    map[string]int `json:"by_basis,omitempty"`
	Warnings   map[string]int `json:"warnings,omitempty"`
}

// RemoteModelPrefix starts ModelRef.SHA256 for a model served by an embeddings server: its
// fingerprint (model name, prefixes, input types) stands where a local model's ONNX hash does.
const RemoteModelPrefix = "openai:"

// ModelRef names the embedding model an index was built with; queries refuse another model.
type ModelRef struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
	Dim    int    `json:"dim"`
}

// ChunkConfig is the splitter configuration an index was built with.
type ChunkConfig struct {
	Size            int `json:"size"`
	Overlap         int `json:"overlap"`
	Min             int `json:"min"`
	MaxChunksPerDoc int `json:"max_chunks_per_doc"`
}

// ShardMeta describes one immutable shard (also written as its meta.json).
type ShardMeta struct {
	// ID hashes the shard's inputs, configuration and model, so a rerun finds it done.
	ID     string `json:"id"`
	Period string `json:"period"`
	// MinDate and MaxDate bound the PublishedAt of its chunks.
	MinDate time.Time `json:"min_date"`
	MaxDate time.Time `json:"max_date"`
	Docs    int       `json:"docs"`
	Chunks  int       `json:"chunks"`
	// Lexical is the BM25 analysis version (lexical.VersionOf its languages) a shard with Chinese,
	// Japanese, Korean, Spanish, French or Italian chunks was built with, also hashed into its
	// ID; 0 (absent) for a shard of English and Russian chunks only, analysed alike by every
	// version.
	Lexical int `json:"lexical,omitempty"`
	// Clean is the version of the boilerplate rules (textnorm.CleanVersion) its documents' text
	// was cleaned with, also hashed into its ID; 0 (absent) for a shard built before cleaning.
	Clean int `json:"clean,omitempty"`
	// Standing counts its standing documents (schemas.KindStanding) and Versions its documents
	// that are not a first version: a shard with either is read when an index's lifecycle is
	// resolved, and a shard with standing documents is loaded whatever the recency window.
	Standing int `json:"standing,omitempty"`
	Versions int `json:"versions,omitempty"`
	// Objects are the shard's files, relative to the index folder, with sizes and hashes.
	Objects []ObjectRef `json:"objects"`
}

// ObjectRef is one stored file of a shard.
type ObjectRef struct {
	Key    string `json:"key"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// IndexCounts reconcile an index build: Read = Indexed + Quarantined + Skipped.
type IndexCounts struct {
	Read        int64            `json:"read"`
	Indexed     int64            `json:"indexed"`
	Quarantined map[string]int64 `json:"quarantined"`
	// Skipped rows fell outside --from/--to: counted, not lost.
	Skipped int64 `json:"skipped"`
	Chunks  int64 `json:"chunks"`
	// Languages counts the indexed documents per language: the primary code of the input's
	// lang column, else of the language detected in title and text (textnorm.Lang: en, ru, zh,
	// ja, ko). Absent from indexes built before it was counted, and from an append's sum when
	// the index it adds to did not count it: it then adds up to Indexed, or is absent.
	Languages map[string]int64 `json:"languages,omitempty"`
	// Deleted counts the rows of documents taken down (Manifest.Takedowns): indexed once, or
	// met again in a rebuild or an append, and not indexed since.
	Deleted int64 `json:"deleted,omitempty"`
}

// QuarantinedTotal sums the quarantine counts.
func (c IndexCounts) QuarantinedTotal() int64 {
	var n int64
	for _, v := range c.Quarantined {
		n += v
	}
	return n
}

// Plus is the counts of two builds together (an index and what an append added). Chunks is
// left 0: the manifest counts chunks from its shards. Languages are summed when both sides
// counted every document they indexed; otherwise the sum would undercount, and is left out.
func (c IndexCounts) Plus(o IndexCounts) IndexCounts {
	out := IndexCounts{Read: c.Read + o.Read, Indexed: c.Indexed + o.Indexed, Skipped: c.Skipped + o.Skipped, Deleted: c.Deleted + o.Deleted, Quarantined: map[string]int64{}}
	for _, q := range []map[string]int64{c.Quarantined, o.Quarantined} {
		for k, v := range q {
			out.Quarantined[k] += v
		}
	}
	if c.languagesComplete() && o.languagesComplete() && len(c.Languages)+len(o.Languages) > 0 {
		out.Languages = map[string]int64{}
		for _, l := range []map[string]int64{c.Languages, o.Languages} {
			for k, v := range l {
				out.Languages[k] += v
			}
		}
	}
	return out
}

// languagesComplete reports whether Languages accounts for every indexed document.
func (c IndexCounts) languagesComplete() bool {
	var n int64
	for _, v := range c.Languages {
		n += v
	}
	return n == c.Indexed
}

// Reconciles reports whether every row read is accounted for: read = indexed + quarantined +
// skipped + deleted.
func (c IndexCounts) Reconciles() bool {
	return c.Read == c.Indexed+c.QuarantinedTotal()+c.Skipped+c.Deleted
}

// DecodeManifest parses a manifest and refuses versions this build does not know.
func DecodeManifest(data []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("manifest: %w", err)
	}
	if m.Version != ManifestVersion && m.Version != ManifestVersionLifecycle {
		return Manifest{}, fmt.Errorf("manifest version %d is not supported (this build reads versions %d and %d)", m.Version, ManifestVersion, ManifestVersionLifecycle)
	}
	return m, nil
}
