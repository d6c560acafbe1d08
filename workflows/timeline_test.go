package workflows

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/schemas"
)

func TestTimelineRefusesBadInput(t *testing.T) {
	day := time.Date(2011, 9, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		in   TimelineInput
		want string
	}{
		{"no topic", TimelineInput{Index: "n", Topic: "  ", AsOf: day}, "the topic is empty"},
		{"no anchor", TimelineInput{Index: "n", Topic: "Libia"}, "as_of is not set"},
		{"from after the anchor", TimelineInput{Index: "n", Topic: "Libia", AsOf: day, From: day.AddDate(0, 0, 2)}, "is after as_of"},
		{"topic too long", TimelineInput{Index: "n", Topic: strings.Repeat("x", 5000), AsOf: day}, "topic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			env.ExecuteWorkflow(Timeline, c.in)
			err := env.GetWorkflowError()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestTimelineEmbedsThenBuilds(t *testing.T) {
	env := newEnv(t)
	day := time.Date(2011, 9, 1, 15, 30, 0, 0, time.UTC)
	env.OnActivity(a.EmbedQuery, mock.Anything, activities.EmbedQueryInput{Text: "Libia", Index: "n"}).
		Return(activities.EmbedQueryResult{Vector: []float32{1, 0}, Model: schemas.ModelRef{ID: "m"}}, nil).Once()
	var got activities.TimelineInput
	env.OnActivity(a.Timeline, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.TimelineInput) (schemas.Timeline, error) {
			got = in
			return schemas.Timeline{Topic: in.Topic, Entries: []schemas.TimelineEntry{{Day: time.Date(2011, 8, 23, 0, 0, 0, 0, time.UTC)}}}, nil
		}).Once()
	env.ExecuteWorkflow(Timeline, TimelineInput{Index: "n", Topic: "Libia", AsOf: day, Dates: 5})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if !got.AsOf.Equal(time.Date(2011, 9, 1, 0, 0, 0, 0, time.UTC)) || got.Dates != 5 || len(got.Vector) != 2 || got.Model.ID != "m" || got.RunID == "" {
		t.Fatalf("Timeline activity input %+v: want the anchor's day, 5 dates, the topic's vector and the run id", got)
	}
	env.AssertExpectations(t)

	bm := newEnv(t) // BM25Only: no embedding
	bm.OnActivity(a.Timeline, mock.Anything, mock.Anything).Return(schemas.Timeline{}, nil).Once()
	bm.ExecuteWorkflow(Timeline, TimelineInput{Index: "n", Topic: "Libia", AsOf: day, BM25Only: true})
	if err := bm.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	bm.AssertExpectations(t)
}
