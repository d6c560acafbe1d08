package indexplan_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/schemas"
)

// storedPlan has n shards; every third (0, 3, 6, …) is already built with 10 chunks.
func storedPlan(n int) indexplan.StoredPlan {
	p := indexplan.StoredPlan{Version: indexplan.StoredPlanVersion, Existing: []schemas.ShardMeta{{ID: "old", Period: "2000-01-01", Chunks: 7}}}
	for i := range n {
		s := indexplan.PlannedShard{Period: fmt.Sprintf("p%04d", i), ShardID: fmt.Sprintf("s%04d", i), Docs: 2}
		if i%3 == 0 {
			s.Meta = &schemas.ShardMeta{ID: s.ShardID, Period: s.Period, Chunks: 10}
		}
		p.Shards = append(p.Shards, s)
	}
	return p
}

func ids(shards []indexplan.PlannedShard) []string {
	out := []string{}
	for _, s := range shards {
		out = append(out, s.ShardID)
	}
	return out
}

func TestStoredPlanSummary(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want indexplan.Summary
	}{
		{name: "empty", n: 0, want: indexplan.Summary{}},
		{name: "one built", n: 1, want: indexplan.Summary{Shards: 1, Done: 1, Chunks: 10}},
		{name: "seven", n: 7, want: indexplan.Summary{Shards: 7, Done: 3, Chunks: 30, ToBuild: 4, DocsToBuild: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := storedPlan(tt.n).Summary(); got != tt.want {
				t.Fatalf("summary %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestStoredPlanPage: pages skip built shards, stop at the limit and at PageMax, and refuse
// offsets that would never finish.
func TestStoredPlanPage(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		offset   int
		limit    int
		want     []string
		wantNext int
		wantErr  bool
	}{
		{name: "first page", n: 7, offset: 0, limit: 2, want: []string{"s0001", "s0002"}, wantNext: 2},
		{name: "second page", n: 7, offset: 2, limit: 2, want: []string{"s0004", "s0005"}, wantNext: 4},
		{name: "short last page", n: 7, offset: 3, limit: 5, want: []string{"s0005"}, wantNext: 4},
		{name: "at the end", n: 7, offset: 4, limit: 5, want: []string{}, wantNext: 4},
		{name: "past the end", n: 7, offset: 5, limit: 5, wantErr: true},
		{name: "negative offset", n: 7, offset: -1, limit: 5, wantErr: true},
		{name: "zero limit", n: 7, offset: 0, limit: 0, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, next, err := storedPlan(tt.n).Page(tt.offset, tt.limit)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if !reflect.DeepEqual(ids(got), tt.want) || next != tt.wantNext {
				t.Fatalf("page %v next %d, want %v next %d", ids(got), next, tt.want, tt.wantNext)
			}
		})
	}
	t.Run("capped at PageMax", func(t *testing.T) {
		p := storedPlan(3 * indexplan.PageMax)
		got, next, err := p.Page(0, 10*indexplan.PageMax)
		if err != nil || len(got) != indexplan.PageMax || next != indexplan.PageMax {
			t.Fatalf("%d shards, next %d, err %v: want %d", len(got), next, err, indexplan.PageMax)
		}
	})
}

// TestStoredPlanMetas: a publish lists the kept shards, then each period's planned or built
// meta, counting only the build's chunks; a shard that was not built names itself.
func TestStoredPlanMetas(t *testing.T) {
	p := storedPlan(4) // s0000 and s0003 built before the plan
	metas, chunks, err := p.Metas(func(s indexplan.PlannedShard) (schemas.ShardMeta, error) {
		return schemas.ShardMeta{ID: s.ShardID, Period: s.Period, Chunks: 1}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(metas); got != 5 || metas[0].ID != "old" || metas[2].ID != "s0001" || chunks != 22 {
		t.Fatalf("metas %+v chunks %d", metas, chunks)
	}
	missing := errors.New("not found")
	_, _, err = p.Metas(func(s indexplan.PlannedShard) (schemas.ShardMeta, error) { return schemas.ShardMeta{}, missing })
	if !errors.Is(err, missing) || err.Error() != "shard p0001 (s0001): not found" {
		t.Fatalf("err %v", err)
	}
	_, _, err = p.Metas(func(s indexplan.PlannedShard) (schemas.ShardMeta, error) { return schemas.ShardMeta{ID: "other"}, nil })
	if err == nil {
		t.Fatal("a meta naming another shard was accepted")
	}
}
