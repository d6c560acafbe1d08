package rerank_test

import (
	"reflect"
	"testing"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/schemas"
)

func hit(id, title, text string) answer.Hit {
	return answer.Hit{Candidate: retrieve.Candidate{Chunk: &schemas.Chunk{ChunkID: id, Title: title, Text: text}}}
}

func ids(hs []answer.Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Chunk.ChunkID)
	}
	return out
}

func TestWithDefaults(t *testing.T) {
	d := rerank.DefaultOptions()
	got := rerank.WithDefaults(rerank.Options{}, retrieve.Options{KRRF: 7})
	if got.TopN != d.TopN || got.Fuse != d.Fuse || got.Weight != d.Weight || got.KRRF != 7 {
		t.Errorf("WithDefaults(zero) = %+v", got)
	}
	set := rerank.Options{TopN: 3, Fuse: rerank.FuseReplace, Weight: 2, KRRF: 99}
	if got := rerank.WithDefaults(set, retrieve.Options{KRRF: 7}); got.TopN != 3 || got.Fuse != rerank.FuseReplace || got.Weight != 2 || got.KRRF != 7 {
		t.Errorf("WithDefaults(set) = %+v, want set but the ranking's KRRF", got)
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name, title, text, want string
	}{
		{name: "title then text", title: " T ", text: "body", want: "T\n\nbody"},
		{name: "no title", text: "body", want: "body"},
		{name: "text starts with the title", title: "T", text: " T body", want: " T body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rerank.Text(hit("c", tt.title, tt.text)); got != tt.want {
				t.Errorf("Text = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHeadsApply: the head is scored once per chunk and reordered, the tail keeps its order;
// results that are the ranking's prefix follow it, others are reordered on their own.
func TestHeadsApply(t *testing.T) {
	a, b, c, d := hit("a", "", "ta"), hit("b", "", "tb"), hit("c", "", "tc"), hit("d", "", "td")
	o := rerank.Options{TopN: 3, Fuse: rerank.FuseReplace, Weight: 1, KRRF: 60}
	tests := []struct {
		name                    string
		ranked, results         []answer.Hit
		scores                  []float64
		wantTexts               []string
		wantRanked, wantResults []string
	}{
		{name: "prefix", ranked: []answer.Hit{a, b, c, d}, results: []answer.Hit{a, b}, scores: []float64{0.1, 0.2, 0.9},
			wantTexts: []string{"ta", "tb", "tc"}, wantRanked: []string{"c", "b", "a", "d"}, wantResults: []string{"c", "b"}},
		{name: "results on their own", ranked: []answer.Hit{a, b, c, d}, results: []answer.Hit{d, a}, scores: []float64{0.5, 0.2, 0.1, 0.9},
			wantTexts: []string{"ta", "tb", "tc", "td"}, wantRanked: []string{"a", "b", "c", "d"}, wantResults: []string{"d", "a"}},
		{name: "results reordered", ranked: []answer.Hit{a, b, c, d}, results: []answer.Hit{b, d, c}, scores: []float64{0.1, 0.2, 0.9, 0.3},
			wantTexts: []string{"ta", "tb", "tc", "td"}, wantRanked: []string{"c", "b", "a", "d"}, wantResults: []string{"c", "d", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := answer.Ranking{Ranked: tt.ranked, Results: tt.results}
			h := rerank.HeadsOf(r, o)
			if !reflect.DeepEqual(h.Texts, tt.wantTexts) {
				t.Fatalf("texts = %q, want %q", h.Texts, tt.wantTexts)
			}
			got, err := h.Apply(r, tt.scores)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids(got.Ranked), tt.wantRanked) || !reflect.DeepEqual(ids(got.Results), tt.wantResults) {
				t.Errorf("ranked %v results %v, want %v %v", ids(got.Ranked), ids(got.Results), tt.wantRanked, tt.wantResults)
			}
		})
	}
	bad := o
	bad.Fuse = "nonsense"
	r := answer.Ranking{Ranked: []answer.Hit{a, b}, Results: []answer.Hit{a}}
	if _, err := rerank.HeadsOf(r, bad).Apply(r, []float64{1, 2}); err == nil {
		t.Error("Apply with invalid options: no error")
	}
}
