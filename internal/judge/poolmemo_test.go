package judge_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/asofrag/asof/internal/judge"
)

// TestPoolMemo: the memo answers what PoolOf answers, for pools that differ in one field the
// memo must see (a cosine, a word of a text, the query), and however many goroutines ask at
// once; it forgets the oldest pools past PoolMemoSize.
func TestPoolMemo(t *testing.T) {
	base := []judge.Doc{
		{ID: 1, Title: "Key rate", Text: "The central bank raised the key rate to 16 percent.", Cosine: 0.91},
		{ID: 2, Title: "Oil", Text: "Oil fell after OPEC.", Cosine: 0.70},
	}
	with := func(f func(d []judge.Doc)) []judge.Doc {
		d := append([]judge.Doc(nil), base...)
		f(d)
		return d
	}
	tests := []struct {
		name  string
		query string
		docs  []judge.Doc
	}{
		{name: "base", query: "key rate", docs: base},
		{name: "other cosine", query: "key rate", docs: with(func(d []judge.Doc) { d[0].Cosine = 0.75 })},
		{name: "the query pasted", query: "The central bank raised the key rate to 16 percent.", docs: base},
		{name: "other words", query: "key rate", docs: with(func(d []judge.Doc) { d[0].Text = "Wheat prices rose." })},
		{name: "other query", query: "oil", docs: base},
		{name: "text moved to the title", query: "key rate", docs: with(func(d []judge.Doc) { d[0].Title, d[0].Text = d[0].Title+d[0].Text, "" })},
		{name: "empty pool", query: "key rate"},
	}
	var m judge.PoolMemo
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := judge.PoolOf(tt.query, tt.docs)
			var wg sync.WaitGroup
			got := make([]judge.Pool, 8)
			for i := range got {
				wg.Go(func() { got[i] = m.Of(tt.query, tt.docs) })
			}
			wg.Wait()
			for i, g := range got {
				if g != want {
					t.Fatalf("call %d: %+v, PoolOf says %+v", i, g, want)
				}
			}
		})
	}
	if m.Len() != len(tests) {
		t.Fatalf("remembers %d pools, want %d (one per distinct pool)", m.Len(), len(tests))
	}
	for i := range judge.PoolMemoSize + 10 {
		m.Of(fmt.Sprintf("query %d", i), base)
	}
	if m.Len() != judge.PoolMemoSize {
		t.Fatalf("remembers %d pools, want at most %d", m.Len(), judge.PoolMemoSize)
	}
}
