package storeio

import (
	"context"
	"fmt"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/schemas"
)

// PutPlan stores an index build's plan and its per-file table under the build's run id
// (layout.BuildPlanKey, layout.BuildFilesKey) and returns their keys.
func PutPlan(ctx context.Context, b blob.Bucket, runID string, plan indexplan.StoredPlan, files []indexplan.FileCounts) (planKey, filesKey string, err error) {
	planKey, filesKey = layout.BuildPlanKey(runID), layout.BuildFilesKey(runID)
	if err := PutJSON(ctx, b, planKey, plan); err != nil {
		return "", "", err
	}
	if err := PutJSON(ctx, b, filesKey, files); err != nil {
		return "", "", err
	}
	return planKey, filesKey, nil
}

// GetPlan reads a stored plan (layout.BuildPlanKey). One that does not decode, or is of
// another version than indexplan.StoredPlanVersion, is ErrDecode.
func GetPlan(ctx context.Context, b blob.Bucket, key string) (indexplan.StoredPlan, error) {
	plan, err := GetJSON[indexplan.StoredPlan](ctx, b, key)
	if err == nil && plan.Version != indexplan.StoredPlanVersion {
		err = &DecodeError{Key: key, Err: fmt.Errorf("build plan version %d; this worker reads version %d", plan.Version, indexplan.StoredPlanVersion)}
	}
	return plan, err
}

// PlannedShards lists the shards the finished build of plan publishes (indexplan.StoredPlan.Metas),
// reading each shard it built from its meta.json (which WriteShard writes last), and calls
// progress every 256 shards read. A shard without one is blob.ErrNotFound.
func PlannedShards(ctx context.Context, b blob.Bucket, index string, plan indexplan.StoredPlan, progress func(n int)) ([]schemas.ShardMeta, int64, error) {
	n := 0
	return plan.Metas(func(s indexplan.PlannedShard) (schemas.ShardMeta, error) {
		if n++; n%256 == 0 {
			progress(n)
		}
		return GetJSON[schemas.ShardMeta](ctx, b, layout.ShardKey(index, s.Period, s.ShardID, shard.MetaFile))
	})
}

// DeleteStaging removes the staging objects of a written shard of index (layout.StagingPrefix);
// deleting them again is a no-op.
func DeleteStaging(ctx context.Context, b blob.Bucket, index, shardID string) error {
	if err := DeletePrefix(ctx, b, layout.StagingPrefix(index, shardID)+"/"); err != nil {
		return fmt.Errorf("shard %s is written; delete its staging: %w", shardID, err)
	}
	return nil
}
