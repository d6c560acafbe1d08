package activities_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/schemas"
)

func setup(t *testing.T) (*testsuite.TestActivityEnvironment, blob.Bucket) {
	t.Helper()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Activities{Deps: activities.Deps{Bucket: b, Identity: "unit"}})
	return env, b
}

var a *activities.Activities

func TestProbeRoundTrip(t *testing.T) {
	env, b := setup(t)
	probe := schemas.HealthProbe{Version: schemas.HealthProbeVersion, WorkflowID: "w", RunID: "r", WrittenAt: time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC), Payload: "xyz"}

	v, err := env.ExecuteActivity(a.WriteProbe, activities.WriteProbeInput{Key: "health/r.json", Probe: probe})
	if err != nil {
		t.Fatal(err)
	}
	var wrote activities.WriteProbeResult
	if err := v.Get(&wrote); err != nil || wrote.Bytes == 0 || wrote.ETag == "" || !strings.HasPrefix(wrote.Store, "file://") {
		t.Fatalf("write = %+v, %v", wrote, err)
	}

	v, err = env.ExecuteActivity(a.ReadProbe, activities.ReadProbeInput{Key: "health/r.json"})
	if err != nil {
		t.Fatal(err)
	}
	var read activities.ReadProbeResult
	if err := v.Get(&read); err != nil || !read.Probe.Equal(probe) || read.Bytes != wrote.Bytes || read.ETag != wrote.ETag {
		t.Fatalf("read = %+v, %v; wrote %+v", read, err, wrote)
	}

	if _, err := env.ExecuteActivity(a.DeleteProbe, activities.DeleteProbeInput{Key: "health/r.json"}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := b.Exists(context.Background(), "health/r.json"); ok {
		t.Fatal("probe still there after DeleteProbe")
	}
}

func TestProbeErrorsAreClassified(t *testing.T) {
	env, b := setup(t)
	ctx := context.Background()
	b.Put(ctx, "garbage.json", strings.NewReader("{not json"))
	b.Put(ctx, "future.json", strings.NewReader(`{"version": 99}`))
	tests := []struct {
		name     string
		run      func() error
		wantType string // "" means retryable (no application error type)
	}{
		{"bad key", func() error {
			_, err := env.ExecuteActivity(a.WriteProbe, activities.WriteProbeInput{Key: "../escape.json"})
			return err
		}, activities.ErrTypeInvalidInput},
		{"not JSON", func() error {
			_, err := env.ExecuteActivity(a.ReadProbe, activities.ReadProbeInput{Key: "garbage.json"})
			return err
		}, activities.ErrTypeMismatch},
		{"unknown version", func() error {
			_, err := env.ExecuteActivity(a.ReadProbe, activities.ReadProbeInput{Key: "future.json"})
			return err
		}, activities.ErrTypeMismatch},
		{"missing probe is retryable", func() error {
			_, err := env.ExecuteActivity(a.ReadProbe, activities.ReadProbeInput{Key: "never.json"})
			return err
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil {
				t.Fatal("no error")
			}
			var appErr *temporal.ApplicationError
			if !errors.As(err, &appErr) {
				t.Fatalf("err = %v, not an application error", err)
			}
			if tt.wantType == "" {
				if appErr.NonRetryable() {
					t.Fatalf("err = %v, want retryable", err)
				}
				return
			}
			if appErr.Type() != tt.wantType || !appErr.NonRetryable() {
				t.Fatalf("err type %q (non-retryable %v), want non-retryable %q", appErr.Type(), appErr.NonRetryable(), tt.wantType)
			}
		})
	}
}

func TestPingNamesItsQueue(t *testing.T) {
	env, _ := setup(t)
	v, err := env.ExecuteActivity(a.Ping, activities.PingInput{})
	if err != nil {
		t.Fatal(err)
	}
	var p activities.PingResult
	if err := v.Get(&p); err != nil || p.Identity != "unit" || p.TaskQueue == "" {
		t.Fatalf("ping = %+v, %v", p, err)
	}
}
