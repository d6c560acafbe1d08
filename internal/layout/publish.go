package layout

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/schemas"
)

// PublishAttempts bounds how many times Publish reads CURRENT again after another publisher
// moved it first.
const PublishAttempts = 5

// Published is what Publish left live: the manifest's key (from the store's root) and number,
// and Unchanged when next published nothing.
type Published struct {
	Key       string
	Seq       int
	Unchanged bool
}

// Publish moves index to the manifest next computes from the live one, so that readers see
// the old index or the new one, never half of one. It reads CURRENT and the manifest it names
// and calls next with them: nil and 0 when the index has none yet; nil, CURRENT's number and
// the read error when that manifest does not read. A nil manifest from next publishes
// nothing. Otherwise the manifest is written at the first free number after CURRENT's
// (PutManifest: a number taken by a manifest that ours accepts is reused) and CURRENT is moved
// to it with a conditional write; when another publisher moved CURRENT in between, Publish
// starts again from the newer one, at most PublishAttempts times. Errors from next are
// returned as they are.
func Publish(ctx context.Context, b blob.Bucket, index string, next func(live *schemas.Manifest, seq int, liveErr error) (*schemas.Manifest, error),
	ours func(existing schemas.Manifest, m *schemas.Manifest) bool) (Published, error) {
	for attempt := 0; attempt < PublishAttempts; attempt++ {
		var live *schemas.Manifest
		var liveErr error
		cur, etag, err := ReadCurrentForSwap(ctx, b, index)
		switch {
		case err == nil:
			m, err := ReadManifest(ctx, b, ManifestOf(index, cur))
			live, liveErr = &m, err
			if err != nil {
				live = nil
			}
		case errors.Is(err, blob.ErrNotFound):
		default:
			return Published{}, err
		}
		m, err := next(live, cur.Seq, liveErr)
		if err != nil {
			return Published{}, err
		}
		if m == nil {
			return Published{Key: ManifestOf(index, cur), Seq: cur.Seq, Unchanged: true}, nil
		}
		rel, err := PutManifest(ctx, b, index, m, cur.Seq+1, func(existing schemas.Manifest) bool { return ours(existing, m) })
		if err != nil {
			return Published{}, err
		}
		err = MoveCurrent(ctx, b, index, etag, Current{Manifest: rel, Seq: m.Seq})
		if errors.Is(err, blob.ErrPreconditionFailed) || errors.Is(err, blob.ErrNotFound) {
			continue // someone published in between
		}
		if err != nil {
			return Published{}, err
		}
		return Published{Key: path.Join(IndexPrefix(index), rel), Seq: m.Seq}, nil
	}
	return Published{}, fmt.Errorf("publish %s: CURRENT kept changing under %d attempts", index, PublishAttempts)
}
