package shard

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/fsutil"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/lexical"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// File names inside a shard folder.
const (
	ChunksFile  = "chunks.parquet"
	VectorsFile = "vectors.f32"
	BM25File    = "bm25.zip"
	MetaFile    = "meta.json"
	// Int8File holds the vectors' int8 codes (vecindex.Int8.WriteTo), which retrieval scans
	// before re-scoring in float32. Shards written before it have none: meta.json does not
	// list it, and they are scanned in float32.
	Int8File = "vectors.i8"
)

// ErrCorruptShard matches (errors.Is) a *CorruptError: a shard file whose size or sha256 is
// not what its meta.json records.
var ErrCorruptShard = errors.New("shard file does not match its meta.json")

// CorruptError says which shard file is damaged and how.
type CorruptError struct {
	// Key names the file (relative to its index, as in ShardMeta.Objects, unless the caller
	// made it a full key).
	Key string
	// Size and SHA256 are what was read; WantSize and WantSHA what meta.json records.
	Size, WantSize  int64
	SHA256, WantSHA string
}

// Error names the file and both sizes and sums.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s is damaged: %d bytes with sha256 %.12s…, its meta.json records %d bytes with sha256 %.12s…",
		e.Key, e.Size, e.SHA256, e.WantSize, e.WantSHA)
}

// Is makes errors.Is(err, ErrCorruptShard) true. The error does not wrap the sentinel, so its
// own text is the innermost a failure chain shows.
func (e *CorruptError) Is(target error) bool { return target == ErrCorruptShard }

// CheckObject compares one shard file, by its name (ChunksFile, VectorsFile, Int8File or BM25File) and
// the size and hex sha256 of its bytes, with what meta records for it; a *CorruptError when
// they differ. A file meta does not list is not checked.
func CheckObject(meta schemas.ShardMeta, name string, size int64, sha string) error {
	for _, o := range meta.Objects {
		if path.Base(o.Key) != name {
			continue
		}
		if size != o.Size || sha != o.SHA256 {
			return &CorruptError{Key: o.Key, Size: size, WantSize: o.Size, SHA256: sha, WantSHA: o.SHA256}
		}
		return nil
	}
	return nil
}

// Files are the data files of a shard as meta lists them: ChunksFile, VectorsFile, BM25File,
// and Int8File when meta lists it (a shard written before int8 codes has none).
func Files(meta schemas.ShardMeta) []string {
	names := []string{ChunksFile, VectorsFile, BM25File}
	if HasInt8(meta) {
		names = append(names, Int8File)
	}
	return names
}

// HasInt8 says whether meta lists the shard's int8 codes (Int8File).
func HasInt8(meta schemas.ShardMeta) bool {
	for _, o := range meta.Objects {
		if path.Base(o.Key) == Int8File {
			return true
		}
	}
	return false
}

// Verify checks the files of the shard folder dir against meta (see CheckObject and Files).
func Verify(dir string, meta schemas.ShardMeta) error {
	for _, name := range Files(meta) {
		size, sum, err := fsutil.HashFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := CheckObject(meta, name, size, sum); err != nil {
			return err
		}
	}
	return nil
}

// Write builds a shard's files in dir (created; must not hold a shard already): chunk rows,
// their vectors (row i = chunk i) and their int8 codes (vecindex.QuantizeInt8), the BM25
// index, then meta.json describing them with sizes and sha256. Docs is the number of
// documents the chunks came from.
func Write(dir, period, id string, docs int, chunks []schemas.Chunk, vectors *vecindex.Flat) (schemas.ShardMeta, error) {
	if vectors.Count != len(chunks) {
		return schemas.ShardMeta{}, fmt.Errorf("shard %s: %d vectors for %d chunks", id, vectors.Count, len(chunks))
	}
	if len(chunks) == 0 {
		return schemas.ShardMeta{}, fmt.Errorf("shard %s: no chunks", id)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return schemas.ShardMeta{}, err
	}
	if err := writeChunks(filepath.Join(dir, ChunksFile), chunks); err != nil {
		return schemas.ShardMeta{}, fmt.Errorf("shard %s: %w", id, err)
	}
	if err := writeTo(filepath.Join(dir, VectorsFile), vectors); err != nil {
		return schemas.ShardMeta{}, fmt.Errorf("shard %s: %w", id, err)
	}
	if err := writeTo(filepath.Join(dir, Int8File), vecindex.QuantizeInt8(vectors)); err != nil {
		return schemas.ShardMeta{}, fmt.Errorf("shard %s: %w", id, err)
	}
	bm := filepath.Join(dir, "bm25.tmp")
	os.RemoveAll(bm)
	docsLex := make([]lexical.Doc, len(chunks))
	for i, c := range chunks {
		docsLex[i] = lexical.Doc{Row: i, Text: EmbedText(c), Lang: c.Lang, PublishedAt: c.PublishedAt}
	}
	if err := lexical.Build(bm, docsLex); err != nil {
		return schemas.ShardMeta{}, fmt.Errorf("shard %s: %w", id, err)
	}
	if err := zipDir(bm, filepath.Join(dir, BM25File)); err != nil {
		return schemas.ShardMeta{}, fmt.Errorf("shard %s: pack bm25: %w", id, err)
	}
	os.RemoveAll(bm)

	meta := schemas.ShardMeta{ID: id, Period: period, Docs: docs, Chunks: len(chunks), MinDate: chunks[0].PublishedAt, MaxDate: chunks[0].PublishedAt, Clean: textnorm.CleanVersion}
	for _, c := range chunks {
		meta.Lexical = max(meta.Lexical, lexical.VersionOf(c.Lang))
	}
	docsOf := map[string]bool{}
	for _, c := range chunks {
		if k := c.DocID + "\x00" + strconv.Itoa(int(c.Version)); !docsOf[k] {
			docsOf[k] = true
			if c.Kind == schemas.KindStanding {
				meta.Standing++
			}
			if c.Version > 1 {
				meta.Versions++
			}
		}
		if c.PublishedAt.Before(meta.MinDate) {
			meta.MinDate = c.PublishedAt
		}
		if c.PublishedAt.After(meta.MaxDate) {
			meta.MaxDate = c.PublishedAt
		}
	}
	meta.MinDate, meta.MaxDate = meta.MinDate.UTC(), meta.MaxDate.UTC()
	for _, name := range []string{ChunksFile, VectorsFile, BM25File, Int8File} {
		size, sum, err := fsutil.HashFile(filepath.Join(dir, name))
		if err != nil {
			return schemas.ShardMeta{}, err
		}
		meta.Objects = append(meta.Objects, schemas.ObjectRef{Key: path.Join(layout.ShardPrefix(period, id), name), Size: size, SHA256: sum})
	}
	data, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, MetaFile), data, 0o644); err != nil {
		return schemas.ShardMeta{}, err
	}
	return meta, nil
}

func writeChunks(p string, chunks []schemas.Chunk) error {
	if err := parquet.WriteFile(p, chunks, parquet.Compression(&parquet.Zstd)); err != nil {
		return fmt.Errorf("write %s: %w", ChunksFile, err)
	}
	return nil
}

// writeTo writes w's bytes to the file p (created or truncated).
func writeTo(p string, w io.WriterTo) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", filepath.Base(p), err)
	}
	return f.Close()
}

// ReadChunks loads a shard's chunk rows (parquet.ReadFile).
func ReadChunks(p string) ([]schemas.Chunk, error) {
	rows, err := parquet.ReadFile[schemas.Chunk](p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return rows, nil
}

// ReadVectors loads a shard's vectors.
func ReadVectors(p string) (*vecindex.Flat, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return vecindex.Read(f)
}

// ReadInt8 loads a shard's int8 codes (Int8File) for its vectors v; a file for other
// vectors (count, dim) or damaged is an error wrapping vecindex.ErrFormat that names p.
func ReadInt8(p string, v *vecindex.Flat) (*vecindex.Int8, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	x, err := vecindex.ReadInt8(f, v)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return x, nil
}

// OpenBM25 unpacks bm25.zip into dir (which must not exist) and opens it.
func OpenBM25(zipPath, dir string) (*lexical.Index, error) {
	if err := fsutil.Unzip(zipPath, dir); err != nil {
		return nil, err
	}
	return lexical.Open(dir)
}

// zipDir packs the files under dir into a zip at out (stored, not compressed: bleve's
// segments are already compact, and reading them back is then a plain copy).
func zipDir(dir, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Store, Modified: time.Unix(0, 0)})
		if err != nil {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(w, src)
		return err
	})
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
