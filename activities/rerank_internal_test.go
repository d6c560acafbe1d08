package activities

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/rerank/reranktest"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/retrieve/retrievetest"
)

// TestEvalRunReranks checks that eval (evalrun.Batch) ranks through the reranker hook as ask does: with a
// reranker (replace) every system's documents come back in the reranker's order, folded or
// not (a system without +dedup keeps a repost, so its results are not a prefix of the folded
// ranking and are reordered on their own), on an RRF scale or not (decay), and the document
// published after the anchor stays out.
func TestEvalRunReranks(t *testing.T) {
	asOf := retrievetest.Day("2024-05-15")
	const q = "central bank key rate decision"
	docs := []retrievetest.Doc{
		{ID: "pie", Text: "apple pie with key ingredients", Source: "food", PublishedAt: retrievetest.Day("2024-05-14"), Vec: retrievetest.Unit(0, 0.2, 1)},
		{ID: "raised", Text: "key rate raised to 16 percent", Source: "cbr", PublishedAt: retrievetest.Day("2024-05-13"), Vec: retrievetest.Unit(1, 0, 0)},
		{ID: "raised-tg", Text: "key rate raised to 16 percent", Source: "tg", PublishedAt: retrievetest.Day("2024-05-13"), Vec: retrievetest.Unit(1, 0, 0)},
		{ID: "explained", Text: "central bank key rate decision explained", Source: "ft", PublishedAt: retrievetest.Day("2024-05-01"), Vec: retrievetest.Unit(0.8, 0.6, 0)},
		{ID: "holds", Text: "central bank holds; key rate decision due", Source: "wsj", PublishedAt: retrievetest.Day("2024-04-01"), Vec: retrievetest.Unit(0.6, 0.8, 0)},
		{ID: "future", Text: "today: central bank key rate decision, central bank key rate", Source: "cbr", PublishedAt: retrievetest.Day("2024-05-20"), Vec: retrievetest.Unit(1, 0, 0)},
	}
	text := map[string]string{}
	for _, d := range docs {
		text[d.ID] = d.Text
	}
	shards := []*retrieve.Shard{retrievetest.Shard(t, "s", docs)}
	srv := reranktest.New(t, rerank.APICohere)
	c, err := rerank.NewClient(rerank.ClientConfig{BaseURL: srv.URL, Model: "toy-reranker", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Deps: Deps{Reranker: c, RerankOptions: rerank.Options{Fuse: rerank.FuseReplace}}}
	hook := func(query string, o retrieve.Options, r answer.Ranking) (answer.Ranking, error) {
		return a.rerankRanking(context.Background(), query, o, r)
	}
	ids := func(t *testing.T, name string, hook evalrun.Rerank) []string {
		s, err := evalrun.ParseSystem(name)
		if err != nil {
			t.Fatal(err)
		}
		b := evalrun.Batch{Shards: shards, Systems: []evalrun.System{s}, Questions: []evalrun.Question{{ID: "q", AsOf: asOf, Text: q, Vec: retrievetest.Unit(1, 0, 0)}}, Rerank: hook}
		rows, err := b.Rows()
		if err != nil {
			t.Fatal(err)
		}
		return rows[0].Ranked
	}
	for _, name := range []string{"temporal_rrf+dedup", "temporal_rrf", "decay+dedup", "hybrid"} {
		t.Run(name, func(t *testing.T) {
			base := ids(t, name, nil)
			want := slices.Clone(base)
			slices.SortStableFunc(want, func(x, y string) int {
				return int(reranktest.Overlap(q, text[y]) - reranktest.Overlap(q, text[x]))
			})
			if slices.Equal(want, base) {
				t.Fatalf("the reranker's order is the ranking's (%v): the test would show nothing", base)
			}
			got := ids(t, name, hook)
			if !slices.Equal(got, want) {
				t.Errorf("reranked %v, want the reranker's order %v (unreranked %v)", got, want, base)
			}
			if slices.Contains(got, "future") {
				t.Errorf("the document published after the anchor entered: %v", got)
			}
		})
	}
}
