package catalog

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// BenchmarkAnswers lists the 20 newest answers in a local-folder store of 2,000 answers of
// 33 KB (about a real one's size: ten results and the context they make), of one index and
// of all; 1 in 100 is of that index, so its filter passes over the others.
func BenchmarkAnswers(b *testing.B) {
	s := newStore(b)
	t0 := time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC)
	text := strings.Repeat("The central bank raised the key rate by half a point. ", 5)
	for i := range 2000 {
		ans := schemas.Answer{Version: schemas.AnswerVersion, RunID: fmt.Sprintf("asof-ask-news-%05d", i), Index: "news",
			Query: "central bank key rate decision", AsOf: t0, Mode: "recency", Context: strings.Repeat(text, 80)}
		if i%100 == 0 {
			ans.Index = "rare"
		}
		for r := range 10 {
			ans.Results = append(ans.Results, schemas.AnswerResult{Rank: r + 1, DocID: fmt.Sprint("d", r), PublishedAt: t0, Title: "Key rate", Snippet: text})
			ans.Blocks = append(ans.Blocks, schemas.ContextBlock{N: r + 1, DocID: fmt.Sprint("d", r), PublishedAt: t0, Title: "Key rate", Snippet: text})
		}
		s.put(layout.AnswerKey(ans.RunID), jsonOf(b, ans), t0.Add(time.Duration(i)*time.Second))
	}
	for _, tc := range []struct{ name, index string }{{"one index", "rare"}, {"all", ""}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				got, err := Answers(context.Background(), s.b, tc.index, 20)
				if err != nil || len(got) != 20 {
					b.Fatalf("%d answers, %v", len(got), err)
				}
			}
		})
	}
}
