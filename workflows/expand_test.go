package workflows

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/schemas"
)

// TestAskExpandsTheQuery: with Expand on, the LLM's rephrasings and hypothetical answer are
// asked for on asof-llm, embedded on asof-embed and handed to retrieval as variants, and the
// reading says so; a failing LLM leaves the question searched alone, with a note; off by
// default, nothing is asked.
func TestAskExpandsTheQuery(t *testing.T) {
	tests := []struct {
		name     string
		expand   *ExpandOptions
		fail     bool
		variants int
		note     string
	}{
		{"rephrasings and HyDE", &ExpandOptions{Queries: 2, HyDE: true}, false, 3, "2 LLM rephrasing(s) and a hypothetical answer"},
		{"the LLM keeps failing", &ExpandOptions{Queries: 2}, true, 0, "query expansion failed"},
		{"off", nil, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			f := mockAsk(t, env, 4)
			queues := map[string]string{}
			env.OnActivity(a.ExpandQuery, mock.Anything, mock.Anything).Return(
				func(ctx context.Context, in activities.ExpandQueryInput) (activities.ExpandQueryResult, error) {
					queues["expand"] = activity.GetInfo(ctx).TaskQueue
					if tt.fail {
						return activities.ExpandQueryResult{}, errors.New("llm: bad response: no JSON")
					}
					if in.Query != "key rate" || in.Queries != 2 || !in.HyDE || in.AsOf.IsZero() {
						t.Errorf("expand input %+v", in)
					}
					return activities.ExpandQueryResult{Queries: []string{"policy rate", "central bank rate"}, Passage: "The bank held the rate."}, nil
				})
			env.OnActivity(a.EmbedVariants, mock.Anything, mock.Anything).Return(
				func(ctx context.Context, in activities.EmbedVariantsInput) (activities.EmbedVariantsResult, error) {
					queues["embed"] = activity.GetInfo(ctx).TaskQueue
					var out activities.EmbedVariantsResult
					for _, q := range in.Queries {
						out.Variants = append(out.Variants, answer.Variant{Kind: "query", Text: q, Vec: []float32{1}})
					}
					if in.Passage != "" {
						out.Variants = append(out.Variants, answer.Variant{Kind: "hyde", Vec: []float32{1}})
					}
					return out, nil
				})
			env.OnGetVersion("ask-expand", workflow.DefaultVersion, 1).Return(workflow.Version(1))
			env.ExecuteWorkflow(Ask, AskInput{Index: "news", AsOfToday: true, Query: "key rate", Expand: tt.expand, Judge: &JudgeOptions{Mode: "off", Pool: 4, Batch: 2, Failure: "keep", MaxAttempts: 2}})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			c := f.candidates
			if len(c.Variants) != tt.variants || !strings.Contains(c.Read.Interpretation, tt.note) {
				t.Fatalf("%d variants, reading %q; want %d and %q", len(c.Variants), c.Read.Interpretation, tt.variants, tt.note)
			}
			if tt.expand == nil {
				env.AssertNotCalled(t, "ExpandQuery", mock.Anything, mock.Anything)
				return
			}
			if queues["expand"] != config.QueueLLM || (!tt.fail && queues["embed"] != config.QueueEmbed) {
				t.Fatalf("queues %v", queues)
			}
		})
	}
}

// TestAskQuietReturnsAStub: a quiet Ask saves the whole answer and returns only its id and
// reading, so a parent running many of them keeps a small history.
func TestAskQuietReturnsAStub(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		env := newEnv(t)
		f := mockAsk(t, env, 4)
		env.ExecuteWorkflow(Ask, AskInput{Index: "news", AsOfToday: true, Query: "key rate", Quiet: quiet, Judge: &JudgeOptions{Mode: "off", Pool: 4, Batch: 2, Failure: "keep", MaxAttempts: 2}})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		var got schemas.Answer
		if err := env.GetWorkflowResult(&got); err != nil {
			t.Fatal(err)
		}
		if len(f.saved.Blocks) != 1 || f.saved.Summary == "" {
			t.Fatalf("quiet %v: saved %+v, want the whole answer", quiet, f.saved)
		}
		if whole := len(got.Blocks) == 1 && got.Summary != ""; whole == quiet || got.Query != "key rate" {
			t.Fatalf("quiet %v: returned %+v", quiet, got)
		}
	}
}
