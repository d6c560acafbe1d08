package answer

import (
	"cmp"
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// TestWrittenAnswersOnTelegramHaveNoDefects writes the answers to the 42 questions of the
// Russian dev set from real channel posts and holds them to what a reader must never see
// (render.Defects): a sentence twice, a channel footer or subscription call, a source named by
// a bare id, two sentences glued at a join. The posts come through the corpus loader (its
// cleaning at ingest), and each answer's documents are the question's judged pool, best grade
// and then freshest first, as retrieval and the judge would pass them: on-topic and off-topic
// posts together. Skipped where ../shared/data is absent.
func TestWrittenAnswersOnTelegramHaveNoDefects(t *testing.T) {
	const docsPath = "../../../shared/data/tg-finance-ru/docs.parquet"
	f, err := os.Open(docsPath)
	if err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]schemas.Document{}
	err = corpus.NewLoader(corpus.Options{}).ReadFile(context.Background(), f, st.Size(), "docs.parquet",
		func(d schemas.Document) error { byID[d.DocID] = d; return nil },
		func(schemas.QuarantineRow) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	questions, err := parquet.ReadFile[schemas.EvalQuestion]("../../evalsets/tg-finance-ru-dev/questions.parquet")
	if err != nil {
		t.Fatal(err)
	}
	qrels, err := parquet.ReadFile[schemas.Qrel]("../../evalsets/tg-finance-ru-dev/qrels.parquet")
	if err != nil {
		t.Fatal(err)
	}
	pools := map[string][]schemas.Qrel{}
	for _, q := range qrels {
		pools[q.QuestionID] = append(pools[q.QuestionID], q)
	}
	claims := 0
	for _, q := range questions {
		pool := pools[q.QuestionID]
		slices.SortStableFunc(pool, func(a, b schemas.Qrel) int {
			return cmp.Or(cmp.Compare(b.Grade, a.Grade), cmp.Compare(a.DaysBefore, b.DaysBefore), cmp.Compare(a.DocID, b.DocID))
		})
		var docs []evidence.Doc
		for i, j := range pool[:min(len(pool), 20)] {
			d, ok := byID[j.DocID]
			if !ok {
				continue
			}
			docs = append(docs, evidence.Doc{DocID: d.DocID, ChunkID: d.DocID + "#0", Title: d.Title, Text: d.Text, URL: d.URL,
				Sources: []string{d.Source}, PublishedAt: d.PublishedAt, Score: 1 / float64(i+1), Cosine: 0.80 + 0.02*float64(j.Grade)})
		}
		read, err := Read(q.Question, q.QuestionDate, Auto, time.Time{}, time.Time{})
		if err != nil {
			t.Fatalf("%s: %v", q.QuestionID, err)
		}
		c, err := Compose(ComposeInput{Query: q.Question, SearchText: read.Text, AsOf: q.QuestionDate,
			Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions()}, docs)
		if err != nil {
			t.Fatalf("%s: %v", q.QuestionID, err)
		}
		if c.Brief == nil {
			t.Fatalf("%s: no brief", q.QuestionID)
		}
		claims += len(render.ViewOf(*c.Brief).Claims())
		for _, d := range render.Defects(*c.Brief, c.Blocks) {
			t.Errorf("%s %q as of %s: %s", q.QuestionID, q.Question, q.QuestionDate.Format("2006-01-02"), d)
		}
	}
	if len(questions) != 42 || claims < 42*3 {
		t.Fatalf("%d questions, %d claims shown: the answers were not written", len(questions), claims)
	}
	t.Logf("%d answers, %d claims shown, no defects", len(questions), claims)
}
