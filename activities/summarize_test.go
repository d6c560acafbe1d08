package activities_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/llm/llmtest"
	"github.com/asofrag/asof/schemas"
)

// TestSummarizeBadBriefIsFinalAtTemperatureZero: a brief that fails its checks after the
// repair turn is a final BadSummary error at temperature 0 (the same prompt would get the same
// reply), and an ordinary retryable error at a temperature above 0.
func TestSummarizeBadBriefIsFinalAtTemperatureZero(t *testing.T) {
	b, _ := blob.NewLocal(t.TempDir())
	// Every reply cites a block the context lacks: the check and the repair both fail.
	srv := llmtest.Start(t, llmtest.Text(`{"not_enough":false,"new":[],"timeline":[{"date":"2025-09-01","text":"Ставка 18%.","cites":[9]}]}`))
	in := activities.SummarizeInput{Query: "ставка", AsOf: time.Date(2025, 9, 4, 0, 0, 0, 0, time.UTC), NewDays: 7,
		Blocks: []schemas.ContextBlock{{N: 1, DocID: "d1", PublishedAt: time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC), Title: "Ставка", Snippet: "Ставка 18%."}}}
	for _, tc := range []struct {
		temperature float64
		final       bool
	}{{0, true}, {0.7, false}} {
		acts, env := llmActivities(t, b, llm.Config{BaseURL: srv.URL(), Model: "fake", Timeout: 2 * time.Second, Temperature: tc.temperature})
		_, err := env.ExecuteActivity(acts.Summarize, in)
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || !strings.Contains(err.Error(), "there is no document [9]") {
			t.Fatalf("temperature %v: %v, want the check's problem", tc.temperature, err)
		}
		if final := app.Type() == activities.ErrTypeBadSummary && app.NonRetryable(); final != tc.final {
			t.Errorf("temperature %v: type %q, non-retryable %v; want final %v", tc.temperature, app.Type(), app.NonRetryable(), tc.final)
		}
	}
}
