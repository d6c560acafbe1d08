package indexplan_test

import (
	"reflect"
	"testing"

	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/schemas"
)

// TestNewStoredPlanAndToBuild: a stored plan keeps every period (built ones with their meta)
// and the kept shards, and its page comes back as periods to build with their staging keys.
func TestNewStoredPlanAndToBuild(t *testing.T) {
	built := &schemas.ShardMeta{ID: "s1", Period: "2024-01", Chunks: 4}
	kept := []schemas.ShardMeta{{ID: "old", Period: "2023-12"}}
	tests := []struct {
		name      string
		periods   []indexplan.PeriodPlan
		wantDone  int
		wantBuild []indexplan.PeriodPlan
	}{
		{name: "none", wantBuild: []indexplan.PeriodPlan{}},
		{name: "one built, one to build",
			periods: []indexplan.PeriodPlan{
				{Period: "2024-01", ShardID: "s1", Docs: 3, DocsKey: "x", Done: true, Meta: built},
				{Period: "2024-02", ShardID: "s2", Docs: 5, DocsKey: "y"}},
			wantDone:  1,
			wantBuild: []indexplan.PeriodPlan{{Period: "2024-02", ShardID: "s2", Docs: 5, DocsKey: "indexes/news/staging/s2/docs.parquet"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := indexplan.NewStoredPlan(tt.periods, kept)
			if p.Version != indexplan.StoredPlanVersion || len(p.Shards) != len(tt.periods) || !reflect.DeepEqual(p.Existing, kept) {
				t.Fatalf("plan %+v", p)
			}
			if s := p.Summary(); s.Done != tt.wantDone {
				t.Fatalf("summary %+v, want %d done", s, tt.wantDone)
			}
			page, _, err := p.Page(0, indexplan.PageMax)
			if err != nil {
				t.Fatal(err)
			}
			if got := indexplan.ToBuild("news", page); !reflect.DeepEqual(got, tt.wantBuild) {
				t.Fatalf("to build %+v, want %+v", got, tt.wantBuild)
			}
		})
	}
}
