package activities

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// MaxTakedownIDs bounds the documents one takedown names (the manifest lists them all).
const MaxTakedownIDs = 1000

// TakeDownInput removes documents from an index: every version of each doc_id, from every
// answer as of any day, recorded in the manifest with At and Reason.
type TakeDownInput struct {
	Index  string    `json:"index"`
	DocIDs []string  `json:"doc_ids"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// TakeDownResult is the manifest that records a takedown and what it took down
// (schemas.TakeDownResult).
type TakeDownResult = schemas.TakeDownResult

// TakeDown publishes the live manifest again with the documents recorded as taken down
// (layout.Publish: compare-and-swap, rebased on a build that publishes in between): readers
// of that manifest on never serve their rows (retrieve.Shard.Removed), and its counts move
// their rows from indexed to deleted. Every doc_id must be in the index (one that is not is
// bad input, and nothing is published); one taken down before is left as it was.
func (a *Activities) TakeDown(ctx context.Context, in TakeDownInput) (TakeDownResult, error) {
	if err := layout.ValidateIndexName(in.Index); err != nil {
		return TakeDownResult{}, invalid(err)
	}
	ids, err := takedownIDs(in.DocIDs)
	if err != nil {
		return TakeDownResult{}, invalid(err)
	}
	reason := strings.TrimSpace(in.Reason)
	if reason == "" {
		return TakeDownResult{}, invalid(fmt.Errorf("a takedown needs a reason (it is recorded in the manifest)"))
	}
	var res TakeDownResult
	scanned := map[string]storeio.DocRows{} // by shard list: a publisher that loses the race scans only what changed
	pub, err := layout.Publish(ctx, a.Bucket, in.Index, func(live *schemas.Manifest, seq int, liveErr error) (*schemas.Manifest, error) {
		if live == nil {
			if liveErr != nil {
				return nil, fmt.Errorf("take down in %s: read the live manifest: %w", in.Index, liveErr)
			}
			return nil, invalid(fmt.Errorf("%w: %s", layout.ErrIndexNotFound, in.Index))
		}
		res = TakeDownResult{}
		before := map[string]bool{}
		for _, t := range live.Takedowns {
			before[t.DocID] = true
		}
		var want []string
		for _, id := range ids {
			if before[id] {
				res.Already = append(res.Already, id)
			} else {
				want = append(want, id)
			}
		}
		if len(want) == 0 {
			return nil, nil
		}
		key := indexplan.ShardList(live.Shards)
		rows, ok := scanned[key]
		if !ok {
			wanted := map[string]bool{}
			for _, id := range want {
				wanted[id] = true
			}
			if rows, err = storeio.CountDocRows(ctx, a.Bucket, in.Index, live.Shards, wanted, func(sm schemas.ShardMeta) { heartbeat(ctx, sm.ID) }); err != nil {
				return nil, err
			}
			scanned = map[string]storeio.DocRows{key: rows}
		}
		var missing []string
		for _, id := range want {
			if rows.Versions[id] == 0 {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return nil, invalid(fmt.Errorf("index %s holds no document %s (nothing was taken down; check the doc_id, or asof indexes show %s)",
				in.Index, strings.Join(quoteAll(missing), ", "), in.Index))
		}
		m := *live
		m.Takedowns = append([]schemas.Takedown(nil), live.Takedowns...)
		m.Counts = storeio.WithoutRows(live.Counts, rows, want)
		for _, id := range want {
			t := schemas.Takedown{DocID: id, At: in.At.UTC(), Reason: reason, Rows: int64(rows.Versions[id])}
			m.Takedowns = append(m.Takedowns, t)
			res.Taken = append(res.Taken, t)
		}
		sort.Slice(m.Takedowns, func(i, j int) bool { return m.Takedowns[i].DocID < m.Takedowns[j].DocID })
		m.Seq, m.CreatedAt, m.RestoredFrom = seq+1, in.At.UTC(), 0
		m.Version = schemas.ManifestVersionOf(m)
		res.Counts = m.Counts
		return &m, nil
	}, func(existing schemas.Manifest, m *schemas.Manifest) bool {
		return indexplan.ShardList(existing.Shards) == indexplan.ShardList(m.Shards) && slices.EqualFunc(existing.Takedowns, m.Takedowns,
			func(a, b schemas.Takedown) bool {
				return a.DocID == b.DocID && a.Reason == b.Reason && a.At.Equal(b.At)
			})
	})
	if err != nil {
		return TakeDownResult{}, err
	}
	res.ManifestKey, res.Seq, res.Unchanged = pub.Key, pub.Seq, pub.Unchanged
	return res, nil
}

// takedownIDs checks and sorts the doc_ids of a takedown, without repeats.
func takedownIDs(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("name at least one doc_id to take down")
	}
	if len(in) > MaxTakedownIDs {
		return nil, fmt.Errorf("%d doc_ids: at most %d in one takedown", len(in), MaxTakedownIDs)
	}
	seen := map[string]bool{}
	var out []string
	for _, id := range in {
		id = strings.TrimSpace(id)
		if id == "" {
			return nil, fmt.Errorf("an empty doc_id")
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out, nil
}

func quoteAll(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("%q", id)
	}
	return out
}
