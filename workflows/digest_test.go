package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/schemas"
)

// TestDigestAsksEveryTopicAndReportsFailures: without an anchor the plan gets the workflow's
// own time; every topic is asked as of the planned day as a child Ask named after the digest;
// a failed topic is reported in the digest instead of failing it.
func TestDigestAsksEveryTopicAndReportsFailures(t *testing.T) {
	for _, version := range []workflow.Version{workflow.DefaultVersion, 1} { // the old limiter, fanOut
		t.Run(fmt.Sprintf("version %d", version), func(t *testing.T) {
			env := newEnv(t)
			env.RegisterWorkflow(Ask)
			env.OnGetVersion(fanOutVersion, workflow.DefaultVersion, 1).Return(version)
			day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
			env.OnActivity(a.PlanDigest, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.PlanDigestInput) (activities.PlanDigestResult, error) {
					if !in.AsOf.IsZero() || !in.Now.Equal(time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)) || in.TimeZone != "Europe/Moscow" {
						t.Errorf("plan input %+v: want no anchor and the workflow's start time", in)
					}
					return activities.PlanDigestResult{AsOf: day, TimeZone: in.TimeZone, Name: in.Name}, nil
				})
			asked := map[string]AskInput{}
			env.OnWorkflow(Ask, mock.Anything, mock.Anything).Return(
				func(ctx workflow.Context, in AskInput) (schemas.Answer, error) {
					asked[in.Query] = in
					if in.Query == "broken" {
						return schemas.Answer{}, errors.New("index shard unreadable")
					}
					return schemas.Answer{Query: in.Query}, nil
				})
			var written activities.WriteDigestInput
			env.OnActivity(a.WriteDigest, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.WriteDigestInput) (activities.WriteDigestKeys, error) {
					written = in
					return activities.WriteDigestKeys{Markdown: "digests/morning/2026-11-22/digest.md"}, nil
				})
			topics := []digest.Topic{{Name: "Rate", Query: "key rate"}, {Name: "Broken", Query: "broken"}, {Name: "Bridge", Query: "bridge", Mode: "window"}}
			env.ExecuteWorkflow(Digest, DigestInput{Name: "morning", Index: "news", Topics: topics, TimeZone: "Europe/Moscow", Concurrency: 2})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			var res DigestResult
			if err := env.GetWorkflowResult(&res); err != nil || res.Topics != 3 || res.Failed != 1 || !res.AsOf.Equal(day) {
				t.Fatalf("result %+v %v", res, err)
			}
			if len(asked) != 3 || !asked["key rate"].AsOf.Equal(day) || asked["bridge"].Mode != "window" {
				t.Fatalf("asked %+v", asked)
			}
			if len(written.Topics) != 3 || written.Name != "morning" || !written.AsOf.Equal(day) {
				t.Fatalf("written %+v", written)
			}
			for i, r := range written.Topics {
				if r.Name != topics[i].Name || !strings.HasSuffix(r.AskRunID, []string{"-t01", "-t02", "-t03"}[i]) {
					t.Errorf("topic %d: %+v", i, r)
				}
			}
			if written.Topics[1].Error == "" || written.Topics[0].Error != "" || !strings.Contains(written.Topics[1].Error, "unreadable") {
				t.Fatalf("errors %q %q", written.Topics[0].Error, written.Topics[1].Error)
			}
		})
	}
}

// TestDigestHistory: with History, each topic also gets a child Timeline of that many days as
// of the digest's day, quiet, named after its Ask; a failed timeline is reported for its topic
// and fails nothing.
func TestDigestHistory(t *testing.T) {
	env := newEnv(t)
	env.RegisterWorkflow(Ask)
	env.RegisterWorkflow(Timeline)
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	env.OnActivity(a.PlanDigest, mock.Anything, mock.Anything).Return(activities.PlanDigestResult{AsOf: day, TimeZone: "UTC", Name: "morning"}, nil)
	env.OnWorkflow(Ask, mock.Anything, mock.Anything).Return(schemas.Answer{}, nil)
	timelines := map[string]TimelineInput{}
	env.OnWorkflow(Timeline, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in TimelineInput) (schemas.Timeline, error) {
			timelines[in.Topic] = in
			if in.Topic == "broken" {
				return schemas.Timeline{}, errors.New("no shard")
			}
			return schemas.Timeline{Topic: in.Topic}, nil
		})
	var written activities.WriteDigestInput
	env.OnActivity(a.WriteDigest, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.WriteDigestInput) (activities.WriteDigestKeys, error) {
			written = in
			return activities.WriteDigestKeys{}, nil
		})
	topics := []digest.Topic{{Name: "Rate", Query: "key rate"}, {Name: "Broken", Query: "broken"}}
	env.ExecuteWorkflow(Digest, DigestInput{Name: "morning", Index: "news", Topics: topics, History: 8})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if in := timelines["key rate"]; len(timelines) != 2 || !in.AsOf.Equal(day) || in.Dates != 8 || !in.Quiet || in.Index != "news" {
		t.Fatalf("timelines %+v", timelines)
	}
	r0, r1 := written.Topics[0], written.Topics[1]
	if !strings.HasSuffix(r0.HistoryRunID, "-t01-history") || r0.HistoryError != "" || !strings.Contains(r1.HistoryError, "no shard") || r1.Error != "" {
		t.Fatalf("written topics %+v %+v", r0, r1)
	}
}
