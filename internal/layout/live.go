package layout

import (
	"context"
	"errors"
	"fmt"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/schemas"
)

// ErrIndexNotFound matches (errors.Is) ReadLive's error for an index that has no CURRENT yet.
var ErrIndexNotFound = errors.New("index not found")

// indexNotFoundError is that error: its text is what a person reads, and it matches
// ErrIndexNotFound without wrapping it, so a workflow's failure chain still ends on that text
// (the CLI prints the innermost message) and not on the sentinel's.
type indexNotFoundError struct{ index string }

func (e indexNotFoundError) Error() string {
	return fmt.Sprintf("index %q does not exist (build it with `asof index --index %s --corpus …`)", e.index, e.index)
}

func (e indexNotFoundError) Is(target error) bool { return target == ErrIndexNotFound }

// ReadLive reads the live manifest of index, the one its CURRENT names. An index with no
// CURRENT yet is an error matching ErrIndexNotFound that says how to build it; a CURRENT or
// manifest that does not decode matches ErrDamaged.
func ReadLive(ctx context.Context, b blob.Bucket, index string) (schemas.Manifest, error) {
	cur, err := ReadCurrent(ctx, b, index)
	if errors.Is(err, blob.ErrNotFound) {
		return schemas.Manifest{}, indexNotFoundError{index}
	}
	if err != nil {
		return schemas.Manifest{}, err
	}
	return ReadManifest(ctx, b, ManifestOf(index, cur))
}
