package brief_test

import (
	"context"
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/brief"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/summarize"
)

// replies is a Chatter that answers with its strings in turn, as a model would.
type replies []string

func (r *replies) Chat(context.Context, []llm.Message) (string, llm.Usage, error) {
	s := (*r)[0]
	*r = (*r)[1:]
	return s, llm.Usage{}, nil
}

func ExampleWrite() {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	blocks := []evidence.Block{
		{N: 1, Doc: evidence.Doc{PublishedAt: day("2024-06-28")}, Snippet: "The central bank raised the key rate to 18% on 28 June 2024."},
		{N: 2, Doc: evidence.Doc{PublishedAt: day("2023-12-15")}, Snippet: "The key rate was raised to 16% in December."},
	}
	// The first reply dates a claim with a day no document gives; the repair turn fixes it.
	model := replies{
		`{"not_enough":false,"new":[{"text":"The key rate rose to 18% on 27 June 2024.","cites":[1]}],"timeline":[]}`,
		"```json\n" + `{"not_enough":false,
		  "new":[{"text":"The key rate rose to 18%.","cites":[1]}],
		  "timeline":[{"date":"2023-12-15","text":"The key rate rose to 16%.","cites":[2]},
		              {"date":"2024-06-28","text":"The key rate rose to 18%.","cites":[1]}]}` + "\n```",
	}
	asOf := day("2024-06-30")
	b, err := brief.Write(context.Background(), &model, "small-model", "key rate", blocks, asOf, 7)
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Method)
	fmt.Print(render.Markdown(b, nil))

	// The extractive summary of the same blocks is a Brief too, and renders the same way.
	e, err := summarize.Brief("key rate", blocks, asOf, summarize.DefaultOptions())
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Method)
	fmt.Print(render.Markdown(e, nil))
	// Output:
	// llm:small-model
	// ### New in the last 7 days
	// - 2024-06-28 — The key rate rose to 18%. [1]
	//
	// ### Timeline
	// - 2023-12-15 — The key rate rose to 16%. [2]
	// extractive
	// ### New in the last 7 days
	// - 2024-06-28 — The central bank raised the key rate to 18% on 28 June 2024. [1]
	//
	// ### Timeline
	// - 2023-12-15 — The key rate was raised to 16% in December. [2]
}
