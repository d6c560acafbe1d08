package workflows

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/schemas"
)

// judgeFixture mocks every Ask step before and after judging: a pool of `pool` candidates,
// Compose recording what it got, Summarize and SaveAnswer.
type judgeFixture struct {
	mu         sync.Mutex
	composed   activities.ComposeInput
	candidates activities.CandidatesInput
	saved      schemas.Answer
	queues     map[string]string
	summarize  func() (activities.SummarizeResult, error)
	embed      func(activities.EmbedQueryInput) (activities.EmbedQueryResult, error)
	// embeds lists where each EmbedQuery attempt ran (ranOn).
	embeds []string
	// sumInfo is the last Summarize attempt's activity info.
	sumInfo activity.Info
}

// ranOn is where an activity runs: "local" for a local activity, else its task queue.
func ranOn(ctx context.Context) string {
	if info := activity.GetInfo(ctx); !info.IsLocalActivity {
		return info.TaskQueue
	}
	return "local"
}

func mockAsk(t *testing.T, env *testsuite.TestWorkflowEnvironment, pool int) *judgeFixture {
	f := &judgeFixture{queues: map[string]string{}}
	record := func(ctx context.Context, step string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.queues[step] = ranOn(ctx)
	}
	env.OnActivity(a.ReadQuery, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ activities.ReadQueryInput) (activities.ReadQueryResult, error) {
			record(ctx, "read")
			return activities.ReadQueryResult{Mode: "recency", Text: "key rate"}, nil
		})
	f.embed = func(activities.EmbedQueryInput) (activities.EmbedQueryResult, error) {
		return activities.EmbedQueryResult{Vector: []float32{1}}, nil
	}
	env.OnActivity(a.EmbedQuery, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.EmbedQueryInput) (activities.EmbedQueryResult, error) {
			f.mu.Lock()
			f.embeds = append(f.embeds, ranOn(ctx))
			f.mu.Unlock()
			record(ctx, "embed")
			return f.embed(in)
		})
	env.OnActivity(a.Candidates, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.CandidatesInput) (activities.CandidatesResult, error) {
			record(ctx, "candidates")
			f.mu.Lock()
			f.candidates = in
			f.mu.Unlock()
			if in.Pool != 40 && in.Pool != pool {
				t.Errorf("pool %d", in.Pool)
			}
			return activities.CandidatesResult{Answer: schemas.Answer{Query: in.Query, Mode: "recency"}, Key: "runs/x/candidates.parquet", Pool: pool}, nil
		})
	env.OnActivity(a.Compose, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ComposeInput) (schemas.Answer, error) {
			record(ctx, "compose")
			f.mu.Lock()
			f.composed = in
			f.mu.Unlock()
			rep := in.Report
			ans := in.Answer
			ans.Judge = &rep
			ans.Blocks = []schemas.ContextBlock{{N: 1}}
			ans.Brief = &schemas.Brief{Method: "extractive"}
			ans.Summary, ans.SummaryMethod = "extractive summary", "extractive"
			return ans, nil
		})
	f.summarize = func() (activities.SummarizeResult, error) { return activities.SummarizeResult{Skipped: true}, nil }
	env.OnActivity(a.Summarize, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.SummarizeInput) (activities.SummarizeResult, error) {
			record(ctx, "summarize")
			f.mu.Lock()
			f.sumInfo = activity.GetInfo(ctx)
			f.mu.Unlock()
			return f.summarize()
		})
	env.OnActivity(a.SaveAnswer, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, ans schemas.Answer) error {
			record(ctx, "save")
			f.mu.Lock()
			f.saved = ans
			f.mu.Unlock()
			return nil
		})
	return f
}

// grades gives every rank of a batch the grade rank%3 (so ranks 3, 6, 9 … are dropped).
func grades(in activities.JudgeInput) activities.JudgeResult {
	var v []judge.Verdict
	for r := in.From; r <= in.To; r++ {
		v = append(v, judge.Verdict{ID: r, Relevance: r % 3})
	}
	return activities.JudgeResult{Method: "llm:test", Verdicts: v}
}

// TestAskJudgesInParallelBatchesWithRetries: a pool of 20 in batches of 8 makes three Judge
// activities on asof-llm, a transient failure is retried, every verdict reaches Compose, and
// the LLM summary replaces the extractive one.
func TestAskJudgesInParallelBatchesWithRetries(t *testing.T) {
	env := newEnv(t)
	env.OnGetVersion("ask-local", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion) // before local activities
	f := mockAsk(t, env, 20)
	var mu sync.Mutex
	attempts := map[int]int{}
	env.OnActivity(a.Judge, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.JudgeInput) (activities.JudgeResult, error) {
			if q := activity.GetInfo(ctx).TaskQueue; q != config.QueueLLM {
				t.Errorf("judge ran on %s", q)
			}
			if in.SearchText != "key rate" || in.Query != "key rate in 2026" {
				t.Errorf("judge query %q / %q", in.Query, in.SearchText)
			}
			mu.Lock()
			attempts[in.From]++
			n := attempts[in.From]
			mu.Unlock()
			if in.From == 9 && n < 3 {
				return activities.JudgeResult{}, errors.New("llm: server error: 500")
			}
			return grades(in), nil
		})
	f.summarize = func() (activities.SummarizeResult, error) {
		return activities.SummarizeResult{Brief: schemas.Brief{Method: "llm:test"}, Markdown: "llm summary"}, nil
	}
	env.ExecuteWorkflow(Ask, AskInput{Index: "news", AsOfToday: true, Query: "key rate in 2026", Judge: &JudgeOptions{Mode: "auto", Pool: 20, Batch: 8, Failure: "keep", MaxAttempts: 4}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 3 || attempts[1] != 1 || attempts[9] != 3 || attempts[17] != 1 {
		t.Fatalf("judge attempts by batch %v, want batches 1, 9, 17 with 9 retried twice", attempts)
	}
	c := f.composed
	if len(c.Verdicts) != 20 || len(c.Unjudged) != 0 || !c.Keep {
		t.Fatalf("compose got %d verdicts, unjudged %v, keep %v", len(c.Verdicts), c.Unjudged, c.Keep)
	}
	rep := c.Report
	if rep.Method != "llm:test" || rep.Batches != 3 || rep.Judged != 20 || rep.FailedBatches != 0 || rep.Policy != "keep" {
		t.Fatalf("report %+v", rep)
	}
	if f.saved.SummaryMethod != "llm:test" || f.saved.Summary != "llm summary" {
		t.Fatalf("saved answer kept %q (%s), want the LLM summary", f.saved.Summary, f.saved.SummaryMethod)
	}
	for step, q := range map[string]string{"candidates": TaskQueue, "compose": TaskQueue, "summarize": config.QueueLLM, "save": TaskQueue} {
		if f.queues[step] != q {
			t.Errorf("%s ran on %q, want %s", step, f.queues[step], q)
		}
	}
}

// TestAskJudgeFailurePolicy: a batch that fails on every attempt is kept unjudged, dropped, or
// fails the answer, as asked, and the report says why it failed; a configuration error fails
// it whatever the policy, at once.
func TestAskJudgeFailurePolicy(t *testing.T) {
	for _, tc := range []struct {
		policy   string
		config   bool
		wantErr  bool
		wantKeep bool
		attempts int
	}{
		{policy: "keep", wantKeep: true, attempts: 2},
		{policy: "drop", attempts: 2},
		{policy: "fail", wantErr: true, attempts: 2},
		{policy: "keep", config: true, wantErr: true, attempts: 1},
	} {
		t.Run(fmt.Sprintf("%s/config=%v", tc.policy, tc.config), func(t *testing.T) {
			env := newEnv(t)
			f := mockAsk(t, env, 10)
			var mu sync.Mutex
			bad := 0
			env.OnActivity(a.Judge, mock.Anything, mock.Anything).Return(
				func(ctx context.Context, in activities.JudgeInput) (activities.JudgeResult, error) {
					if in.From != 6 {
						return grades(in), nil
					}
					mu.Lock()
					bad++
					mu.Unlock()
					if tc.config {
						return activities.JudgeResult{}, temporal.NewNonRetryableApplicationError("no LLM", activities.ErrTypeConfig, nil)
					}
					return activities.JudgeResult{}, errors.New("llm: bad response: not JSON")
				})
			env.ExecuteWorkflow(Ask, AskInput{Index: "news", AsOfToday: true, Query: "key rate", Judge: &JudgeOptions{Mode: "llm", Pool: 10, Batch: 5, Failure: tc.policy, MaxAttempts: 2}})
			err := env.GetWorkflowError()
			if bad != tc.attempts {
				t.Fatalf("the failing batch ran %d times, want %d", bad, tc.attempts)
			}
			if tc.wantErr {
				if err == nil {
					t.Fatal("the answer succeeded")
				}
				env.AssertNotCalled(t, "Compose", mock.Anything, mock.Anything)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := f.composed
			if !slices.Equal(c.Unjudged, []int{6, 7, 8, 9, 10}) || c.Keep != tc.wantKeep || len(c.Verdicts) != 5 {
				t.Fatalf("compose: unjudged %v keep %v verdicts %d", c.Unjudged, c.Keep, len(c.Verdicts))
			}
			if r := c.Report; r.FailedBatches != 1 || r.Failed != 5 || r.Judged != 5 || r.Batches != 2 ||
				r.Reason != "candidates 6..10: llm: bad response: not JSON" {
				t.Fatalf("report %+v", r)
			}
		})
	}
}

// TestAskJudgeOffAndSummaryFallback: judging off sends every candidate on unjudged and kept;
// an LLM summary that fails after its retries leaves the extractive summary with a note; one
// that failed its checks (final at temperature 0) is not retried and its note says so.
func TestAskJudgeOffAndSummaryFallback(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		calls int
		note  string
	}{
		{name: "a failure retried", err: errors.New("llm: server error 500"), calls: 2, note: "failed after every retry (llm: server error 500)"},
		{name: "failed its checks", err: temporal.NewNonRetryableApplicationError("brief: digest: the reply failed its checks again after a repair turn", activities.ErrTypeBadSummary, nil),
			calls: 1, note: "failed its checks (brief: digest: the reply failed its checks again after a repair turn)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			f := mockAsk(t, env, 4)
			calls := 0
			f.summarize = func() (activities.SummarizeResult, error) {
				calls++
				return activities.SummarizeResult{}, tc.err
			}
			env.ExecuteWorkflow(Ask, AskInput{Index: "news", AsOfToday: true, Query: "key rate", Judge: &JudgeOptions{Mode: "off", Pool: 4, Batch: 2, Failure: "drop", MaxAttempts: 2}})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			env.AssertNotCalled(t, "Judge", mock.Anything, mock.Anything)
			c := f.composed
			if !slices.Equal(c.Unjudged, []int{1, 2, 3, 4}) || !c.Keep || c.Report.Method != "off" {
				t.Fatalf("compose %+v", c)
			}
			if f.saved.SummaryMethod != "extractive" || f.saved.Brief == nil || !strings.Contains(f.saved.Brief.Note, tc.note) || calls != tc.calls {
				t.Fatalf("saved %+v after %d summarize calls; want the note %q after %d", f.saved, calls, tc.note, tc.calls)
			}
		})
	}
}

// TestAskRejectsBadJudgeOptions before any work.
func TestAskRejectsBadJudgeOptions(t *testing.T) {
	env := newEnv(t)
	mockAsk(t, env, 4)
	env.ExecuteWorkflow(Ask, AskInput{Index: "news", AsOfToday: true, Query: "x", Judge: &JudgeOptions{Mode: "maybe", Pool: 4, Batch: 2, Failure: "keep", MaxAttempts: 1}})
	if err := env.GetWorkflowError(); err == nil {
		t.Fatal("a bad judge mode was accepted")
	}
	env.AssertNotCalled(t, "Candidates", mock.Anything, mock.Anything)
}

// TestAskSummarizeHasRoomForTwoLocalCalls: the summary is a reply and maybe a repair turn, each
// up to --llm local's 5-minute request timeout: its activity gets 15 minutes on asof-llm and a
// 1-minute heartbeat (a lost worker is seen soon), where the judge's calls keep 5 minutes.
func TestAskSummarizeHasRoomForTwoLocalCalls(t *testing.T) {
	env := newEnv(t)
	env.OnGetVersion("ask-local", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion) // the judge on asof-llm
	f := mockAsk(t, env, 4)
	var judgeInfo activity.Info
	env.OnActivity(a.Judge, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.JudgeInput) (activities.JudgeResult, error) {
			judgeInfo = activity.GetInfo(ctx)
			return grades(in), nil
		})
	f.summarize = func() (activities.SummarizeResult, error) {
		return activities.SummarizeResult{Brief: schemas.Brief{Method: "llm:test"}, Markdown: "llm summary"}, nil
	}
	env.ExecuteWorkflow(Ask, AskInput{Index: "news", AsOfToday: true, Query: "key rate", Judge: &JudgeOptions{Mode: "llm", Pool: 4, Batch: 4, Failure: "keep", MaxAttempts: 4}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if f.saved.SummaryMethod != "llm:test" {
		t.Fatalf("summary method %q, want the LLM's", f.saved.SummaryMethod)
	}
	sumInfo := f.sumInfo
	if got := sumInfo.Deadline.Sub(sumInfo.StartedTime).Round(time.Second); sumInfo.TaskQueue != config.QueueLLM || got != summarizeTimeout || sumInfo.HeartbeatTimeout != time.Minute {
		t.Errorf("Summarize on %s with %v to run and heartbeat %v; want asof-llm, %v, 1m", sumInfo.TaskQueue, got, sumInfo.HeartbeatTimeout, summarizeTimeout)
	}
	if got := judgeInfo.Deadline.Sub(judgeInfo.StartedTime).Round(time.Second); got != 5*time.Minute || judgeInfo.HeartbeatTimeout != 0 {
		t.Errorf("Judge with %v to run and heartbeat %v; want 5m and none", got, judgeInfo.HeartbeatTimeout)
	}
}
