package storeio

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/schemas"
)

// ReadProbe reads the health probe at key: the probe, and its object's ETag with Size the bytes
// read. A missing object is the bucket's error; a probe that is not the JSON that was written,
// or of another version than schemas.HealthProbeVersion, is ErrMismatch.
func ReadProbe(ctx context.Context, b blob.Bucket, key string) (schemas.HealthProbe, blob.ObjectInfo, error) {
	var p schemas.HealthProbe
	st, err := b.Stat(ctx, key)
	if err != nil {
		return p, st, err
	}
	data, err := blob.ReadAll(ctx, b, key)
	if err != nil {
		return p, st, err
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, st, mismatchError{fmt.Errorf("probe %s is not the JSON that was written: %w", key, err)}
	}
	if p.Version != schemas.HealthProbeVersion {
		return p, st, mismatchError{fmt.Errorf("probe %s has version %d, want %d", key, p.Version, schemas.HealthProbeVersion)}
	}
	st.Size = int64(len(data))
	return p, st, nil
}
