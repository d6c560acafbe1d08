package storeio

import (
	"context"
	"errors"
	"fmt"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// ReadDigests reads every day's digest of a name (digests/<name>/<day>/digest.json), in key
// order. A day whose digest.json does not parse stands as digest.Unreadable (one failed topic
// that says so) rather than failing every later digest of the name; files deeper than a day
// are not digests and are skipped.
func ReadDigests(ctx context.Context, b blob.Bucket, name string) ([]schemas.Digest, error) {
	prefix := layout.DigestsPrefix(name) + "/"
	var keys []string
	err := b.Iter(ctx, prefix, func(o blob.ObjectInfo) error {
		if digest.IsDayFile(prefix, o.Key, layout.DigestJSONFile) {
			keys = append(keys, o.Key)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	var ds []schemas.Digest
	for _, key := range keys {
		d, err := GetJSON[schemas.Digest](ctx, b, key)
		var de *DecodeError
		if errors.As(err, &de) {
			d, err = digest.Unreadable(name, key, de.Err), nil
		}
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}
