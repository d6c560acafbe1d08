// Package storeio reads and writes the objects asof keeps in its store: JSON documents,
// zstd Parquet tables, vector files and whole local files, and loads a shard for search.
// Activities call it for every load and store, so each of them reads as load → one pure call
// → store; the keys come from internal/layout. It imports nothing from Temporal: errors keep
// their cause (errors.Is blob.ErrNotFound, ErrDecode, ErrMismatch) and the caller classifies them.
package storeio

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/vecindex"
)

// ErrDecode matches (errors.Is) an object that was read but does not decode as what the
// caller asked for: no retry reads other bytes.
var ErrDecode = errors.New("storeio: object does not decode")

// DecodeError is an object at Key that does not decode; Err is the decoder's error.
type DecodeError struct {
	Key string
	Err error
}

// Error names the key and the decoder's reason.
func (e *DecodeError) Error() string { return fmt.Sprintf("decode %s: %v", e.Key, e.Err) }

// Unwrap returns the decoder's error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrDecode) true.
func (e *DecodeError) Is(target error) bool { return target == ErrDecode }

// PutJSON writes v as one compact JSON object at key.
func PutJSON(ctx context.Context, b blob.Bucket, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	_, err = b.Put(ctx, key, bytes.NewReader(data))
	return err
}

// PutIndentedJSON writes v as JSON indented by two spaces (the files people read: answers,
// summaries, digests).
func PutIndentedJSON(ctx context.Context, b blob.Bucket, key string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	_, err = b.Put(ctx, key, bytes.NewReader(data))
	return err
}

// GetJSON reads the JSON object at key into a T. A missing object is the bucket's error
// (errors.Is blob.ErrNotFound); one that does not decode is a *DecodeError.
func GetJSON[T any](ctx context.Context, b blob.Bucket, key string) (T, error) {
	var v T
	data, err := blob.ReadAll(ctx, b, key)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, &DecodeError{Key: key, Err: err}
	}
	return v, nil
}

// PutParquet writes rows as one zstd Parquet object at key.
func PutParquet[T any](ctx context.Context, b blob.Bucket, key string, rows []T) error {
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows, parquet.Compression(&parquet.Zstd)); err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	_, err := b.Put(ctx, key, &buf)
	return err
}

// GetParquet reads the whole Parquet object at key as T rows (parquet.Read: the columns T
// names). A missing object is the bucket's error; one that does not decode is a *DecodeError.
func GetParquet[T any](ctx context.Context, b blob.Bucket, key string) ([]T, error) {
	data, err := blob.ReadAll(ctx, b, key)
	if err != nil {
		return nil, err
	}
	rows, err := parquet.Read[T](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, &DecodeError{Key: key, Err: err}
	}
	return rows, nil
}

// GetParquetIfSet is GetParquet for an optional object: an empty key reads no rows.
func GetParquetIfSet[T any](ctx context.Context, b blob.Bucket, key string) ([]T, error) {
	if key == "" {
		return nil, nil
	}
	return GetParquet[T](ctx, b, key)
}

// GetParquetAll reads the Parquet objects at keys in order (GetParquet) as one list of rows;
// the first that cannot be read fails it.
func GetParquetAll[T any](ctx context.Context, b blob.Bucket, keys []string) ([]T, error) {
	var all []T
	for _, k := range keys {
		rows, err := GetParquet[T](ctx, b, k)
		if err != nil {
			return nil, err
		}
		all = append(all, rows...)
	}
	return all, nil
}

// PutVectors writes vectors (all of one length) at key in vecindex's file format, labelled
// with model.
func PutVectors(ctx context.Context, b blob.Bucket, key, model string, v [][]float32) error {
	dim := 0
	if len(v) > 0 {
		dim = len(v[0])
	}
	buf, err := vecindex.Encode(dim, model, v)
	if err != nil {
		return err
	}
	_, err = b.Put(ctx, key, buf)
	return err
}

// GetVectors reads a vecindex file at key. A missing object is the bucket's error; one that
// is not a vector file is a *DecodeError.
func GetVectors(ctx context.Context, b blob.Bucket, key string) (*vecindex.Flat, error) {
	r, err := b.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := vecindex.Read(r)
	if err != nil {
		return nil, &DecodeError{Key: key, Err: err}
	}
	return f, nil
}

// Rows returns the rows of f as slices of its data, in order.
func Rows(f *vecindex.Flat) [][]float32 {
	v := make([][]float32, f.Count)
	for i := range v {
		v[i] = f.Row(i)
	}
	return v
}

// GetVectorParts reads the n vector parts at part(0) … part(n-1) into one vector set, in
// order (nil when n is 0). A part of another dim or model than the first is ErrMismatch: no
// retry reads other parts.
func GetVectorParts(ctx context.Context, b blob.Bucket, n int, part func(i int) string) (*vecindex.Flat, error) {
	var vec *vecindex.Flat
	for i := 0; i < n; i++ {
		p, err := GetVectors(ctx, b, part(i))
		if err != nil {
			return nil, fmt.Errorf("vector part %d: %w", i, err)
		}
		if vec == nil {
			vec = vecindex.New(p.Dim, p.Model)
		}
		if err := vec.Append(p); err != nil {
			return nil, mismatchError{fmt.Errorf("vector part %d is %w", i, err)}
		}
	}
	return vec, nil
}

// PutWritten writes at key what write writes (a rendered page or report), once it succeeded.
func PutWritten(ctx context.Context, b blob.Bucket, key string, write func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return fmt.Errorf("render %s: %w", key, err)
	}
	_, err := b.Put(ctx, key, &buf)
	return err
}

// Download copies the object at key to a new temporary file (Parquet needs random access)
// and returns its path; the caller removes it.
func Download(ctx context.Context, b blob.Bucket, key string) (string, error) {
	r, err := b.Get(ctx, key)
	if err != nil {
		return "", err
	}
	defer r.Close()
	f, err := os.CreateTemp("", "asof-*")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("download %s: %w", key, err)
	}
	return f.Name(), f.Close()
}

// ReadLocal downloads the object at key to a temporary file, calls read with the open file
// and its size, and removes the file.
func ReadLocal(ctx context.Context, b blob.Bucket, key string, read func(r io.ReaderAt, size int64) error) error {
	local, err := Download(ctx, b, key)
	if err != nil {
		return err
	}
	defer os.Remove(local)
	f, err := os.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return read(f, st.Size())
}

// DownloadTo copies the object at key to the local file dst and returns its size and hex
// sha256.
func DownloadTo(ctx context.Context, b blob.Bucket, key, dst string) (int64, string, error) {
	r, err := b.Get(ctx, key)
	if err != nil {
		return 0, "", fmt.Errorf("read %s: %w", key, err)
	}
	defer r.Close()
	f, err := os.Create(dst)
	if err != nil {
		return 0, "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, "", fmt.Errorf("download %s: %w", key, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Upload writes the local file at path to key.
func Upload(ctx context.Context, b blob.Bucket, key, path string) (blob.ObjectInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return blob.ObjectInfo{}, err
	}
	defer f.Close()
	info, err := b.Put(ctx, key, f)
	if err != nil {
		return blob.ObjectInfo{}, fmt.Errorf("upload %s: %w", key, err)
	}
	return info, nil
}

// DeletePrefix deletes every object under prefix (a folder: the trailing "/" is the caller's);
// deleting what is already gone is a no-op.
func DeletePrefix(ctx context.Context, b blob.Bucket, prefix string) error {
	objs, err := blob.List(ctx, b, prefix)
	if err != nil {
		return fmt.Errorf("list %s: %w", prefix, err)
	}
	for _, o := range objs {
		if err := b.Delete(ctx, o.Key); err != nil {
			return fmt.Errorf("delete %s: %w", o.Key, err)
		}
	}
	return nil
}

// ParquetHolds reports whether the Parquet object at key has a row with a value equal to one of
// want (a string, or an integer written in decimal) in any column: how a purge finds the uploaded
// input files that hold a document, whatever column its doc_id was mapped from. A file that is
// not Parquet, or is damaged, is an error naming it.
func ParquetHolds(ctx context.Context, b blob.Bucket, key string, want map[string]bool) (found bool, err error) {
	err = ReadLocal(ctx, b, key, func(r io.ReaderAt, size int64) (err error) {
		defer func() {
			if p := recover(); p != nil { // parquet-go panics on some damaged files
				err = fmt.Errorf("read %s: %v", key, p)
			}
		}()
		f, err := parquet.OpenFile(r, size)
		if err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		buf := make([]parquet.Row, 256)
		for _, rg := range f.RowGroups() {
			if found, err = rowsHold(ctx, rg.Rows(), buf, want); err != nil {
				return fmt.Errorf("read %s: %w", key, err)
			} else if found {
				return nil
			}
		}
		return nil
	})
	return found, err
}

// rowsHold reads rows (closing them) until a value equals one of want (ParquetHolds).
func rowsHold(ctx context.Context, rows parquet.Rows, buf []parquet.Row, want map[string]bool) (bool, error) {
	defer rows.Close()
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		n, err := rows.ReadRows(buf)
		for _, row := range buf[:n] {
			for _, v := range row {
				switch v.Kind() {
				case parquet.ByteArray, parquet.FixedLenByteArray:
					if want[string(v.ByteArray())] {
						return true, nil
					}
				case parquet.Int32, parquet.Int64:
					if want[strconv.FormatInt(v.Int64(), 10)] {
						return true, nil
					}
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}
