package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/activity"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// WriteProbeInput names the probe object and its content.
type WriteProbeInput struct {
	Key   string              `json:"key"`
	Probe schemas.HealthProbe `json:"probe"`
}

// WriteProbeResult reports what the store acknowledged.
type WriteProbeResult struct {
	Key   string `json:"key"`
	Bytes int64  `json:"bytes"`
	ETag  string `json:"etag"`
	Store string `json:"store"`
}

// WriteProbe writes the probe as JSON. Writing the same input twice is harmless.
func (a *Activities) WriteProbe(ctx context.Context, in WriteProbeInput) (WriteProbeResult, error) {
	if err := blob.ValidateKey(in.Key); err != nil {
		return WriteProbeResult{}, invalid(err)
	}
	data, err := json.Marshal(in.Probe)
	if err != nil {
		return WriteProbeResult{}, invalid(fmt.Errorf("encode probe: %w", err))
	}
	info, err := a.Bucket.Put(ctx, in.Key, bytes.NewReader(data))
	if err != nil {
		return WriteProbeResult{}, fmt.Errorf("write probe: %w", err)
	}
	return WriteProbeResult{Key: in.Key, Bytes: info.Size, ETag: info.ETag, Store: a.Bucket.String()}, nil
}

// ReadProbeInput names the probe to read.
type ReadProbeInput struct {
	Key string `json:"key"`
}

// ReadProbeResult is the probe as stored.
type ReadProbeResult struct {
	Probe schemas.HealthProbe `json:"probe"`
	Bytes int64               `json:"bytes"`
	ETag  string              `json:"etag"`
}

// ReadProbe reads the probe back and decodes it (storeio.ReadProbe).
func (a *Activities) ReadProbe(ctx context.Context, in ReadProbeInput) (ReadProbeResult, error) {
	p, info, err := storeio.ReadProbe(ctx, a.Bucket, in.Key)
	if errors.Is(err, storeio.ErrMismatch) {
		return ReadProbeResult{}, mismatch(err)
	}
	if err != nil {
		return ReadProbeResult{}, fmt.Errorf("read probe: %w", err)
	}
	return ReadProbeResult{Probe: p, Bytes: info.Size, ETag: info.ETag}, nil
}

// DeleteProbeInput names the probe to delete.
type DeleteProbeInput struct {
	Key string `json:"key"`
}

// DeleteProbeResult confirms the probe is gone.
type DeleteProbeResult struct {
	Gone bool `json:"gone"`
}

// DeleteProbe deletes the probe and checks that it is gone.
func (a *Activities) DeleteProbe(ctx context.Context, in DeleteProbeInput) (DeleteProbeResult, error) {
	if err := a.Bucket.Delete(ctx, in.Key); err != nil {
		return DeleteProbeResult{}, fmt.Errorf("delete probe: %w", err)
	}
	_, err := a.Bucket.Stat(ctx, in.Key)
	if !errors.Is(err, blob.ErrNotFound) {
		return DeleteProbeResult{}, fmt.Errorf("probe %s still readable after delete (err %v)", in.Key, err)
	}
	return DeleteProbeResult{Gone: true}, nil
}

// PingInput is empty: the task queue the activity runs on is what is checked.
type PingInput struct{}

// PingResult names the worker that answered on which queue.
type PingResult struct {
	TaskQueue string `json:"task_queue"`
	Identity  string `json:"identity"`
}

// Ping answers from whichever worker polls the queue it was scheduled on.
func (a *Activities) Ping(ctx context.Context, _ PingInput) (PingResult, error) {
	return PingResult{TaskQueue: activity.GetInfo(ctx).TaskQueue, Identity: a.Identity}, nil
}
