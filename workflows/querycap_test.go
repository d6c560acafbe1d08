package workflows

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/querycap"
)

// TestWorkflowsRefuseLongQueries: Ask and Digest refuse a query over querycap.MaxBytes at once,
// non-retryably, naming it (a 1 MB topic used to end the digest's child with only
// "terminated"); no activity or child runs.
func TestWorkflowsRefuseLongQueries(t *testing.T) {
	long := strings.Repeat("x", querycap.MaxBytes+1)
	asOf := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		run  func(env interface {
			ExecuteWorkflow(any, ...any)
		})
		want string
	}{
		{name: "ask", want: "the query is 4097 bytes", run: func(env interface{ ExecuteWorkflow(any, ...any) }) {
			env.ExecuteWorkflow(Ask, AskInput{Index: "news", Query: long, AsOf: asOf})
		}},
		{name: "digest, third topic", want: "the query of topic 3 (Long) is 1048576 bytes", run: func(env interface{ ExecuteWorkflow(any, ...any) }) {
			env.ExecuteWorkflow(Digest, DigestInput{Name: "d", Index: "news", AsOf: asOf, Topics: []digest.Topic{
				{Name: "A", Query: "a"}, {Name: "B", Query: "b"}, {Name: "Long", Query: strings.Repeat("я", 1<<19)}}})
		}},
		{name: "digest, too many topics", want: "51 topics: a digest takes at most 50", run: func(env interface{ ExecuteWorkflow(any, ...any) }) {
			var tops []digest.Topic
			for i := range digest.MaxTopics + 1 {
				tops = append(tops, digest.Topic{Name: strings.Repeat("t", i+1), Query: "q"})
			}
			env.ExecuteWorkflow(Digest, DigestInput{Name: "d", Index: "news", AsOf: asOf, Topics: tops})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			env.RegisterWorkflow(Ask)
			tt.run(env)
			err := env.GetWorkflowError()
			var app *temporal.ApplicationError
			if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != activities.ErrTypeInvalidInput || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want a non-retryable invalid input naming %q", err, tt.want)
			}
		})
	}
}
