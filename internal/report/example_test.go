package report_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/report"
	"github.com/asofrag/asof/schemas"
)

func ExampleWriteEval() {
	asOf := time.Date(2023, 3, 10, 0, 0, 0, 0, time.UTC)
	r := report.EvalReport{
		Title:     "asof eval — index rtqa",
		Generated: time.Date(2023, 3, 11, 9, 0, 0, 0, time.UTC),
		Index:     "rtqa",
		Questions: 1,
		Systems: []eval.Summary{
			{System: "hybrid", NDCG10: 0.7, FreshDaysMedian: 1, Questions: 1},
			{System: "bm25", NDCG10: 0.5, FreshDaysMedian: 3, Questions: 1},
		},
		Rows: []schemas.EvalRow{
			{System: "hybrid", QuestionID: "q1", AsOf: asOf, Valid: true, NDCG10: 0.7, FreshDays: 1},
			{System: "bm25", QuestionID: "q1", AsOf: asOf, Valid: true, NDCG10: 0.5, FreshDays: 3},
		},
		DocsPerMonth: []report.MonthCount{{Month: "2023-02", Docs: 120}, {Month: "2023-03", Docs: 80}},
	}
	var page strings.Builder
	if err := report.WriteEval(&page, r); err != nil {
		fmt.Println(err)
		return
	}
	out := page.String()
	fmt.Println(strings.Count(out, "<svg"), "charts,", strings.Count(out, "<script"), "scripts")
	fmt.Println(strings.Contains(out, "<strong>0.700</strong>"))
	// Output:
	// 6 charts, 0 scripts
	// true
}
