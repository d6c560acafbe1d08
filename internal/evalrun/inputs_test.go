package evalrun

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/schemas"
)

// TestPlannedJSON: a planned question keeps the JSON names batches have always crossed the
// workflow boundary with.
func TestPlannedJSON(t *testing.T) {
	data, err := json.Marshal(Planned{ID: "q1", AsOf: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), Question: "what"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"q1","as_of":"2024-05-01T00:00:00Z","question":"what"}`; string(data) != want {
		t.Errorf("JSON = %s, want %s", data, want)
	}
}

func TestUnlabelledAndJudged(t *testing.T) {
	d := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	qs, judged := Unlabelled([]schemas.EvalQuery{{QueryID: "a", Query: "qa", AnchorDate: d}, {QueryID: "b", Query: "qb", AnchorDate: d}})
	if len(qs) != 2 || qs[1] != (schemas.EvalQuestion{QuestionID: "b", QuestionDate: d, Question: "qb"}) || !judged["a"] || !judged["b"] {
		t.Errorf("Unlabelled = %+v, %v", qs, judged)
	}
	qrels := []schemas.Qrel{{QuestionID: "a", DocID: "x", Grade: 2}, {QuestionID: "a", DocID: "y"}, {QuestionID: "c", DocID: "x", Grade: 1}}
	if got := JudgedIDs(qrels); !reflect.DeepEqual(got, map[string]bool{"a": true, "c": true}) {
		t.Errorf("JudgedIDs = %v", got)
	}
	want := map[string][]eval.Judged{"a": {{DocID: "x", Grade: 2}, {DocID: "y"}}, "c": {{DocID: "x", Grade: 1}}}
	if got := JudgedOf(qrels); !reflect.DeepEqual(got, want) {
		t.Errorf("JudgedOf = %v, want %v", got, want)
	}
}

func TestParseSystems(t *testing.T) {
	s, err := ParseSystems([]string{"temporal_rrf", "bm25"})
	if err != nil || len(s) != 2 || s[0].Name() != "temporal_rrf" || s[1].Name() != "bm25" {
		t.Errorf("ParseSystems = %v, %v", s, err)
	}
	_, want := ParseSystem("nonsense")
	if _, err := ParseSystems([]string{"bm25", "nonsense"}); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("ParseSystems err = %v, want %v", err, want)
	}
}

// TestQuestions lays the vectors out as the workflow embeds them: one per question, then
// one per auto reading.
func TestQuestions(t *testing.T) {
	v := func(x float32) []float32 { return []float32{x} }
	batch := []Planned{{ID: "a", Question: "qa"}, {ID: "b", Question: "qb in 2020", AutoText: "qb"}, {ID: "c", Question: "qc", AutoText: "c"}}
	tests := []struct {
		name     string
		vecs     [][]float32
		wantAuto [][]float32
		wantErr  string
	}{
		{name: "with auto readings", vecs: [][]float32{v(1), v(2), v(3), v(4), v(5)}, wantAuto: [][]float32{nil, v(4), v(5)}},
		{name: "too few", vecs: [][]float32{v(1), v(2), v(3), v(4)}, wantErr: "4 vectors for 3 questions and their auto readings (5)"},
		{name: "too many", vecs: [][]float32{v(1), v(2), v(3), v(4), v(5), v(6)}, wantErr: "6 vectors for 3 questions and their auto readings (5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs, err := Questions(batch, tt.vecs)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range qs {
				if q.ID != batch[i].ID || q.Text != batch[i].Question || !reflect.DeepEqual(q.Vec, tt.vecs[i]) || !reflect.DeepEqual(q.AutoVec, tt.wantAuto[i]) {
					t.Errorf("question %d = %+v", i, q)
				}
			}
		})
	}
}

// TestReport leaves a sweep's variants and an unlabelled set's metrics out, and counts a
// monthly index's documents.
func TestReport(t *testing.T) {
	rows := []schemas.EvalRow{{System: "recency"}, {System: "recency@k=5"}}
	sums := map[string]eval.Summary{"recency": {System: "recency"}, "recency@k=5": {System: "recency@k=5"}}
	month := &schemas.Manifest{Period: "month", Shards: []schemas.ShardMeta{{Period: "2024-05", Docs: 3}}}
	tests := []struct {
		name       string
		unlabelled bool
		m          *schemas.Manifest
		systems    int
		rows       int
		notes      int
		months     int
	}{
		{name: "labelled, monthly", m: month, systems: 1, rows: 1, notes: 2, months: 1},
		{name: "unlabelled, no manifest", unlabelled: true, systems: 0, rows: 1, notes: 3},
		{name: "weekly", m: &schemas.Manifest{Period: "week", Shards: month.Shards}, systems: 1, rows: 1, notes: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Report(ReportInput{EvalID: "e1", Index: "ix", Systems: []string{"recency", "recency@k=5"}, Summaries: sums, Questions: 1,
				Unlabelled: tt.unlabelled, Rows: rows, Manifest: tt.m})
			if len(r.Systems) != tt.systems || len(r.Rows) != tt.rows || len(r.Notes) != tt.notes || len(r.DocsPerMonth) != tt.months {
				t.Errorf("report: %d systems, %d rows, %d notes, %d months; want %d %d %d %d", len(r.Systems), len(r.Rows), len(r.Notes), len(r.DocsPerMonth),
					tt.systems, tt.rows, tt.notes, tt.months)
			}
			if r.Title != "asof eval — index ix" || !strings.Contains(r.Notes[0], "Evaluation e1.") || !strings.Contains(r.Notes[1], "1 parameter variants") {
				t.Errorf("title %q notes %q", r.Title, r.Notes)
			}
			if len(rows) != 2 {
				t.Errorf("the rows given were changed: %v", rows)
			}
		})
	}
}

func TestNewBatch(t *testing.T) {
	planned := []Planned{{ID: "q1", Question: "rate?"}, {ID: "q2", Question: "oil?", AutoText: "oil"}}
	vecs := [][]float32{{1}, {2}, {3}}
	qrels := []schemas.Qrel{{QuestionID: "q1", DocID: "a", Grade: 2}}
	tests := []struct {
		name    string
		systems []string
		vecs    [][]float32
		qrels   []schemas.Qrel
		judged  int
		wantErr bool
	}{
		{name: "judged", systems: []string{"bm25", "dense"}, vecs: vecs, qrels: qrels, judged: 1},
		{name: "unlabelled", systems: []string{"bm25"}, vecs: vecs},
		{name: "unknown system", systems: []string{"nope"}, vecs: vecs, wantErr: true},
		{name: "a vector short", systems: []string{"bm25"}, vecs: vecs[:2], wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := NewBatch(tt.systems, planned, tt.vecs, tt.qrels)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil || len(b.Systems) != len(tt.systems) || len(b.Questions) != 2 || b.Questions[1].AutoVec[0] != 3 ||
				len(b.Judged) != tt.judged || b.Judged == nil {
				t.Fatalf("NewBatch = %+v, %v", b, err)
			}
		})
	}
}
