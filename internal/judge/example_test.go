package judge_test

import (
	"fmt"

	"github.com/asofrag/asof/internal/judge"
)

func ExampleHeuristic() {
	docs := []judge.Doc{
		{ID: 1, Title: "ЦБ сохранил ключевую ставку", Text: "Банк России сохранил ставку на уровне 21%.", Cosine: 0.9},
		{ID: 2, Title: "Ставки по ипотеке растут", Cosine: 0.86},
		{ID: 3, Title: "Погода в Москве", Cosine: 0.7},
		{ID: 4, Title: "Ставки по вкладам", Cosine: 0.83}, // one word, and more than CosineSlack below the best
	}
	for _, v := range judge.Heuristic("Какая сейчас ключевая ставка ЦБ?", docs) {
		fmt.Printf("doc %d: %d\n", v.ID, v.Relevance)
	}
	// Output:
	// doc 1: 2
	// doc 2: 1
	// doc 3: 0
	// doc 4: 0
}

func ExampleParse() {
	reply := "```json\n{\"verdicts\":[{\"id\":2,\"relevance\":0},{\"id\":1,\"relevance\":2}]}\n```"
	vs, err := judge.Parse(reply, []int{1, 2})
	fmt.Println(vs, err)

	_, err = judge.Parse(`{"verdicts":[{"id":1,"relevance":2}]}`, []int{1, 2})
	fmt.Println(err)
	// Output:
	// [{1 2} {2 0}] <nil>
	// judge: malformed verdicts: verdict for id 2 missing
}
