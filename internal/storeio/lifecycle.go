package storeio

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/lifecycle"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// LifecycleReport is what the JSON beside a lifecycle table holds: every supersession link and
// every warning, for `asof indexes show` and a person auditing what the build inferred.
type LifecycleReport struct {
	Links    []lifecycle.Link    `json:"links"`
	Warnings []lifecycle.Warning `json:"warnings"`
	Stats    schemas.LifecycleStats
}

// ResolveLifecycle reads the documents of the shards of index that hold standing texts or later
// versions (schemas.ShardMeta Standing, Versions), resolves them (lifecycle.Resolve) and stores
// the table and its report, content-addressed (layout.LifecycleKeys; a table already stored is
// not written again). It returns nil when no shard has such documents: the index needs no
// table. progress is called after each shard read.
func ResolveLifecycle(ctx context.Context, b blob.Bucket, index string, shards []schemas.ShardMeta, o lifecycle.Options, progress func(n int)) (*schemas.LifecycleRef, error) {
	var docs []lifecycle.Doc
	standing, read := 0, 0
	for _, sm := range shards {
		if sm.Standing == 0 && sm.Versions == 0 {
			continue
		}
		chunks, err := GetParquet[schemas.Chunk](ctx, b, layout.ShardKey(index, sm.Period, sm.ID, shard.ChunksFile))
		if err != nil {
			return nil, fmt.Errorf("lifecycle of %s: shard %s: %w", index, sm.ID, err)
		}
		var vec *vecindex.Flat
		if sm.Standing > 0 { // the restatement rule compares the first chunks' embeddings
			if vec, err = GetVectors(ctx, b, layout.ShardKey(index, sm.Period, sm.ID, shard.VectorsFile)); err != nil {
				return nil, fmt.Errorf("lifecycle of %s: shard %s: %w", index, sm.ID, err)
			}
			if vec.Count != len(chunks) {
				return nil, mismatchError{fmt.Errorf("lifecycle of %s: shard %s has %d vectors for %d chunks", index, sm.ID, vec.Count, len(chunks))}
			}
		}
		for i, c := range chunks {
			if c.Seq != 0 || (c.Kind != schemas.KindStanding && c.Version <= 1) {
				continue
			}
			d := lifecycle.Doc{DocID: c.DocID, Version: int(c.VersionOf()), Kind: c.Kind, Published: c.PublishedAt, Title: c.Title, Text: c.Text,
				Supersedes: SplitRefs(c.Supersedes)}
			if c.EffectiveAt != nil {
				d.Effective = *c.EffectiveAt
			}
			if vec != nil && c.Kind == schemas.KindStanding {
				d.Vec = vec.Row(i)
			}
			if c.Kind == schemas.KindStanding {
				standing++
			}
			docs = append(docs, d)
		}
		read++
		progress(read)
	}
	if len(docs) == 0 {
		return nil, nil
	}
	docs = withEarlierVersions(docs)
	t := lifecycle.Resolve(docs, o)
	return putLifecycle(ctx, b, index, t.Entries, LifecycleReport{Links: t.Links, Warnings: t.Warnings, Stats: t.Stats(standing)})
}

// putLifecycle stores a lifecycle table and its report, content-addressed (layout.LifecycleKeys;
// a table already stored is not written again), the table last.
func putLifecycle(ctx context.Context, b blob.Bucket, index string, entries []lifecycle.Entry, rep LifecycleReport) (*schemas.LifecycleRef, error) {
	var buf bytes.Buffer
	if err := parquet.Write(&buf, entries, parquet.Compression(&parquet.Zstd)); err != nil {
		return nil, fmt.Errorf("lifecycle of %s: encode: %w", index, err)
	}
	sum := sha256.Sum256(buf.Bytes())
	hexSum := hex.EncodeToString(sum[:])
	key, report := layout.LifecycleKeys(hexSum)
	ref := &schemas.LifecycleRef{Key: key, Report: report, SHA256: hexSum, Size: int64(buf.Len()), Stats: rep.Stats}
	full := layout.IndexKey(index, key)
	if ok, err := b.Exists(ctx, full); err != nil {
		return nil, err
	} else if !ok {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return nil, err
		}
		if _, err := b.Put(ctx, layout.IndexKey(index, report), bytes.NewReader(data)); err != nil {
			return nil, err
		}
		if _, err := b.Put(ctx, full, &buf); err != nil { // the table last: with it, the report is there
			return nil, err
		}
	}
	return ref, nil
}

// WithoutLifecycle stores the lifecycle table ref names (of index) without what it says of the
// documents gone (by doc_id, taken down and being purged), and returns the new table's ref: their
// entries and warnings are dropped, and the words quoted from their text (the Detail of an entry
// or link they end or are on an end of) are cleared. What the table says of every other text is
// kept as it was, so what is in force reads the same before and after a purge: a text a
// document taken down superseded stays superseded. A nil ref is nil.
func WithoutLifecycle(ctx context.Context, b blob.Bucket, index string, ref *schemas.LifecycleRef, gone map[string]bool) (*schemas.LifecycleRef, error) {
	if ref == nil {
		return nil, nil
	}
	entries, err := GetParquet[lifecycle.Entry](ctx, b, layout.IndexKey(index, ref.Key))
	if err != nil {
		return nil, fmt.Errorf("lifecycle of %s: %w", index, err)
	}
	rep, err := GetJSON[LifecycleReport](ctx, b, layout.IndexKey(index, ref.Report))
	if err != nil {
		return nil, fmt.Errorf("lifecycle report of %s: %w", index, err)
	}
	out := entries[:0]
	for _, e := range entries {
		if gone[e.DocID] {
			continue
		}
		if gone[e.By] {
			e.Detail = ""
		}
		out = append(out, e)
	}
	links := rep.Links[:0]
	for _, l := range rep.Links {
		if gone[l.Old] || gone[l.New] {
			l.Detail = ""
		}
		links = append(links, l)
	}
	warnings := rep.Warnings[:0]
	for _, w := range rep.Warnings {
		if !gone[w.DocID] {
			warnings = append(warnings, w)
		}
	}
	rep.Links, rep.Warnings = links, warnings
	return putLifecycle(ctx, b, index, out, rep)
}

// withEarlierVersions adds a stand-in for each earlier version the docs lack (the first version
// of an edited news item lies in a shard that holds no standing text or later version, so it
// was not read): published just before the earliest version read, so that Resolve ends it
// when that one is published. Only its doc id and version matter: entries key on them.
func withEarlierVersions(docs []lifecycle.Doc) []lifecycle.Doc {
	have := map[lifecycle.Key]bool{}
	earliest := map[string]lifecycle.Doc{}
	for _, d := range docs {
		have[lifecycle.Key{DocID: d.DocID, Version: int32(d.Version)}] = true
		if e, ok := earliest[d.DocID]; !ok || d.Version < e.Version {
			earliest[d.DocID] = d
		}
	}
	for id, d := range earliest {
		for v := 1; v < d.Version; v++ {
			if !have[lifecycle.Key{DocID: id, Version: int32(v)}] {
				docs = append(docs, lifecycle.Doc{DocID: id, Version: v, Kind: d.Kind, Published: d.Published.Add(-time.Duration(d.Version-v) * time.Nanosecond)})
			}
		}
	}
	return docs
}

// SplitRefs splits a supersedes value ("A; B, C") into its doc ids or identifiers.
func SplitRefs(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == '\n' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// lifecycles keeps the lifecycle tables read, by their key from the store's root: they are
// content-addressed, so a key's table never changes. A few are kept.
var lifecycles = struct {
	sync.Mutex
	m     map[string]*lifecycle.Index
	order []string
}{m: map[string]*lifecycle.Index{}}

// lifecycleKeep is how many lifecycle tables a process keeps read.
const lifecycleKeep = 16

// LoadLifecycle reads the lifecycle table manifest m names (nil: none, an Index that applies to
// nothing), checking its size and sha256, through a small process-wide cache.
func LoadLifecycle(ctx context.Context, b blob.Bucket, index string, m schemas.Manifest) (*lifecycle.Index, error) {
	if m.Lifecycle == nil {
		return lifecycle.NewIndex(nil), nil
	}
	key := layout.IndexKey(index, m.Lifecycle.Key)
	lifecycles.Lock()
	x, ok := lifecycles.m[key]
	lifecycles.Unlock()
	if ok {
		return x, nil
	}
	data, err := blob.ReadAll(ctx, b, key)
	if err != nil {
		return nil, fmt.Errorf("lifecycle of %s: %w", index, err)
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != m.Lifecycle.Size || hex.EncodeToString(sum[:]) != m.Lifecycle.SHA256 {
		return nil, mismatchError{fmt.Errorf("lifecycle of %s: %s is not the table the manifest names (%d bytes, sha256 %s)", index, key, m.Lifecycle.Size, m.Lifecycle.SHA256)}
	}
	entries, err := parquet.Read[lifecycle.Entry](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, &DecodeError{Key: key, Err: err}
	}
	x = lifecycle.NewIndex(&lifecycle.Table{Entries: entries})
	lifecycles.Lock()
	if _, ok := lifecycles.m[key]; !ok {
		lifecycles.m[key] = x
		lifecycles.order = append(lifecycles.order, key)
		if len(lifecycles.order) > lifecycleKeep {
			delete(lifecycles.m, lifecycles.order[0])
			lifecycles.order = lifecycles.order[1:]
		}
	}
	lifecycles.Unlock()
	return x, nil
}

// GetLifecycleReport reads the report beside manifest m's lifecycle table (nil: none).
func GetLifecycleReport(ctx context.Context, b blob.Bucket, index string, m schemas.Manifest) (*LifecycleReport, error) {
	if m.Lifecycle == nil {
		return nil, nil
	}
	r, err := GetJSON[LifecycleReport](ctx, b, layout.IndexKey(index, m.Lifecycle.Report))
	if err != nil {
		return nil, err
	}
	return &r, nil
}
