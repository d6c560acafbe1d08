package retrieve

import (
	"slices"
	"testing"
)

func TestFeedbackTerms(t *testing.T) {
	docs := []feedbackDoc{
		{"Nuggets win NBA championship, Jokic named finals MVP", 3},
		{"Denver Nuggets beat Heat for first championship; Jokic MVP", 2},
		{"Heat lose to Nuggets in game five", 1},
	}
	tests := []struct {
		name  string
		query string
		docs  []feedbackDoc
		m     int
		want  []string
	}{
		{"words of several documents, weighted", "who won the nba finals", docs, 3, []string{"nuggets", "championship", "jokic"}},
		{"query words are not added (stemmed)", "nuggets championships", docs, 2, []string{"jokic", "mvp"}},
		{"off", "nba", docs, 0, nil},
		{"one document says nothing", "nba", docs[:1], 3, nil},
		{"a word of one document only is not added", "game", []feedbackDoc{{"alpha beta gamma", 1}, {"alpha delta", 1}}, 5, []string{"alpha"}},
		{"numbers and short words are not added", "x", []feedbackDoc{{"2023 rate at 16 pct", 1}, {"2023 rate at 16 pct", 1}}, 5, []string{"pct", "rate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := feedbackTerms(tt.query, tt.docs, tt.m); !slices.Equal(got, tt.want) {
				t.Fatalf("feedbackTerms = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFeedbackFindsVocabularyMismatch: a document that shares no word with the query but the
// feedback documents' words is found by the BM25 branch with RM3 feedback, and never one
// outside the mask.
func TestFeedbackFindsVocabularyMismatch(t *testing.T) {
	s := makeShard(t, "s", []fixture{
		{"f1", "nba finals: Nuggets beat Heat, Jokic MVP", "a", "2023-06-13", unit(1, 0), nil},
		{"f2", "nba finals game five: Nuggets champions, Jokic MVP", "b", "2023-06-12", unit(1, 0), nil},
		{"f3", "nba finals preview: Heat and Nuggets", "c", "2023-06-01", unit(1, 0), nil},
		{"mismatch", "Jokic and the Nuggets celebrate in Denver", "d", "2023-06-14", unit(0, 1), nil},
		{"future", "Jokic Nuggets parade", "e", "2023-06-20", unit(0, 1), nil},
	})
	o := DefaultOptions()
	o.Mode = BM25
	a := d("2023-06-15")
	found := func(o Options) []string {
		res, err := Search([]*Shard{s}, "nba finals", nil, a, o)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range res.Results {
			ids = append(ids, c.Chunk.DocID)
		}
		return ids
	}
	if got := found(o); slices.Contains(got, "mismatch") {
		t.Fatalf("without feedback %v: the mismatched document has no query word", got)
	}
	o.Expand = 3
	got := found(o)
	if !slices.Contains(got, "mismatch") || slices.Contains(got, "future") {
		t.Fatalf("with feedback %v, want the mismatched document and never the future one", got)
	}
}
