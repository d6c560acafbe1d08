package layout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/schemas"
)

// Current is the content of an index's CURRENT object.
type Current struct {
	// Manifest is the live manifest's key relative to the index (ManifestName).
	Manifest string `json:"manifest"`
	Seq      int    `json:"seq"`
}

// ErrDamaged matches (errors.Is) a CURRENT or manifest object that was read but does not
// decode. The error's text is the decoding error's, unchanged.
var ErrDamaged = errors.New("layout: object is damaged")

// damaged marks err as ErrDamaged without changing its text.
type damaged struct{ err error }

func (e damaged) Error() string        { return e.err.Error() }
func (e damaged) Unwrap() error        { return e.err }
func (e damaged) Is(target error) bool { return target == ErrDamaged }

// MaxManifestProbes bounds how many taken manifest numbers one PutManifest skips.
const MaxManifestProbes = 100

// ReadCurrent reads index's CURRENT. An index with none yet returns an error matching
// blob.ErrNotFound; one that does not decode, an error matching ErrDamaged.
func ReadCurrent(ctx context.Context, b blob.Bucket, index string) (Current, error) {
	cur, _, err := readCurrent(ctx, b, index, false)
	return cur, err
}

// ReadCurrentForSwap is ReadCurrent that also returns CURRENT's ETag, for MoveCurrent.
func ReadCurrentForSwap(ctx context.Context, b blob.Bucket, index string) (Current, string, error) {
	return readCurrent(ctx, b, index, true)
}

func readCurrent(ctx context.Context, b blob.Bucket, index string, stat bool) (Current, string, error) {
	key := CurrentKey(index)
	etag := ""
	if stat {
		st, err := b.Stat(ctx, key)
		if err != nil {
			return Current{}, "", err
		}
		etag = st.ETag
	}
	data, err := blob.ReadAll(ctx, b, key)
	if err != nil {
		return Current{}, "", err
	}
	var cur Current
	if err := json.Unmarshal(data, &cur); err != nil {
		return Current{}, "", damaged{fmt.Errorf("%s is damaged: %w", key, err)}
	}
	return cur, etag, nil
}

// ReadManifest reads and decodes the manifest at key. A manifest that does not decode (or has
// another version) returns an error matching ErrDamaged.
func ReadManifest(ctx context.Context, b blob.Bucket, key string) (schemas.Manifest, error) {
	data, err := blob.ReadAll(ctx, b, key)
	if err != nil {
		return schemas.Manifest{}, err
	}
	m, err := schemas.DecodeManifest(data)
	if err != nil {
		return schemas.Manifest{}, damaged{err}
	}
	return m, nil
}

// ManifestOf is the key of the manifest cur names in index.
func ManifestOf(index string, cur Current) string { return path.Join(IndexPrefix(index), cur.Manifest) }

// PutManifest writes m as manifests/<n>.json of index at the first free number n ≥ from
// (setting m.Seq), with a conditional write, and returns its key relative to the index (what
// CURRENT records). A taken number whose manifest ours(existing) accepts (an earlier attempt of
// the same publish) is used as it is; any other is skipped, up to MaxManifestProbes numbers.
func PutManifest(ctx context.Context, b blob.Bucket, index string, m *schemas.Manifest, from int, ours func(existing schemas.Manifest) bool) (string, error) {
	for seq := from; seq < from+MaxManifestProbes; seq++ {
		m.Seq = seq
		rel := ManifestName(seq)
		data, _ := json.MarshalIndent(m, "", "  ")
		_, err := b.PutIfAbsent(ctx, path.Join(IndexPrefix(index), rel), bytes.NewReader(data))
		if err == nil {
			return rel, nil
		}
		if !errors.Is(err, blob.ErrPreconditionFailed) {
			return "", err
		}
		// Taken: by an earlier attempt of this publish, or by another publisher (which may
		// have stopped before moving CURRENT). Reuse ours; skip theirs.
		if existing, err := ReadManifest(ctx, b, path.Join(IndexPrefix(index), rel)); err == nil && existing.Seq == seq && ours(existing) {
			m.Seq = seq
			return rel, nil
		}
	}
	return "", fmt.Errorf("publish %s: manifests %06d to %06d are all taken", m.Index, from, from+MaxManifestProbes-1)
}

// MoveCurrent points index's CURRENT at cur with a conditional write: created when etag is ""
// (no CURRENT was read), else swapped only if CURRENT still has that ETag. When another
// publisher moved it first the error matches blob.ErrPreconditionFailed (or blob.ErrNotFound
// when it was deleted), and the caller starts again from the CURRENT now live.
func MoveCurrent(ctx context.Context, b blob.Bucket, index, etag string, cur Current) error {
	ptr, _ := json.Marshal(cur)
	var err error
	if etag == "" {
		_, err = b.PutIfAbsent(ctx, CurrentKey(index), bytes.NewReader(ptr))
	} else {
		_, err = b.CompareAndSwap(ctx, CurrentKey(index), etag, bytes.NewReader(ptr))
	}
	return err
}

// ManifestSeqs lists the numbers of index's manifests in the store (manifests/NNNNNN.json),
// in order: what `asof indexes history` shows and a rollback can name.
func ManifestSeqs(ctx context.Context, b blob.Bucket, index string) ([]int, error) {
	objs, err := blob.List(ctx, b, path.Join(IndexPrefix(index), "manifests")+"/")
	if err != nil {
		return nil, err
	}
	var seqs []int
	for _, o := range objs {
		var n int
		if _, err := fmt.Sscanf(path.Base(o.Key), "%06d.json", &n); err == nil && ManifestName(n) == path.Join("manifests", path.Base(o.Key)) {
			seqs = append(seqs, n)
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}
