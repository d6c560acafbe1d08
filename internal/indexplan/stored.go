package indexplan

import (
	"fmt"

	"github.com/asofrag/asof/schemas"
)

// StoredPlanVersion is the version of the plan object an index build stores (layout.BuildPlanKey).
const StoredPlanVersion = 1

// PageMax is the most shards one page of a stored plan holds, whatever the caller asks for:
// about 180 bytes of JSON each, so a page stays under 40 KB in a workflow's history.
const PageMax = 200

// StoredPlan is an index build's plan as it is stored (layout.BuildPlanKey), so that the
// workflow's inputs and results carry its key and counts, never one entry per shard.
type StoredPlan struct {
	Version int `json:"version"`
	// Shards are every period's shard, in period order; Meta is set on those already built
	// when the plan was made.
	Shards []PlannedShard `json:"shards"`
	// Existing are the live index's shards an append keeps.
	Existing []schemas.ShardMeta `json:"existing,omitempty"`
}

// PlannedShard is one period's shard of a stored plan.
type PlannedShard struct {
	Period  string             `json:"period"`
	ShardID string             `json:"shard_id"`
	Docs    int                `json:"docs"`
	Meta    *schemas.ShardMeta `json:"meta,omitempty"`
}

// Done reports whether the shard was built when the plan was made.
func (s PlannedShard) Done() bool { return s.Meta != nil }

// Summary is what a workflow needs to know of a stored plan: counts only.
type Summary struct {
	// Shards counts every period's shard; Done those already built (Chunks their chunks);
	// ToBuild the others, holding DocsToBuild documents.
	Shards      int `json:"shards"`
	Done        int `json:"done"`
	Chunks      int `json:"chunks"`
	ToBuild     int `json:"to_build"`
	DocsToBuild int `json:"docs_to_build"`
}

// Summary counts the plan's shards.
func (p StoredPlan) Summary() Summary {
	s := Summary{Shards: len(p.Shards)}
	for _, sh := range p.Shards {
		if sh.Done() {
			s.Done++
			s.Chunks += sh.Meta.Chunks
			continue
		}
		s.ToBuild++
		s.DocsToBuild += sh.Docs
	}
	return s
}

// Page returns the shards to build (those not built when the plan was made) from the offset-th
// on, at most min(limit, PageMax), and the offset of the next page (Summary().ToBuild once the
// last page is returned). An offset past the end or a limit below 1 is an error: a caller
// that asks for them would never finish.
func (p StoredPlan) Page(offset, limit int) ([]PlannedShard, int, error) {
	if limit < 1 {
		return nil, offset, fmt.Errorf("plan page of %d shards: ask for at least 1", limit)
	}
	limit = min(limit, PageMax)
	var out []PlannedShard
	k := 0 // index among the shards to build
	for _, sh := range p.Shards {
		if sh.Done() {
			continue
		}
		if k >= offset && len(out) < limit {
			out = append(out, sh)
		}
		k++
	}
	if offset < 0 || offset > k {
		return nil, offset, fmt.Errorf("plan page from shard %d: the plan has %d shards to build", offset, k)
	}
	return out, offset + len(out), nil
}

// Metas returns the shards of the finished build a publish lists, Existing first, then each
// period's shard: its planned meta when it was built before the plan, else built(shard), the
// meta its build wrote. chunks counts the chunks of the build's own shards (not Existing).
func (p StoredPlan) Metas(built func(PlannedShard) (schemas.ShardMeta, error)) (metas []schemas.ShardMeta, chunks int64, err error) {
	metas = make([]schemas.ShardMeta, 0, len(p.Existing)+len(p.Shards))
	metas = append(metas, p.Existing...)
	for _, sh := range p.Shards {
		m := sh.Meta
		if m == nil {
			got, err := built(sh)
			if err != nil {
				return nil, 0, fmt.Errorf("shard %s (%s): %w", sh.Period, sh.ShardID, err)
			}
			if got.ID != sh.ShardID {
				return nil, 0, fmt.Errorf("shard %s (%s): its meta names shard %q", sh.Period, sh.ShardID, got.ID)
			}
			m = &got
		}
		metas = append(metas, *m)
		chunks += int64(m.Chunks)
	}
	return metas, chunks, nil
}
