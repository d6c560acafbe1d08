package storeio

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// ErrMismatch matches (errors.Is) data that does not match what was written with it: a
// shard whose files are not what its meta.json records (size or sha256: also errors.Is
// shard.ErrCorruptShard), int8 codes for other vectors than the shard's, vector parts of
// different dims or models. No retry reads other bytes; the data must be written again.
var ErrMismatch = errors.New("storeio: data does not match what was written with it")

// mismatchError marks err as ErrMismatch and keeps its text and chain.
type mismatchError struct{ err error }

func (e mismatchError) Error() string        { return e.err.Error() }
func (e mismatchError) Unwrap() error        { return e.err }
func (e mismatchError) Is(target error) bool { return target == ErrMismatch }

// LoadShard downloads one shard of index into a fresh local folder and opens it: chunk rows,
// vectors (checked against the manifest's model), their int8 codes where the shard's meta
// lists them (shards written before them are scanned in float32) and the BM25 index. Each
// file must have the size and sha256 the shard's meta records; a damaged one is an
// ErrMismatch error naming its key (errors.Is shard.ErrCorruptShard), and so are codes for
// other vectors than the shard's (errors.Is vecindex.ErrFormat). Other errors name the shard.
func LoadShard(ctx context.Context, b blob.Bucket, index string, m schemas.ShardMeta, model schemas.ModelRef) (shard.Loaded[*retrieve.Shard], error) {
	var none shard.Loaded[*retrieve.Shard]
	dir, err := os.MkdirTemp("", "asof-shard-"+m.ID+"-")
	if err != nil {
		return none, err
	}
	fail := func(err error) (shard.Loaded[*retrieve.Shard], error) {
		os.RemoveAll(dir)
		if !errors.Is(err, ErrMismatch) {
			err = fmt.Errorf("load shard %s: %w", m.ID, err)
		}
		return none, err
	}
	prefix := path.Join(layout.IndexPrefix(index), layout.ShardPrefix(m.Period, m.ID))
	var size int64
	for _, name := range shard.Files(m) {
		n, sum, err := DownloadTo(ctx, b, path.Join(prefix, name), filepath.Join(dir, name))
		if err != nil {
			return fail(err)
		}
		if err := shard.CheckObject(m, name, n, sum); err != nil {
			var ce *shard.CorruptError
			if errors.As(err, &ce) {
				ce.Key = path.Join(layout.IndexPrefix(index), ce.Key)
			}
			return fail(mismatchError{err})
		}
		size += n
	}
	chunks, err := shard.ReadChunks(filepath.Join(dir, shard.ChunksFile))
	if err != nil {
		return fail(err)
	}
	vec, err := shard.ReadVectors(filepath.Join(dir, shard.VectorsFile))
	if err != nil {
		return fail(err)
	}
	if vec.Model != model.ID || vec.Dim != model.Dim {
		return fail(fmt.Errorf("shard %s holds %s/%d vectors, the manifest says %s/%d", m.ID, vec.Model, vec.Dim, model.ID, model.Dim))
	}
	var codes *vecindex.Int8
	if shard.HasInt8(m) {
		if codes, err = shard.ReadInt8(filepath.Join(dir, shard.Int8File), vec); err != nil {
			return fail(mismatchError{fmt.Errorf("shard %s: %w", m.ID, err)})
		}
	}
	lex, err := shard.OpenBM25(filepath.Join(dir, shard.BM25File), filepath.Join(dir, "bm25"))
	if err != nil {
		return fail(err)
	}
	os.Remove(filepath.Join(dir, shard.VectorsFile)) // in memory now
	os.Remove(filepath.Join(dir, shard.Int8File))
	s := &retrieve.Shard{ID: m.ID, Chunks: chunks, Vectors: vec, Int8: codes, Lexical: lex, MinDate: m.MinDate.UTC(), MaxDate: m.MaxDate.UTC()}
	return shard.Loaded[*retrieve.Shard]{Value: s, Size: size, Close: func() error {
		err := lex.Close()
		os.RemoveAll(dir)
		return err
	}}, nil
}

// Shards are the shards of one manifest a search loaded through a cache, and how many it
// skipped; Release lets the cache evict them again.
type Shards struct {
	Shards            []*retrieve.Shard
	Searched, Skipped int
	releases          []func()
}

// Release gives every loaded shard back to the cache; releasing twice is a no-op.
func (s *Shards) Release() {
	for _, r := range s.releases {
		r()
	}
	s.releases = nil
}

// LoadShards loads through cache (LoadShard on a miss) the shards of manifest m of index that
// can hold chunks inside bounds (a shard of standing texts whatever the recency window),
// skipping the others, and calls loaded with the count so far after each (a heartbeat). Each
// shard comes with the manifest's lifecycle applied to its rows (LoadLifecycle,
// retrieve.Shard.Life) and the rows of the documents it records as taken down removed
// (retrieve.Shard.Removed). On an error it releases what it loaded.
func LoadShards(ctx context.Context, b blob.Bucket, cache *shard.Cache[*retrieve.Shard], index string, m schemas.Manifest, bounds retrieve.Bounds, loaded func(n int)) (*Shards, error) {
	out := &Shards{}
	life, err := LoadLifecycle(ctx, b, index, m)
	if err != nil {
		return nil, err
	}
	gone := indexplan.TakenDown(m)
	for _, sm := range m.Shards {
		overlaps := bounds.Overlaps(sm.MinDate, sm.MaxDate)
		if sm.Standing > 0 {
			overlaps = bounds.OverlapsStanding(sm.MinDate, sm.MaxDate)
		}
		if !overlaps {
			out.Skipped++
			continue
		}
		s, rel, err := cache.Get(ctx, sm.ID, func(ctx context.Context) (shard.Loaded[*retrieve.Shard], error) {
			return LoadShard(ctx, b, index, sm, m.Model)
		})
		if err != nil {
			out.Release()
			return nil, err
		}
		out.releases = append(out.releases, rel)
		if l := life.LifeOf(sm.ID, s.Chunks); l != nil {
			s = s.WithLife(l) // the cached shard stays as it is: another manifest may apply another table
		}
		s = s.WithRemoved(gone) // documents taken down: never served, whatever the day
		out.Shards = append(out.Shards, s)
		out.Searched++
		loaded(out.Searched)
	}
	return out, nil
}

// BuiltShard returns the meta.json of shard id of index when that shard is written: nil when it
// is absent, does not decode or names another shard (the shard is then to be built again).
func BuiltShard(ctx context.Context, b blob.Bucket, index, period, id string) (*schemas.ShardMeta, error) {
	m, err := GetJSON[schemas.ShardMeta](ctx, b, layout.ShardKey(index, period, id, shard.MetaFile))
	if errors.Is(err, blob.ErrNotFound) || errors.Is(err, ErrDecode) || (err == nil && m.ID != id) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// ShardDocIDs reads the doc_id of every chunk row of shard sm of index (only that column).
func ShardDocIDs(ctx context.Context, b blob.Bucket, index string, sm schemas.ShardMeta) ([]string, error) {
	type docIDRow struct {
		DocID string `parquet:"doc_id"`
	}
	rows, err := GetParquet[docIDRow](ctx, b, layout.ShardKey(index, sm.Period, sm.ID, shard.ChunksFile))
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.DocID
	}
	return ids, nil
}

// DocVersion is one document version a shard holds: its doc id, version (1 for a first),
// publication and content hash (shard.DocHash).
type DocVersion struct {
	DocID     string
	Version   int32
	Published time.Time
	Hash      string
}

// ShardDocs reads the document versions of shard sm of index: the doc_id, version, published_at
// and doc_hash columns, and, for a shard written before chunks had doc_hash, every chunk, to
// hash each document from its pieces (shard.DocHash).
func ShardDocs(ctx context.Context, b blob.Bucket, index string, sm schemas.ShardMeta) ([]DocVersion, error) {
	type row struct {
		DocID       string    `parquet:"doc_id"`
		Version     int32     `parquet:"version,optional"`
		PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
		Seq         int32     `parquet:"seq"`
		DocHash     string    `parquet:"doc_hash,optional"`
	}
	key := layout.ShardKey(index, sm.Period, sm.ID, shard.ChunksFile)
	rows, err := GetParquet[row](ctx, b, key)
	if err != nil {
		return nil, err
	}
	var out []DocVersion
	hashed := true
	for _, r := range rows {
		if r.Seq == 0 {
			out = append(out, DocVersion{DocID: r.DocID, Version: max(r.Version, 1), Published: r.PublishedAt, Hash: r.DocHash})
			hashed = hashed && r.DocHash != ""
		}
	}
	if hashed {
		return out, nil
	}
	chunks, err := GetParquet[schemas.Chunk](ctx, b, key)
	if err != nil {
		return nil, err
	}
	by := map[[2]string][]schemas.Chunk{}
	for _, c := range chunks {
		k := [2]string{c.DocID, fmt.Sprint(c.VersionOf())}
		by[k] = append(by[k], c)
	}
	for i, d := range out {
		if d.Hash == "" {
			out[i].Hash = shard.DocHash(by[[2]string{d.DocID, fmt.Sprint(d.Version)}])
		}
	}
	return out, nil
}

// EachShardDocIDs reads the doc ids of each of shards of index in turn (ShardDocIDs) and hands
// them to each; it stops at the first shard that cannot be read.
func EachShardDocIDs(ctx context.Context, b blob.Bucket, index string, shards []schemas.ShardMeta, each func(sm schemas.ShardMeta, ids []string)) error {
	for _, sm := range shards {
		ids, err := ShardDocIDs(ctx, b, index, sm)
		if err != nil {
			return err
		}
		each(sm, ids)
	}
	return nil
}

// GetStagedShard reads a shard's staged chunk rows and its n vector parts (layout.PartKey
// under vectorsPrefix), and checks they hold one vector per chunk: a part of another dim or
// model is ErrMismatch; too few or too many vectors (parts not all embedded yet) is a plain
// error a retry may cure.
func GetStagedShard(ctx context.Context, b blob.Bucket, chunksKey, vectorsPrefix string, n int) ([]schemas.Chunk, *vecindex.Flat, error) {
	chunks, err := GetParquet[schemas.Chunk](ctx, b, chunksKey)
	if err != nil {
		return nil, nil, err
	}
	vec, err := GetVectorParts(ctx, b, n, func(p int) string { return layout.PartKey(vectorsPrefix, p) })
	if err != nil {
		return nil, nil, err
	}
	if vec == nil || vec.Count != len(chunks) {
		return nil, nil, fmt.Errorf("shard %s: vectors for %d of %d chunks", path.Base(path.Dir(chunksKey)), vec.Len(), len(chunks))
	}
	return chunks, vec, nil
}

// UploadShard uploads the files of shard meta of index, written in dir (shard.Write), meta.json
// last: a shard with a meta.json in the store is complete.
func UploadShard(ctx context.Context, b blob.Bucket, index, dir string, meta schemas.ShardMeta) error {
	for _, name := range append(shard.Files(meta), shard.MetaFile) {
		if _, err := Upload(ctx, b, layout.ShardKey(index, meta.Period, meta.ID, name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// StagePeriods plans each period's shard of index (periods and groups from shard.Group, ids
// from shard.IDs): a shard already built is Done with its meta.json; the documents of any
// other are staged at layout.StagingDocsKey, once (a staged object is kept as it is).
func StagePeriods(ctx context.Context, b blob.Bucket, index string, periods, ids []string, groups map[string][]schemas.Document) ([]indexplan.PeriodPlan, error) {
	var out []indexplan.PeriodPlan
	for i, p := range periods {
		pp := indexplan.PeriodPlan{Period: p, ShardID: ids[i], Docs: len(groups[p]), DocsKey: layout.StagingDocsKey(index, ids[i])}
		var err error
		if pp.Meta, err = BuiltShard(ctx, b, index, p, ids[i]); err != nil {
			return nil, err
		}
		if pp.Done = pp.Meta != nil; !pp.Done {
			staged, err := b.Exists(ctx, pp.DocsKey)
			if err == nil && !staged {
				err = PutParquet(ctx, b, pp.DocsKey, groups[p])
			}
			if err != nil {
				return nil, err
			}
		}
		out = append(out, pp)
	}
	return out, nil
}

// DocRows is what shards hold of some documents: their indexed versions (a document version
// is a row of an index's counts) and those versions per language.
type DocRows struct {
	Versions map[string]int
	Langs    map[string]map[string]int64
}

// CountDocRows reads the doc_id, version, seq and lang columns of every shard of index for the
// documents want (by doc_id), calling progress after each shard.
func CountDocRows(ctx context.Context, b blob.Bucket, index string, shards []schemas.ShardMeta, want map[string]bool, progress func(sm schemas.ShardMeta)) (DocRows, error) {
	type row struct {
		DocID   string `parquet:"doc_id"`
		Version int32  `parquet:"version,optional"`
		Seq     int32  `parquet:"seq"`
		Lang    string `parquet:"lang"`
	}
	out := DocRows{Versions: map[string]int{}, Langs: map[string]map[string]int64{}}
	for _, sm := range shards {
		rows, err := GetParquet[row](ctx, b, layout.ShardKey(index, sm.Period, sm.ID, shard.ChunksFile))
		if err != nil {
			return out, fmt.Errorf("read shard %s: %w", sm.ID, err)
		}
		for _, r := range rows {
			if r.Seq == 0 && want[r.DocID] { // a document version's first chunk
				out.Versions[r.DocID]++
				if r.Lang != "" {
					if out.Langs[r.DocID] == nil {
						out.Langs[r.DocID] = map[string]int64{}
					}
					out.Langs[r.DocID][r.Lang]++
				}
			}
		}
		if progress != nil {
			progress(sm)
		}
	}
	return out, nil
}

// WithoutRows is counts with the rows of rows moved from indexed to deleted, their languages
// with them (a takedown; a rollback to a manifest from before one).
func WithoutRows(counts schemas.IndexCounts, rows DocRows, ids []string) schemas.IndexCounts {
	c := counts
	c.Languages = maps.Clone(counts.Languages)
	for _, id := range ids {
		n := int64(rows.Versions[id])
		c.Indexed -= n
		c.Deleted += n
		for lang, k := range rows.Langs[id] {
			if c.Languages != nil {
				c.Languages[lang] -= k
				if c.Languages[lang] <= 0 {
					delete(c.Languages, lang)
				}
			}
		}
	}
	return c
}
