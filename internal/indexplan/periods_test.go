package indexplan_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/corpus"
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

// TestReconcile: every file read gets its row of counts, in reading order, and the build's
// counts add them up, with the valid documents counted per language.
func TestReconcile(t *testing.T) {
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	type row struct {
		DocID       string    `parquet:"doc_id"`
		PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
		Text        string    `parquet:"text"`
		Source      string    `parquet:"source"`
	}
	tests := []struct {
		name      string
		files     map[string][]row // read in name order
		wantFiles []string
		wantRead  int64
		wantDocs  int64
	}{
		{name: "nothing read"},
		{name: "two files, one bad row",
			files: map[string][]row{
				"a.parquet": {{"a1", day, "The first document.", "ex.com"}, {"", day, "No id.", "ex.com"}},
				"b.parquet": {{"b1", day, "The second document.", "ex.com"}}},
			wantFiles: []string{"a.parquet", "b.parquet"}, wantRead: 3, wantDocs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := corpus.NewLoader(corpus.Options{})
			var docs []schemas.Document
			for _, name := range []string{"a.parquet", "b.parquet"} {
				rows, ok := tt.files[name]
				if !ok {
					continue
				}
				var buf bytes.Buffer
				if err := parquet.Write(&buf, rows); err != nil {
					t.Fatal(err)
				}
				r := bytes.NewReader(buf.Bytes())
				if err := l.ReadFile(context.Background(), r, r.Size(), name,
					func(d schemas.Document) error { docs = append(docs, d); return nil },
					func(schemas.QuarantineRow) error { return nil }); err != nil {
					t.Fatal(err)
				}
			}
			files, c := indexplan.Reconcile(l, docs)
			var names []string
			for _, f := range files {
				names = append(names, f.Name)
			}
			if !reflect.DeepEqual(names, tt.wantFiles) || c.Read != tt.wantRead || c.Indexed != tt.wantDocs || c.Indexed != int64(len(docs)) {
				t.Fatalf("files %v, counts %+v", names, c)
			}
			var langs int64
			for _, n := range c.Languages {
				langs += n
			}
			if langs != tt.wantDocs {
				t.Fatalf("languages %v, want %d documents", c.Languages, tt.wantDocs)
			}
		})
	}
}

func TestShardIDs(t *testing.T) {
	tests := []struct {
		name   string
		shards []schemas.ShardMeta
		want   map[string]bool
	}{
		{name: "none", want: map[string]bool{}},
		{name: "two", shards: []schemas.ShardMeta{{ID: "a", Period: "2024-01"}, {ID: "b", Period: "2024-01"}}, want: map[string]bool{"a": true, "b": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := indexplan.ShardIDs(tt.shards); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ShardIDs = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLoaderOptions: the build's start is the future-date check unless future rows are
// allowed; the mapping, days and existing ids pass through.
func TestLoaderOptions(t *testing.T) {
	started := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	from, to := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	existing := map[string]corpus.Known{"a": {Where: "index news, shard 2025-01 (s1)", Version: 1, Hash: "h"}}
	tests := []struct {
		name        string
		allowFuture bool
		started     time.Time
		wantNow     time.Time
	}{
		{name: "checked", started: started, wantNow: started},
		{name: "future allowed", started: started, allowFuture: true},
		{name: "no start", wantNow: time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := indexplan.LoaderOptions(map[string]string{"text": "message"}, from, to, existing, tc.started, tc.allowFuture)
			if !o.Now.Equal(tc.wantNow) || !o.From.Equal(from) || !o.To.Equal(to) || !reflect.DeepEqual(o.Known, existing) ||
				!reflect.DeepEqual(o.Mapping, corpus.Mapping{"text": "message"}) {
				t.Fatalf("LoaderOptions = %+v", o)
			}
		})
	}
}

// TestCheckRows: an input of no rows at all is ErrNoDocuments, naming the files; one row
// (even one quarantined later) is an input.
func TestCheckRows(t *testing.T) {
	if err := indexplan.CheckRows([]string{"a.parquet"}, 1); err != nil {
		t.Errorf("one row: %v", err)
	}
	for _, tt := range []struct {
		files []string
		want  string
	}{
		{[]string{"a.parquet"}, "no documents to index: a.parquet holds no rows (an empty input is not an index)"},
		{[]string{"a.parquet", "b.parquet"}, "no documents to index: a.parquet, b.parquet hold no rows (an empty input is not an index)"},
		{[]string{"1", "2", "3", "4", "5", "6"}, "no documents to index: the 6 input files (1, 2, 3, …) hold no rows (an empty input is not an index)"},
		{nil, "no documents to index: the input files hold no rows (an empty input is not an index)"},
	} {
		if err := indexplan.CheckRows(tt.files, 0); !errors.Is(err, indexplan.ErrNoDocuments) || err.Error() != tt.want {
			t.Errorf("CheckRows(%v, 0) = %v, want %q", tt.files, err, tt.want)
		}
	}
}

func TestCheckIndexable(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files []string
		c     schemas.IndexCounts
		key   string
		want  string // "" for no error
	}{
		{"one indexed", []string{"a.parquet"}, schemas.IndexCounts{Read: 3, Indexed: 1, Quarantined: map[string]int64{"empty_text": 2}}, "q", ""},
		{"nothing read (CheckRows says it)", []string{"a.parquet"}, schemas.IndexCounts{}, "", ""},
		{"all quarantined", []string{"exports/a.parquet"},
			schemas.IndexCounts{Read: 5, Quarantined: map[string]int64{"missing_date": 2, "empty_text": 3}}, "quarantine/run1.parquet",
			"no documents to index: none of the 5 rows of exports/a.parquet can be indexed (3 empty_text, 2 missing_date); the quarantined rows and their reasons are in quarantine/run1.parquet"},
		{"all outside the dates", []string{"a.parquet", "b.parquet"}, schemas.IndexCounts{Read: 4, Skipped: 4}, "",
			"no documents to index: none of the 4 rows of the input can be indexed (4 outside --from/--to)"},
		{"both", []string{"a.parquet"}, schemas.IndexCounts{Read: 4, Skipped: 1, Quarantined: map[string]int64{"future_date": 3}}, "q.parquet",
			"no documents to index: none of the 4 rows of a.parquet can be indexed (3 future_date, 1 outside --from/--to); the quarantined rows and their reasons are in q.parquet"},
	} {
		err := indexplan.CheckIndexable(tt.files, tt.c, tt.key)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (!errors.Is(err, indexplan.ErrNoDocuments) || err.Error() != tt.want):
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
