// Package indexplan holds the index build's decisions that need no storage: which live shards a
// rebuild must read to find the documents it would drop, whether an append fits the live index,
// and which manifest a publish writes (its own shards, an append rebased on a newer live
// manifest, or nothing when the live one already lists the same shards). The activities read
// the store, call these and write what they return.
package indexplan

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/lifecycle"
	"github.com/asofrag/asof/schemas"
)

// ErrWouldDrop matches (errors.Is) the error of a build that would publish an index without
// documents the live one holds.
var ErrWouldDrop = errors.New("the build would drop documents of the live index")

// ErrAppendMismatch matches the error of an append whose model, period or chunking differs from
// the live index's.
var ErrAppendMismatch = errors.New("the append does not fit the live index")

// ErrRebuilt matches the error of an append whose index was rebuilt (another model, period or
// chunking) while it ran.
var ErrRebuilt = errors.New("the index was rebuilt while the append ran")

// planError is an error whose text is what a person reads and which matches its kind (one of
// the sentinels above) without wrapping it, so the text stays the root cause alone.
type planError struct {
	msg  string
	kind error
}

func (e planError) Error() string        { return e.msg }
func (e planError) Is(target error) bool { return target == e.kind }

// Unplanned returns the live shards that a plan of the shard ids planned does not rebuild as
// they are: the only ones that can hold documents the build would drop.
func Unplanned(live []schemas.ShardMeta, planned []string) []schemas.ShardMeta {
	same := make(map[string]bool, len(planned))
	for _, id := range planned {
		same[id] = true
	}
	var out []schemas.ShardMeta
	for _, sm := range live {
		if !same[sm.ID] {
			out = append(out, sm)
		}
	}
	return out
}

// Dropped collects the documents of live shards that a build's documents do not hold.
type Dropped struct {
	have    map[string]bool
	dropped map[string]bool
	example string
}

// NewDropped starts a collection against the build's documents.
func NewDropped(docs []schemas.Document) *Dropped {
	d := &Dropped{have: make(map[string]bool, len(docs)), dropped: map[string]bool{}}
	for _, doc := range docs {
		d.have[doc.DocID] = true
	}
	return d
}

// Add records the doc_ids of one live shard of period; each document counts once.
func (d *Dropped) Add(period string, docIDs []string) {
	for _, id := range docIDs {
		if !d.have[id] && !d.dropped[id] {
			d.dropped[id] = true
			if d.example == "" {
				d.example = fmt.Sprintf("%q in shard %s", id, period)
			}
		}
	}
}

// Len is how many documents the build would drop.
func (d *Dropped) Len() int { return len(d.dropped) }

// Err is nil when the build drops nothing, else an ErrWouldDrop error that names index, the
// count, one example and the flags that publish anyway.
func (d *Dropped) Err(index string) error {
	if len(d.dropped) == 0 {
		return nil
	}
	what := fmt.Sprintf("%d documents", len(d.dropped))
	if len(d.dropped) == 1 {
		what = "1 document"
	}
	return planError{kind: ErrWouldDrop, msg: fmt.Sprintf("index %s holds %s this build would not (e.g. %s: not in these files, or quarantined): publishing would drop them.\n"+
		"Pass --append to add these files to the index, or --replace to publish it without them", index, what, d.example)}
}

// CheckAppend says whether an append embedding with model, partitioned by period and chunked
// with chunk fits the live manifest of index: nil, or an ErrAppendMismatch error that names the
// flag to pass. A model of other weights (another id or sha256) is the caller's to report
// first, with its own advice; here a model differs only in its dimension.
func CheckAppend(index string, live schemas.Manifest, model schemas.ModelRef, period string, chunk schemas.ChunkConfig) error {
	var msg string
	switch {
	case live.Model != model:
		msg = fmt.Sprintf("--append: index %s was built with %d-d vectors of %s, this worker's are %d-d", index, live.Model.Dim, live.Model.ID, model.Dim)
	case live.Period != period:
		msg = fmt.Sprintf("--append: index %s is partitioned by %s, not %s (pass --period %s)", index, live.Period, period, live.Period)
	case live.Chunk != chunk:
		msg = fmt.Sprintf("--append: index %s was chunked with %+v, not %+v (pass --chunk-size %d --chunk-overlap %d --chunk-min %d --max-chunks-per-doc %d)",
			index, live.Chunk, chunk, live.Chunk.Size, live.Chunk.Overlap, live.Chunk.Min, live.Chunk.MaxChunksPerDoc)
	default:
		return nil
	}
	return planError{kind: ErrAppendMismatch, msg: msg}
}

// Build is a finished build to publish (the JSON of activities.PublishManifestInput).
type Build struct {
	Index  string              `json:"index"`
	Period string              `json:"period"`
	Chunk  schemas.ChunkConfig `json:"chunk"`
	Model  schemas.ModelRef    `json:"model"`
	// Shards are the build's shards; for an append, manifest BaseSeq's shards plus the new ones.
	Shards []schemas.ShardMeta `json:"shards"`
	Counts schemas.IndexCounts `json:"counts"`
	// Base is the counts of the index an append adds to (the manifest records Base + Counts).
	Base      schemas.IndexCounts `json:"base"`
	CreatedAt time.Time           `json:"created_at"`
	// Append marks an append planned on the live manifest number BaseSeq (0: no index yet).
	Append  bool `json:"append,omitempty"`
	BaseSeq int  `json:"base_seq,omitempty"`
	// Kind is the index's kind for rows that say none (schemas.KindNews, "" or
	// schemas.KindStanding), recorded in the manifest.
	Kind string `json:"kind,omitempty"`
}

// Publication is what publishing a build writes.
type Publication struct {
	// Manifest is the manifest to write (its Seq is the writer's to set); zero when Unchanged.
	Manifest schemas.Manifest
	// Unchanged is set when the live manifest already lists exactly these shards of this model.
	Unchanged bool
	// Rebased is set when an append's shards were added to a manifest newer than the one it
	// was planned on.
	Rebased bool
}

// NeedsBase reports whether publishing b over the live manifest (nil: no index) whose number
// is liveSeq rebases it, so that Publish needs the shard ids of manifest b.BaseSeq.
func NeedsBase(b Build, live *schemas.Manifest, liveSeq int) bool {
	return b.Append && live != nil && liveSeq != b.BaseSeq
}

// ShardIDs is the set of the ids of shards (Publish's base).
func ShardIDs(shards []schemas.ShardMeta) map[string]bool {
	ids := make(map[string]bool, len(shards))
	for _, s := range shards {
		ids[s.ID] = true
	}
	return ids
}

// Publish is the manifest that publishing b over the live manifest (nil: no index) whose number
// is liveSeq writes. A full build publishes its own shards (last writer wins, as with any
// rebuild). An append planned on an older manifest is rebased: the shards it built (those not
// in base, the shard ids of manifest b.BaseSeq, nil for none) are added to the live manifest's, with the live
// counts plus its own, so that two appends keep each other's shards; an ErrRebuilt error when
// the live index has another model, period or chunking. Shards are sorted by period, then id.
func Publish(b Build, live *schemas.Manifest, liveSeq int, base map[string]bool) (Publication, error) {
	shards := b.Shards
	counts := b.Base.Plus(b.Counts)
	rebased := false
	if NeedsBase(b, live, liveSeq) {
		var err error
		if shards, err = rebase(b, *live, base); err != nil {
			return Publication{}, err
		}
		counts, rebased = live.Counts.Plus(b.Counts), true
	}
	shards = sortedShards(shards)
	if live != nil && SameShards(*live, shards, b.Model) {
		return Publication{Unchanged: true}, nil
	}
	m := schemas.Manifest{Version: schemas.ManifestVersion, Index: b.Index, CreatedAt: b.CreatedAt.UTC(),
		Model: b.Model, Period: b.Period, Chunk: b.Chunk, Shards: shards, Counts: counts, Kind: ManifestKind(b.Kind)}
	if live != nil {
		m.Takedowns = carried(live.Takedowns, b.CreatedAt) // a rebuild or an append never brings a document taken down back
	}
	m.Version = schemas.ManifestVersionOf(m)
	for _, s := range shards {
		m.Counts.Chunks += int64(s.Chunks)
	}
	return Publication{Manifest: m, Rebased: rebased}, nil
}

// carried is the live manifest's takedowns as a build that started at started publishes them:
// a document taken down before the build started was left out of its shards, so a purge of it
// stays done; one taken down while the build ran may be in the shards it wrote, so it is
// marked not purged (a purge run again removes it from them).
func carried(live []schemas.Takedown, started time.Time) []schemas.Takedown {
	out := slices.Clone(live)
	for i := range out {
		if out[i].Purged != nil && !out[i].At.Before(started) {
			out[i].Purged = nil
		}
	}
	return out
}

// rebase adds the shards an append built (b.Shards not in base) to the live manifest's.
// A live index with another model, period or chunking was rebuilt while the append ran: the
// append's shards do not belong to it, and the append must be planned again.
func rebase(b Build, live schemas.Manifest, base map[string]bool) ([]schemas.ShardMeta, error) {
	if live.Model != b.Model || live.Period != b.Period || live.Chunk != b.Chunk {
		return nil, planError{kind: ErrRebuilt, msg: fmt.Sprintf(
			"--append: index %s was rebuilt while this append ran (now %s, %s shards, chunking %+v): run the append again",
			b.Index, live.Model.ID, live.Period, live.Chunk)}
	}
	out := append([]schemas.ShardMeta(nil), live.Shards...)
	have := map[string]bool{}
	for _, s := range live.Shards {
		have[s.ID] = true
	}
	for _, s := range b.Shards {
		if !base[s.ID] && !have[s.ID] {
			out = append(out, s)
			have[s.ID] = true
		}
	}
	return out, nil
}

// sortedShards returns shards by period, then id (an appended period has several shards).
func sortedShards(shards []schemas.ShardMeta) []schemas.ShardMeta {
	out := append([]schemas.ShardMeta(nil), shards...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Period != out[j].Period {
			return out[i].Period < out[j].Period
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ShardList is shards' ids in order, as one string: the key of a shard list.
func ShardList(shards []schemas.ShardMeta) string {
	ids := make([]string, len(shards))
	for i, s := range shards {
		ids[i] = s.ID
	}
	return strings.Join(ids, ",")
}

// SameShards reports whether manifest m lists exactly shards (by id, in order) of model.
func SameShards(m schemas.Manifest, shards []schemas.ShardMeta, model schemas.ModelRef) bool {
	if m.Model != model || len(m.Shards) != len(shards) {
		return false
	}
	for i := range shards {
		if m.Shards[i].ID != shards[i].ID {
			return false
		}
	}
	return true
}

// ManifestKind is how a manifest records a build's kind: "" for news (every index before kinds
// reads so), schemas.KindStanding as it is.
func ManifestKind(kind string) string {
	if kind == schemas.KindNews {
		return ""
	}
	return kind
}

// Kinded reads docs as kind says where a row says none (the kind column wins; "" and
// schemas.KindNews leave news as it is), and gives each standing document without an
// effective_at the day its text says it comes into force, when that is after its publication
// ("w.e.f. 01-04-2026", "shall come into force on …": lifecycle.StatedEffective). Both are part
// of the document, so they are hashed into its shard's id.
func Kinded(docs []schemas.Document, kind string) {
	for i := range docs {
		d := &docs[i]
		if d.Kind == "" && kind == schemas.KindStanding {
			d.Kind = schemas.KindStanding
		}
		if d.Kind == schemas.KindNews {
			d.Kind = "" // news is the default: its documents hash as they always did
		}
		if d.Kind != schemas.KindStanding || d.EffectiveAt != nil {
			continue
		}
		if eff := lifecycle.StatedEffective(d.Text); eff.After(asofday.Start(d.PublishedAt)) {
			d.EffectiveAt = &eff
		}
	}
}

// Versioned numbers the versions of each document among docs (several rows of one doc_id the
// loader let through: other content, other times, corpus.Loader): in publication order, after
// the latest version the index holds (known; an append), the first version as 0 (a document's
// first version is not numbered), the next 2, 3, …. It returns how many rows are later
// versions.
func Versioned(docs []schemas.Document, known map[string]corpus.Known) int {
	byID := map[string][]int{}
	for i := range docs {
		byID[docs[i].DocID] = append(byID[docs[i].DocID], i)
	}
	later := 0
	for id, at := range byID {
		k, isKnown := known[id]
		if len(at) == 1 && !isKnown {
			continue
		}
		sort.SliceStable(at, func(a, b int) bool { return docs[at[a]].PublishedAt.Before(docs[at[b]].PublishedAt) })
		base := int32(0)
		if isKnown {
			base = max(k.Version, 1)
		}
		for j, i := range at {
			v := base + int32(j) + 1
			if v > 1 {
				docs[i].Version = v
				later++
			}
		}
	}
	return later
}

// TakenDown is the set of doc_ids m records as taken down (nil: none).
func TakenDown(m schemas.Manifest) map[string]bool {
	if len(m.Takedowns) == 0 {
		return nil
	}
	out := make(map[string]bool, len(m.Takedowns))
	for _, t := range m.Takedowns {
		out[t.DocID] = true
	}
	return out
}
