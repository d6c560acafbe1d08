package answer

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/schemas"
)

// TestCandidateRowsAndJudgeDocs: pool order is rank order, a chunk counts at least one
// fragment, and the judge reads each row under its rank.
func TestCandidateRowsAndJudgeDocs(t *testing.T) {
	pool := []Hit{
		{Candidate: retrieve.Candidate{Chunk: &schemas.Chunk{DocID: "a", ChunkID: "a#0", Title: "A", Text: "alpha", Source: "s1", PublishedAt: day("2024-05-01")}, Cos: 0.5, Score: 2},
			Duplicates: 1, Sources: []string{"s1", "s2"}, Folded: []string{"a2"}},
		{Candidate: retrieve.Candidate{Chunk: &schemas.Chunk{DocID: "b", ChunkID: "b#0", Text: "beta"}, Fragments: 3, Group: "now"}},
	}
	rows := CandidateRows(pool)
	if len(rows) != 2 || rows[0].Rank != 1 || rows[1].Rank != 2 || rows[0].Fragments != 1 || rows[1].Fragments != 3 ||
		rows[0].Duplicates != 1 || rows[0].Cosine != 0.5 || rows[1].Group != "now" || !reflect.DeepEqual(rows[0].Folded, []string{"a2"}) {
		t.Fatalf("CandidateRows = %+v", rows)
	}
	docs := JudgeDocs(rows)
	want := []judge.Doc{{ID: 1, DocID: "a", Title: "A", Text: "alpha", Source: "s1", PublishedAt: day("2024-05-01"), Cosine: 0.5}, {ID: 2, DocID: "b", Text: "beta"}}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("JudgeDocs = %+v, want %+v", docs, want)
	}
}

// TestApplyVerdicts keeps relevance ≥ 1, applies the failure policy to unjudged ranks and
// refuses a rank with neither.
func TestApplyVerdicts(t *testing.T) {
	rows := []schemas.CandidateRow{
		{Rank: 1, DocID: "a", Group: "then"}, {Rank: 2, DocID: "b"}, {Rank: 3, DocID: "c"},
	}
	tests := []struct {
		name          string
		v             Verdicts
		wantDocs      []string
		kept, dropped int
		wantErr       string
	}{
		{name: "all judged", v: Verdicts{Grades: []judge.Verdict{{ID: 1, Relevance: 2}, {ID: 2, Relevance: 0}, {ID: 3, Relevance: 1}}},
			wantDocs: []string{"a", "c"}, kept: 2, dropped: 1},
		{name: "failed batch kept", v: Verdicts{Grades: []judge.Verdict{{ID: 1, Relevance: 0}}, Unjudged: []int{2, 3}, Keep: true},
			wantDocs: []string{"b", "c"}, kept: 2, dropped: 1},
		{name: "failed batch dropped", v: Verdicts{Grades: []judge.Verdict{{ID: 1, Relevance: 1}}, Unjudged: []int{2, 3}},
			wantDocs: []string{"a"}, kept: 1, dropped: 2},
		{name: "a rank with no verdict", v: Verdicts{Grades: []judge.Verdict{{ID: 1, Relevance: 1}}, Unjudged: []int{3}},
			wantErr: "candidate 2 has no verdict and was not in a failed batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rep schemas.JudgeReport
			j, err := ApplyVerdicts(rows, tt.v, &rep)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range j.Docs {
				ids = append(ids, d.DocID)
			}
			if !reflect.DeepEqual(ids, tt.wantDocs) || rep.Kept != tt.kept || rep.Dropped != tt.dropped {
				t.Errorf("docs %v kept %d dropped %d, want %v %d %d", ids, rep.Kept, rep.Dropped, tt.wantDocs, tt.kept, tt.dropped)
			}
			if _, ok := j.Groups["a"]; ok != (ids[0] == "a") {
				t.Errorf("groups = %v: a's group only when a stays", j.Groups)
			}
			results := []schemas.AnswerResult{{DocID: "a"}, {DocID: "z"}}
			j.Grade(results)
			if g, ok := j.Relevance["a"]; ok != (results[0].Relevance != nil) || (ok && *results[0].Relevance != g) || results[1].Relevance != nil {
				t.Errorf("graded results = %+v, relevance %v", results, j.Relevance)
			}
		})
	}
}

// TestBlocks splits a context's blocks into then and now.
func TestBlocks(t *testing.T) {
	in := []schemas.ContextBlock{{N: 1, DocID: "a", Group: "then", Snippet: "x", Hot: true}, {N: 2, DocID: "b", Group: "now"}, {N: 3, DocID: "c"}}
	all, then, now := Blocks(in)
	if len(all) != 3 || len(then) != 1 || len(now) != 2 || then[0].Doc.DocID != "a" || !then[0].Hot || then[0].Snippet != "x" || now[1].N != 3 {
		t.Errorf("Blocks = %+v / %+v / %+v", all, then, now)
	}
}

// TestHeaderAndFill: the header says how the question was read; Fill replaces that with how
// it was searched and adds the counts and the results, ranked from 1.
func TestHeaderAndFill(t *testing.T) {
	asOf := day("2024-05-15")
	ans := Header("run", "ix", "what now", asOf, Reading{Mode: "auto", Interpretation: "as asked", Text: "what"})
	if ans.Version != schemas.AnswerVersion || ans.RunID != "run" || ans.Index != "ix" || ans.Mode != "auto" || ans.SearchText != "what" || ans.AsOf.Location() != time.UTC {
		t.Fatalf("Header = %+v", ans)
	}
	tests := []struct {
		name    string
		r       Ranking
		results []string
	}{
		{name: "found", r: Ranking{Read: Reading{Interpretation: "looked back", Text: "w"}, Mode: retrieve.Recency, Allowed: 5, Candidates: 3, Clusters: 2,
			Bounds:  retrieve.Bounds{Lo: day("2024-01-01"), Hi: asOf},
			Results: []Hit{{Candidate: retrieve.Candidate{Chunk: &schemas.Chunk{DocID: "a"}}}, {Candidate: retrieve.Candidate{Chunk: &schemas.Chunk{DocID: "b"}}}}},
			results: []string{"a", "b"}},
		{name: "nothing", r: Ranking{Mode: retrieve.Window, Message: "No documents"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ans
			tt.r.Fill(&got)
			if got.Mode != string(tt.r.Mode) || got.Interpretation != tt.r.Read.Interpretation || got.SearchText != tt.r.Read.Text ||
				!got.From.Equal(tt.r.Bounds.Lo) || got.Counts.Allowed != tt.r.Allowed || got.Counts.Clusters != tt.r.Clusters || got.Message != tt.r.Message {
				t.Errorf("Fill = %+v", got)
			}
			var ids []string
			for i, res := range got.Results {
				ids = append(ids, res.DocID)
				if res.Rank != i+1 {
					t.Errorf("result %d has rank %d", i, res.Rank)
				}
			}
			if !reflect.DeepEqual(ids, tt.results) {
				t.Errorf("results %v, want %v", ids, tt.results)
			}
		})
	}
}

// TestStart: the header carries the reading and the bounds it searches (the reading's window
// or dates over the options); the rerank options take the reading's mode and dates but not
// its window change; a bad index name or options fail.
func TestStart(t *testing.T) {
	asOf := time.Date(2024, 5, 20, 15, 0, 0, 0, time.UTC)
	o := retrieve.DefaultOptions()
	o.WindowDays = 7
	bad := o
	bad.K = 0
	tests := []struct {
		name           string
		index          string
		rd             Reading
		o              retrieve.Options
		from, to       time.Time // the header's bounds
		wantWindowDays int       // the rerank options'
		wantErr        string
	}{
		{name: "window dates", index: "news", rd: Reading{Mode: "window", From: day("2024-05-01"), To: day("2024-05-10"), Text: "rates"}, o: o,
			from: day("2024-05-01"), to: time.Date(2024, 5, 10, 23, 59, 59, 999999999, time.UTC), wantWindowDays: 7},
		{name: "recency window", index: "news", rd: Reading{Mode: "recency", Text: "rates"}, o: o,
			from: day("2024-05-13"), to: time.Date(2024, 5, 20, 23, 59, 59, 999999999, time.UTC), wantWindowDays: 7},
		{name: "window lifted", index: "news", rd: Reading{Mode: "recency", WindowDays: -1}, o: o,
			to: time.Date(2024, 5, 20, 23, 59, 59, 999999999, time.UTC), wantWindowDays: 7},
		{name: "bad index", index: "News/x", rd: Reading{Mode: "recency"}, o: o, wantErr: "index name"},
		{name: "bad mode", index: "news", rd: Reading{Mode: "nope"}, o: o, wantErr: "unknown mode"},
		{name: "bad options", index: "news", rd: Reading{Mode: "hybrid"}, o: bad, wantErr: "k 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ans, ro, err := Start("r1", tc.index, "q", asOf, tc.rd, tc.o)
			if ans.RunID != "r1" || ans.Index != tc.index || ans.Mode != tc.rd.Mode || ans.SearchText != tc.rd.Text {
				t.Errorf("header %+v", ans)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !ans.From.Equal(tc.from) || !ans.To.Equal(tc.to) {
				t.Errorf("bounds %v..%v, want %v..%v", ans.From, ans.To, tc.from, tc.to)
			}
			if string(ro.Mode) != tc.rd.Mode || !ro.From.Equal(tc.rd.From) || !ro.To.Equal(tc.rd.To) || ro.WindowDays != tc.wantWindowDays {
				t.Errorf("rerank options mode %s %v..%v window %d", ro.Mode, ro.From, ro.To, ro.WindowDays)
			}
		})
	}
}
