package workflows

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/schemas"
)

// TestAskRunsReadEmbedAnswer (runs started before the judge, version 0): the query is read on the default queue, embedded on asof-embed,
// and answered on the default queue with the anchor, reading and vector passed along; a
// transient failure of the answer step is retried.
func TestAskRunsReadEmbedAnswer(t *testing.T) {
	env := newEnv(t)
	env.OnGetVersion("ask-judge", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	env.OnGetVersion("ask-local", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	queues := sync.Map{}
	asOf := time.Date(2023, 3, 3, 15, 4, 5, 0, time.UTC)
	env.OnActivity(a.ReadQuery, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ReadQueryInput) (activities.ReadQueryResult, error) {
			queues.Store("read:"+activity.GetInfo(ctx).TaskQueue, true)
			if !in.AsOf.Equal(time.Date(2023, 3, 3, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("anchor %v, want the start of its UTC day", in.AsOf)
			}
			return activities.ReadQueryResult{Mode: "window", Text: "deal", From: time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)}, nil
		})
	env.OnActivity(a.EmbedQuery, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.EmbedQueryInput) (activities.EmbedQueryResult, error) {
			queues.Store("embed:"+activity.GetInfo(ctx).TaskQueue, true)
			if in.Text != "deal" {
				t.Errorf("embedded %q, want the read text", in.Text)
			}
			return activities.EmbedQueryResult{Vector: []float32{1, 0}, Model: schemas.ModelRef{ID: "m"}}, nil
		})
	attempts := 0
	env.OnActivity(a.Answer, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.AnswerInput) (schemas.Answer, error) {
			queues.Store("answer:"+activity.GetInfo(ctx).TaskQueue, true)
			attempts++
			if attempts == 1 {
				return schemas.Answer{}, errors.New("store hiccup")
			}
			if in.Read.Mode != "window" || len(in.Vector) != 2 || in.Model.ID != "m" || in.Options.TopNEach != 500 || in.RunID == "" {
				t.Errorf("answer input %+v", in)
			}
			return schemas.Answer{Query: in.Query, AsOf: in.AsOf, Mode: in.Read.Mode}, nil
		})
	env.ExecuteWorkflow(Ask, AskInput{Index: "news", Query: "deal in 2015", AsOf: asOf})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var ans schemas.Answer
	if err := env.GetWorkflowResult(&ans); err != nil || ans.Mode != "window" {
		t.Fatalf("answer %+v %v", ans, err)
	}
	for _, k := range []string{"read:" + TaskQueue, "embed:" + config.QueueEmbed, "answer:" + TaskQueue} {
		if _, ok := queues.Load(k); !ok {
			t.Errorf("no activity ran as %s", k)
		}
	}
	if attempts != 2 {
		t.Fatalf("answer ran %d times, want 2 (one retry)", attempts)
	}
}

// TestAskBM25SkipsEmbedding and stops on a non-retryable error without retrying it.
func TestAskBM25SkipsEmbeddingAndStopsOnBadInput(t *testing.T) {
	env := newEnv(t)
	env.OnGetVersion("ask-judge", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	env.OnActivity(a.ReadQuery, mock.Anything, mock.Anything).Return(activities.ReadQueryResult{Mode: "bm25", Text: "x"}, nil)
	calls := 0
	env.OnActivity(a.Answer, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.AnswerInput) (schemas.Answer, error) {
			calls++
			return schemas.Answer{}, temporal.NewNonRetryableApplicationError(`index "news" does not exist`, activities.ErrTypeInvalidInput, nil)
		})
	env.ExecuteWorkflow(Ask, AskInput{Index: "news", AsOfToday: true, Query: "x", Mode: "bm25"})
	err := env.GetWorkflowError()
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || calls != 1 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
	env.AssertNotCalled(t, "EmbedQuery", mock.Anything, mock.Anything)
}

// TestAskAnchor: the day an Ask answers as of is given, or the explicit "today"; a zero day
// without it, a year outside 1000..9999 and both together are refused before any activity.
// Runs started before "explicit-as-of" still read a zero day as today.
func TestAskAnchor(t *testing.T) {
	day := time.Date(2023, 3, 3, 15, 0, 0, 0, time.UTC)
	today := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) // newEnv's start time
	tests := []struct {
		name    string
		in      AskInput
		old     bool // replaying a run started before "explicit-as-of"
		want    time.Time
		refused string
	}{
		{name: "a day", in: AskInput{AsOf: day}, want: time.Date(2023, 3, 3, 0, 0, 0, 0, time.UTC)},
		{name: "today, asked for", in: AskInput{AsOfToday: true}, want: today},
		{name: "not set", in: AskInput{}, refused: "as_of is not set"},
		{name: "not set, before explicit-as-of", in: AskInput{}, old: true, want: today},
		{name: "year 0", in: AskInput{AsOf: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)}, refused: "0000-01-01 is not between"},
		{name: "year 999", in: AskInput{AsOf: time.Date(999, 12, 31, 0, 0, 0, 0, time.UTC)}, refused: "not between 1000-01-01 and 9999-12-31"},
		{name: "both", in: AskInput{AsOf: day, AsOfToday: true}, refused: "both set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			if tt.old {
				env.OnGetVersion("explicit-as-of", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
			}
			var got time.Time
			env.OnActivity(a.ReadQuery, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.ReadQueryInput) (activities.ReadQueryResult, error) {
					got = in.AsOf
					return activities.ReadQueryResult{}, temporal.NewNonRetryableApplicationError("stop here", "Stop", nil)
				}).Maybe()
			in := tt.in
			in.Index, in.Query = "news", "key rate"
			env.ExecuteWorkflow(Ask, in)
			err := env.GetWorkflowError()
			var app *temporal.ApplicationError
			if !errors.As(err, &app) {
				t.Fatalf("err = %v, want an application error", err)
			}
			if tt.refused != "" {
				if app.Type() != activities.ErrTypeInvalidInput || !strings.Contains(app.Error(), tt.refused) || !got.IsZero() {
					t.Fatalf("err = %v (type %s), ReadQuery saw %s; want %s %q before any activity", err, app.Type(), got, activities.ErrTypeInvalidInput, tt.refused)
				}
				return
			}
			if !got.Equal(tt.want) {
				t.Errorf("ReadQuery got as of %s, want %s (err %v)", got, tt.want, err)
			}
		})
	}
}
