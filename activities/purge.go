package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/lifecycle"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// PurgeInput purges the documents taken down from an index (asof docs delete --purge) at At,
// the workflow's time.
type PurgeInput struct {
	Index string    `json:"index"`
	At    time.Time `json:"at"`
}

// PurgeShards writes every live shard that holds a row of a document taken down and not yet
// purged again without those rows (text, vectors and BM25 terms; a shard left empty is
// dropped), under a new id (shard.PurgedID: a retry or a rerun finds the shards it wrote and
// does not write them again), and publishes the live manifest with those shards, the takedowns
// marked purged and the lifecycle table without them (storeio.WithoutLifecycle), by
// compare-and-swap like any build. No answer served the rows before (the mask) or after; BM25's
// statistics of a shard written again no longer count them. With nothing left to purge it
// publishes nothing.
func (a *Activities) PurgeShards(ctx context.Context, in PurgeInput) (schemas.PurgeResult, error) {
	if err := layout.ValidateIndexName(in.Index); err != nil {
		return schemas.PurgeResult{}, invalid(err)
	}
	var res schemas.PurgeResult
	held := map[string][]string{}               // shard id → the doc_ids it holds, read once
	purged := map[string]purgedShard{}          // PurgedID → what rewriting gave
	lives := map[string]*schemas.LifecycleRef{} // lifecycle key + gone → the table without them
	pub, err := layout.Publish(ctx, a.Bucket, in.Index, func(live *schemas.Manifest, seq int, liveErr error) (*schemas.Manifest, error) {
		if live == nil {
			if liveErr != nil {
				return nil, fmt.Errorf("purge %s: read the live manifest: %w", in.Index, liveErr)
			}
			return nil, invalid(fmt.Errorf("%w: %s", layout.ErrIndexNotFound, in.Index))
		}
		gone := map[string]bool{}
		res = schemas.PurgeResult{}
		for _, t := range live.Takedowns {
			if t.Purged == nil {
				gone[t.DocID] = true
				res.Docs = append(res.Docs, t.DocID)
			}
		}
		if len(gone) == 0 {
			return nil, nil
		}
		var shards []schemas.ShardMeta
		for _, sm := range live.Shards {
			ids, ok := held[sm.ID]
			if !ok {
				all, err := storeio.ShardDocIDs(ctx, a.Bucket, in.Index, sm)
				if err != nil {
					return nil, fmt.Errorf("purge %s: read shard %s: %w", in.Index, sm.ID, err)
				}
				slices.Sort(all)
				ids = slices.Compact(all)
				held[sm.ID] = ids
				heartbeat(ctx, sm.ID)
			}
			hit := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !gone[id] })
			if len(hit) == 0 {
				shards = append(shards, sm)
				continue
			}
			id := shard.PurgedID(sm.ID, hit)
			p, ok := purged[id]
			if !ok {
				var err error
				if p, err = a.purgeShard(ctx, in.Index, sm, id, gone); err != nil {
					return nil, err
				}
				purged[id] = p
				heartbeat(ctx, id)
			}
			res.Rows += int64(p.removed)
			switch {
			case p.meta == nil:
				res.Dropped++
			case p.reused:
				res.Reused++
			default:
				res.Written++
			}
			if p.meta != nil {
				shards = append(shards, *p.meta)
			}
		}
		m := *live
		m.Shards = shards
		m.Counts = live.Counts
		m.Counts.Chunks = 0
		for _, s := range shards {
			m.Counts.Chunks += int64(s.Chunks)
		}
		at := in.At.UTC()
		m.Takedowns = slices.Clone(live.Takedowns)
		for i := range m.Takedowns {
			if gone[m.Takedowns[i].DocID] {
				m.Takedowns[i].Purged = &at
			}
		}
		if live.Lifecycle != nil {
			key := live.Lifecycle.Key + "\x00" + strings.Join(res.Docs, "\x00")
			ref, ok := lives[key]
			if !ok {
				var err error
				if ref, err = storeio.WithoutLifecycle(ctx, a.Bucket, in.Index, live.Lifecycle, gone); err != nil {
					return nil, err
				}
				lives[key] = ref
			}
			m.Lifecycle = ref
		}
		m.Seq, m.CreatedAt, m.RestoredFrom = seq+1, at, 0
		m.Version = schemas.ManifestVersionOf(m)
		return &m, nil
	}, func(existing schemas.Manifest, m *schemas.Manifest) bool {
		return indexplan.ShardList(existing.Shards) == indexplan.ShardList(m.Shards) && slices.EqualFunc(existing.Takedowns, m.Takedowns,
			func(a, b schemas.Takedown) bool { return a.DocID == b.DocID && (a.Purged == nil) == (b.Purged == nil) })
	})
	if err != nil {
		return schemas.PurgeResult{}, err
	}
	res.ManifestKey, res.Seq, res.Unchanged = pub.Key, pub.Seq, pub.Unchanged
	return res, nil
}

// purgedShard is a shard written again without the rows of documents taken down: its meta (nil
// when no row was left), whether an earlier try had written it, and the rows removed.
type purgedShard struct {
	meta    *schemas.ShardMeta
	reused  bool
	removed int
}

// purgeShard writes shard sm of index again as shard id, without the rows of the documents
// gone: read its chunks and vectors, drop their rows (shard.Without), and write and upload the
// shard (BM25 built anew from what is left), meta.json last. A shard id already written (an
// earlier try) is used as it is.
func (a *Activities) purgeShard(ctx context.Context, index string, sm schemas.ShardMeta, id string, gone map[string]bool) (purgedShard, error) {
	chunks, err := storeio.GetParquet[schemas.Chunk](ctx, a.Bucket, layout.ShardKey(index, sm.Period, sm.ID, shard.ChunksFile))
	if err != nil {
		return purgedShard{}, fmt.Errorf("purge %s: shard %s: %w", index, sm.ID, err)
	}
	removed := 0
	for _, c := range chunks {
		if gone[c.DocID] {
			removed++
		}
	}
	if removed == len(chunks) {
		return purgedShard{removed: removed}, nil
	}
	if m, err := storeio.BuiltShard(ctx, a.Bucket, index, sm.Period, id); err != nil {
		return purgedShard{}, err
	} else if m != nil {
		return purgedShard{meta: m, reused: true, removed: removed}, nil
	}
	vec, err := storeio.GetVectors(ctx, a.Bucket, layout.ShardKey(index, sm.Period, sm.ID, shard.VectorsFile))
	if err != nil {
		return purgedShard{}, fmt.Errorf("purge %s: shard %s: %w", index, sm.ID, err)
	}
	kept, keptVec, docs, _, err := shard.Without(chunks, vec, gone)
	if err != nil {
		return purgedShard{}, mismatch(fmt.Errorf("purge %s: shard %s: %w", index, sm.ID, err))
	}
	dir, err := os.MkdirTemp("", "asof-purge-")
	if err != nil {
		return purgedShard{}, err
	}
	defer os.RemoveAll(dir)
	meta, err := shard.Write(filepath.Join(dir, "s"), sm.Period, id, docs, kept, keptVec)
	if err != nil {
		return purgedShard{}, err
	}
	if err := storeio.UploadShard(ctx, a.Bucket, index, filepath.Join(dir, "s"), meta); err != nil {
		return purgedShard{}, err
	}
	return purgedShard{meta: &meta, removed: removed}, nil
}

// PurgeSweep deletes or rewrites, once the live shards are purged (PurgeShards), every other
// object of the store that holds the text of a document purged from index: the shard folders
// and lifecycle tables of earlier manifests that hold it (an earlier manifest that named them
// can no longer be read), staged build files, the uploaded copies of input files with a row of
// it (asof index uploads a file again when it is given again, and leaves the document out),
// and, for the index's stored answers and digests that cite it, the answer (and its context and
// judge pool) or the digest day (JSON, Markdown, HTML, and the archive page) written again with
// the document shown as removed (catalog.RedactAnswer, RedactDigest). Each step finds what is
// left to do by reading the store, so a rerun after a crash does what the crash left.
func (a *Activities) PurgeSweep(ctx context.Context, in PurgeInput) (schemas.PurgeSweep, error) {
	if err := layout.ValidateIndexName(in.Index); err != nil {
		return schemas.PurgeSweep{}, invalid(err)
	}
	live, err := a.currentManifest(ctx, in.Index)
	if err != nil {
		return schemas.PurgeSweep{}, err
	}
	s := sweep{a: a, index: in.Index, live: live, gone: map[string]bool{}, notes: map[string]schemas.Takedown{}}
	for _, t := range live.Takedowns {
		if t.Purged != nil {
			s.gone[t.DocID] = true
			s.notes[t.DocID] = t
		}
	}
	if len(s.gone) == 0 {
		return s.out, nil
	}
	for _, step := range []func(context.Context) error{s.shards, s.lifecycle, s.staging, s.corpora, s.answers, s.digests} {
		if err := step(ctx); err != nil {
			return s.out, fmt.Errorf("purge %s: %w", in.Index, err)
		}
	}
	return s.out, nil
}

// sweep is one PurgeSweep: the index, its live manifest, the documents purged, and the counts.
type sweep struct {
	a     *Activities
	index string
	live  schemas.Manifest
	gone  map[string]bool
	notes map[string]schemas.Takedown
	out   schemas.PurgeSweep
}

func (s *sweep) bucket() blob.Bucket { return s.a.Bucket }

// scanned counts an object read and heartbeats with its key.
func (s *sweep) scanned(ctx context.Context, key string) {
	s.out.Scanned++
	heartbeat(ctx, key)
}

// folders groups the objects under prefix (a folder) by their folder depth levels below it:
// "…/shards/<period>/<id>" for depth 2.
func (s *sweep) folders(ctx context.Context, prefix string, depth int) (map[string][]blob.ObjectInfo, []string, error) {
	objs, err := blob.List(ctx, s.bucket(), prefix+"/")
	if err != nil {
		return nil, nil, err
	}
	by := map[string][]blob.ObjectInfo{}
	var order []string
	for _, o := range objs {
		parts := strings.Split(strings.TrimPrefix(o.Key, prefix+"/"), "/")
		if len(parts) <= depth {
			continue
		}
		f := path.Join(append([]string{prefix}, parts[:depth]...)...)
		if _, ok := by[f]; !ok {
			order = append(order, f)
		}
		by[f] = append(by[f], o)
	}
	return by, order, nil
}

// holdsIDs reports whether the Parquet object key (of rows with a doc_id column) has a row of a
// document gone; a missing object holds none.
func (s *sweep) holdsIDs(ctx context.Context, key string) (bool, error) {
	type row struct {
		DocID string `parquet:"doc_id"`
	}
	rows, err := storeio.GetParquet[row](ctx, s.bucket(), key)
	if errors.Is(err, blob.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.scanned(ctx, key)
	return slices.ContainsFunc(rows, func(r row) bool { return s.gone[r.DocID] }), nil
}

// deleteAll deletes objs, counting them.
func (s *sweep) deleteAll(ctx context.Context, objs []blob.ObjectInfo) error {
	for _, o := range objs {
		if err := s.bucket().Delete(ctx, o.Key); err != nil {
			return fmt.Errorf("delete %s: %w", o.Key, err)
		}
		s.out.Objects++
	}
	return nil
}

// shards deletes the shard folders the live manifest does not list whose chunks hold a
// document gone (those of earlier manifests; a folder a crash left half uploaded too).
func (s *sweep) shards(ctx context.Context) error {
	live := map[string]bool{}
	for _, sm := range s.live.Shards {
		live[layout.IndexKey(s.index, layout.ShardPrefix(sm.Period, sm.ID))] = true
	}
	by, order, err := s.folders(ctx, layout.IndexKey(s.index, "shards"), 2)
	if err != nil {
		return err
	}
	for _, f := range order {
		if live[f] {
			continue
		}
		hit, err := s.holdsIDs(ctx, path.Join(f, shard.ChunksFile))
		if err != nil {
			return err
		}
		if hit {
			if err := s.deleteAll(ctx, by[f]); err != nil {
				return err
			}
			s.out.Shards++
		}
	}
	return nil
}

// lifecycle deletes the lifecycle tables (and reports) the live manifest does not name that say
// something of a document gone.
func (s *sweep) lifecycle(ctx context.Context) error {
	objs, err := blob.List(ctx, s.bucket(), layout.IndexKey(s.index, "lifecycle")+"/")
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	if l := s.live.Lifecycle; l != nil {
		keep[layout.IndexKey(s.index, l.Key)], keep[layout.IndexKey(s.index, l.Report)] = true, true
	}
	for _, o := range objs {
		if keep[o.Key] || path.Ext(o.Key) != ".parquet" {
			continue
		}
		entries, err := storeio.GetParquet[lifecycle.Entry](ctx, s.bucket(), o.Key)
		if err != nil && !errors.Is(err, storeio.ErrDecode) {
			return err
		}
		s.scanned(ctx, o.Key)
		if err == nil && !slices.ContainsFunc(entries, func(e lifecycle.Entry) bool { return s.gone[e.DocID] || s.gone[e.By] }) {
			continue
		}
		report := strings.TrimSuffix(o.Key, ".parquet") + ".json"
		if err := s.deleteAll(ctx, []blob.ObjectInfo{{Key: report}, o}); err != nil {
			return err
		}
		s.out.Lifecycle++
	}
	return nil
}

// staging deletes the staged build folders whose documents or chunks hold a document gone.
func (s *sweep) staging(ctx context.Context) error {
	by, order, err := s.folders(ctx, layout.IndexKey(s.index, "staging"), 1)
	if err != nil {
		return err
	}
	for _, f := range order {
		hit := false
		for _, name := range []string{"docs.parquet", "chunks.parquet"} {
			h, err := s.holdsIDs(ctx, path.Join(f, name))
			if err != nil && !errors.Is(err, storeio.ErrDecode) {
				return err
			}
			hit = hit || h || err != nil // a staged file that does not read is deleted with the rest
		}
		if hit {
			if err := s.deleteAll(ctx, by[f]); err != nil {
				return err
			}
			s.out.Staging++
		}
	}
	return nil
}

// corpora deletes the uploaded input files (corpora/) with a row of a document gone: a row with
// a value equal to its doc_id, in whatever column (storeio.ParquetHolds). A copy another index
// was built from goes too; asof index uploads it again from the user's file.
func (s *sweep) corpora(ctx context.Context) error {
	objs, err := blob.List(ctx, s.bucket(), "corpora/")
	if err != nil {
		return err
	}
	for _, o := range objs {
		hit, err := storeio.ParquetHolds(ctx, s.bucket(), o.Key, s.gone)
		if err != nil {
			if errors.Is(err, blob.ErrNotFound) {
				continue
			}
			return err
		}
		s.scanned(ctx, o.Key)
		if hit {
			if err := s.deleteAll(ctx, []blob.ObjectInfo{o}); err != nil {
				return err
			}
			s.out.Corpora++
		}
	}
	return nil
}

// answers writes the stored answers of the index that cite a document gone again with it shown
// as removed (catalog.RedactAnswer; the context withheld), and their judge pools without it.
func (s *sweep) answers(ctx context.Context) error {
	objs, err := blob.List(ctx, s.bucket(), "runs/")
	if err != nil {
		return err
	}
	for _, o := range objs {
		if path.Base(o.Key) != path.Base(layout.AnswerKey("x")) {
			continue
		}
		ans, err := storeio.GetJSON[schemas.Answer](ctx, s.bucket(), o.Key)
		if errors.Is(err, blob.ErrNotFound) || errors.Is(err, storeio.ErrDecode) {
			continue
		}
		if err != nil {
			return err
		}
		s.scanned(ctx, o.Key)
		if ans.Index != s.index {
			continue
		}
		if catalog.RedactAnswer(&ans, s.notes) {
			if err := storeio.PutAnswer(ctx, s.bucket(), ans); err != nil {
				return err
			}
			s.out.Answers++
			s.out.Objects += 2
		}
		pool := layout.CandidatesKey(ans.RunID)
		rows, err := storeio.GetParquet[schemas.CandidateRow](ctx, s.bucket(), pool)
		if errors.Is(err, blob.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		kept := slices.DeleteFunc(slices.Clone(rows), func(r schemas.CandidateRow) bool { return s.gone[r.DocID] })
		if len(kept) < len(rows) {
			if err := storeio.PutParquet(ctx, s.bucket(), pool, kept); err != nil {
				return err
			}
			s.out.Objects++
		}
	}
	return nil
}

// digests writes the stored digest days of the index that cite a document gone again with it
// shown as removed (catalog.RedactDigest): JSON, Markdown and HTML, then the name's archive page.
func (s *sweep) digests(ctx context.Context) error {
	objs, err := blob.List(ctx, s.bucket(), "digests/")
	if err != nil {
		return err
	}
	var names []string
	for _, o := range objs {
		if path.Base(o.Key) != layout.DigestJSONFile {
			continue
		}
		d, err := storeio.GetJSON[schemas.Digest](ctx, s.bucket(), o.Key)
		if errors.Is(err, blob.ErrNotFound) || errors.Is(err, storeio.ErrDecode) {
			continue
		}
		if err != nil {
			return err
		}
		s.scanned(ctx, o.Key)
		if d.Index != s.index || !catalog.RedactDigest(&d, s.notes) {
			continue
		}
		var page bytes.Buffer
		if err := digest.WriteHTML(&page, d); err != nil {
			return err
		}
		if err := storeio.PutIndentedJSON(ctx, s.bucket(), o.Key, d); err != nil {
			return err
		}
		day := path.Dir(o.Key)
		if _, err := s.bucket().Put(ctx, path.Join(day, layout.DigestMarkdownFile), strings.NewReader(digest.Markdown(d))); err != nil {
			return err
		}
		if _, err := s.bucket().Put(ctx, path.Join(day, layout.DigestHTMLFile), &page); err != nil {
			return err
		}
		s.out.Digests++
		s.out.Objects += 3
		if !slices.Contains(names, d.Name) {
			names = append(names, d.Name)
		}
	}
	for _, name := range names {
		ds, err := storeio.ReadDigests(ctx, s.bucket(), name)
		if err != nil {
			return err
		}
		if err := storeio.PutWritten(ctx, s.bucket(), layout.DigestArchiveKey(name), func(w io.Writer) error { return digest.WriteArchive(w, name, ds) }); err != nil {
			return err
		}
		s.out.Objects++
	}
	return nil
}
