package activities_test

import (
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/embed/embedtest"
)

// TestQueryEmbeddingMalformedRepliesAreNotRetried: EmbedQuery and EmbedVariants fail for good
// on an embedding reply that parses but breaks the API (a retry gets the same reply), say what
// was wrong, and leave a server error to the retry policy.
func TestQueryEmbeddingMalformedRepliesAreNotRetried(t *testing.T) {
	tests := []struct {
		name         string
		reply        embedtest.Reply
		variants     bool
		wantFinal    bool
		wantMsg      string
		wantRequests int
	}{
		{name: "query: no vector", reply: embedtest.Reply{Raw: `{"data":[]}`}, wantFinal: true, wantMsg: "0 vectors for 1 inputs"},
		{name: "query: infinite value", reply: embedtest.Reply{Raw: `{"data":[{"index":0,"embedding":[1e39,2]}]}`}, wantFinal: true, wantMsg: "non-finite"},
		{name: "query: index out of range", reply: embedtest.Reply{Raw: `{"data":[{"index":3,"embedding":[1,2]}]}`}, wantFinal: true, wantMsg: "out of range"},
		{name: "query: server error is retried", reply: embedtest.Reply{Status: 503}, wantFinal: false, wantMsg: "503"},
		{name: "rephrasing: no vector", reply: embedtest.Reply{Raw: `{"data":[]}`}, variants: true, wantFinal: true, wantMsg: "rephrasing 1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return tt.reply })
			remote, err := embed.NewRemote(embed.RemoteConfig{BaseURL: srv.URL(), Model: "broken", APIKeyEnv: "ASOF_TEST_NO_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			var s testsuite.WorkflowTestSuite
			env := s.NewTestActivityEnvironment()
			env.RegisterActivity(&activities.Activities{Deps: activities.Deps{Embedder: remote}})
			var a *activities.Activities
			if tt.variants {
				_, err = env.ExecuteActivity(a.EmbedVariants, activities.EmbedVariantsInput{Queries: []string{"who won"}})
			} else {
				_, err = env.ExecuteActivity(a.EmbedQuery, activities.EmbedQueryInput{Text: "who won"})
			}
			var app *temporal.ApplicationError
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("err = %v, want one saying %q", err, tt.wantMsg)
			}
			final := errors.As(err, &app) && app.NonRetryable()
			if final != tt.wantFinal {
				t.Errorf("non-retryable = %v, want %v (err %v)", final, tt.wantFinal, err)
			}
		})
	}
}
