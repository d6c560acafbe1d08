package workflows

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/schemas"
)

// newEnv returns a quiet test environment starting at a fixed time.
func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivity(&activities.Activities{})
	env.SetStartTime(time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC))
	return env
}

// healthyStore mocks a store that returns the probe written, passed through readBack.
func healthyStore(env *testsuite.TestWorkflowEnvironment, readBack func(p schemas.HealthProbe) schemas.HealthProbe) {
	var written schemas.HealthProbe
	env.OnActivity(a.WriteProbe, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.WriteProbeInput) (activities.WriteProbeResult, error) {
			written = in.Probe
			return activities.WriteProbeResult{Key: in.Key, Bytes: 1100, ETag: "e1", Store: "mem://"}, nil
		}).Once()
	env.OnActivity(a.ReadProbe, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ReadProbeInput) (activities.ReadProbeResult, error) {
			return activities.ReadProbeResult{Probe: readBack(written), Bytes: 1100, ETag: "e1"}, nil
		}).Once()
}

func pingAnswers(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(a.Ping, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ activities.PingInput) (activities.PingResult, error) {
			return activities.PingResult{TaskQueue: "q", Identity: "test-worker"}, nil
		})
}

func same(p schemas.HealthProbe) schemas.HealthProbe { return p }

func TestHealthCheckSucceeds(t *testing.T) {
	env := newEnv(t)
	healthyStore(env, same)
	env.OnActivity(a.DeleteProbe, mock.Anything, activities.DeleteProbeInput{Key: "checks/default-test-run-id.json"}).Return(activities.DeleteProbeResult{Gone: true}, nil).Once()
	pingAnswers(env)

	env.ExecuteWorkflow(HealthCheck, HealthCheckInput{Prefix: "/checks/"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res HealthCheckResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Key != "checks/default-test-run-id.json" || res.Bytes != 1100 || res.Store != "mem://" {
		t.Fatalf("result = %+v", res)
	}
	if !res.WrittenAt.Equal(time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)) {
		t.Fatalf("WrittenAt = %v, want the workflow's start time", res.WrittenAt)
	}
	if len(res.Queues) != len(config.AllQueues) {
		t.Fatalf("pinged %d queues, want %d", len(res.Queues), len(config.AllQueues))
	}
	env.AssertExpectations(t)
}

func TestHealthCheckDetectsCorruptedProbe(t *testing.T) {
	env := newEnv(t)
	healthyStore(env, func(p schemas.HealthProbe) schemas.HealthProbe { p.Payload = p.Payload[1:]; return p })
	env.ExecuteWorkflow(HealthCheck, HealthCheckInput{})
	err := env.GetWorkflowError()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != ErrTypeHealth || !strings.Contains(err.Error(), "came back different") {
		t.Fatalf("err = %v, want a %s error", err, ErrTypeHealth)
	}
	env.AssertNotCalled(t, "DeleteProbe", mock.Anything, mock.Anything)
}

func TestHealthCheckRetriesTransientStoreErrors(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(a.WriteProbe, mock.Anything, mock.Anything).Return(activities.WriteProbeResult{}, errors.New("connection reset")).Times(2)
	healthyStore(env, same)
	env.OnActivity(a.DeleteProbe, mock.Anything, mock.Anything).Return(activities.DeleteProbeResult{Gone: true}, nil)
	pingAnswers(env)
	env.ExecuteWorkflow(HealthCheck, HealthCheckInput{Queues: []string{config.QueueDefault}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("two transient failures should be retried: %v", err)
	}
	env.AssertNumberOfCalls(t, "WriteProbe", 3)
}

func TestHealthCheckNamesUnservedQueues(t *testing.T) {
	env := newEnv(t)
	healthyStore(env, same)
	env.OnActivity(a.DeleteProbe, mock.Anything, mock.Anything).Return(activities.DeleteProbeResult{Gone: true}, nil)
	env.OnActivity(a.Ping, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ activities.PingInput) (activities.PingResult, error) {
			return activities.PingResult{}, temporal.NewTimeoutError(0, nil) // what a ScheduleToStart timeout looks like
		})
	env.ExecuteWorkflow(HealthCheck, HealthCheckInput{Queues: []string{config.QueueLLM}, QueueTimeout: time.Second})
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "asof-llm") || !strings.Contains(err.Error(), "asof worker --task-queues asof-llm") {
		t.Fatalf("err = %v, want one naming the queue and how to serve it", err)
	}
}
