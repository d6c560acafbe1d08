package rerank_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/retrieve"
)

// fixed is a reranker that answers every call with scores (or err) and counts its calls.
type fixed struct {
	scores []float64
	err    error
	calls  int
}

func (f *fixed) Rerank(context.Context, string, []string) ([]float64, error) {
	f.calls++
	return f.scores, f.err
}

func (f *fixed) Describe() string { return "fixed" }

// TestRank: Rank reorders a ranking's head by the reranker's scores, leaves evolution
// rankings and empty ones alone without a call, and says what went wrong when the reranker
// fails, answers the wrong number of scores, or the options are bad.
func TestRank(t *testing.T) {
	a, b, c := hit("a", "", "ta"), hit("b", "", "tb"), hit("c", "", "tc")
	ranking := func(mode retrieve.Mode, hits ...answer.Hit) answer.Ranking {
		return answer.Ranking{Mode: mode, Ranked: hits, Results: hits[:min(2, len(hits))]}
	}
	replace := rerank.Options{TopN: 3, Fuse: rerank.FuseReplace}
	tests := []struct {
		name        string
		rr          *fixed // nil: no reranker
		o           rerank.Options
		r           answer.Ranking
		ranked      []string
		results     []string
		calls       int
		wantErr     error
		wantMessage string
	}{
		{name: "no reranker", o: replace, r: ranking(retrieve.Decay, a, b, c), ranked: []string{"a", "b", "c"}, results: []string{"a", "b"}},
		{name: "reordered", rr: &fixed{scores: []float64{0.1, 0.2, 0.9}}, o: replace, r: ranking(retrieve.Decay, a, b, c),
			ranked: []string{"c", "b", "a"}, results: []string{"c", "b"}, calls: 1},
		{name: "evolution left alone", rr: &fixed{scores: []float64{0.1, 0.2, 0.9}}, o: replace, r: ranking(retrieve.Evolution, a, b, c),
			ranked: []string{"a", "b", "c"}, results: []string{"a", "b"}},
		{name: "empty ranking", rr: &fixed{}, o: replace, r: answer.Ranking{Mode: retrieve.Decay}},
		{name: "refused request", rr: &fixed{err: llm.ErrConfig}, o: replace, r: ranking(retrieve.Decay, a, b, c), calls: 1,
			wantErr: llm.ErrConfig, wantMessage: "rerank: "},
		{name: "wrong number of scores", rr: &fixed{scores: []float64{1}}, o: replace, r: ranking(retrieve.Decay, a, b, c), calls: 1,
			wantMessage: "rerank: 1 scores for 3 documents (fixed)"},
		{name: "bad options", rr: &fixed{scores: []float64{1, 2, 3}}, o: rerank.Options{TopN: 3, Fuse: "sideways"}, r: ranking(retrieve.Decay, a, b, c), calls: 1,
			wantErr: rerank.ErrOptions, wantMessage: `fuse "sideways"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rr rerank.Reranker
			if tc.rr != nil {
				rr = tc.rr
			}
			got, err := rerank.Rank(context.Background(), rr, tc.o, "q", retrieve.Options{KRRF: 60}, tc.r)
			if tc.rr != nil && tc.rr.calls != tc.calls {
				t.Fatalf("%d reranker calls, want %d", tc.rr.calls, tc.calls)
			}
			if tc.wantMessage != "" {
				if err == nil || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) || !strings.Contains(err.Error(), tc.wantMessage) {
					t.Fatalf("err = %v, want %v saying %q", err, tc.wantErr, tc.wantMessage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids(got.Ranked), tc.ranked) || !reflect.DeepEqual(ids(got.Results), tc.results) {
				t.Fatalf("ranked %v results %v; want %v %v", ids(got.Ranked), ids(got.Results), tc.ranked, tc.results)
			}
		})
	}
}
