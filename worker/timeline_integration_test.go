package worker_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// TestTimelineThroughRealServer builds timelines of a toy index on the real Temporal server
// and S3 gateway: the day three documents report (by "ayer", by a date, by a weekday) comes
// first, and as of every day of the corpus no day, sentence or document after the anchor
// appears (the as-of invariant, over anchors). With -update-history its history becomes the
// replay fixture timeline.json.
func TestTimelineThroughRealServer(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "timeline-it")
	ctx := runToyWorker(t, b, "timeline-it")
	rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	putParquet(t, b, "corpora/tl.parquet", []fixtureRow{
		{"a", "2011-02-18", "Ayer murieron 24 personas en Bengasi durante el Día de la Ira en Libia.", "es.example"},
		{"b", "2011-02-19", "El 17 de febrero, la protesta en Libia dejó 24 muertos en Bengasi.", "es2.example"},
		{"c", "2011-02-18", "Le jeudi, la journée de colère en Libye a fait 24 morts à Benghazi.", "fr.example"},
		{"d", "2011-03-20", "Libia: la coalición bombardeó ayer las tropas de Gadafi.", "es.example"},
		{"e", "2011-08-24", "Libia: los rebeldes tomaron ayer el cuartel de Gadafi en Trípoli.", "es.example"},
	})
	built := buildIndex(t, rctx, "tl-build", "tl", "corpora/tl.parquet")
	if built.Counts.Indexed != 5 {
		t.Fatalf("build counts %+v: want 5 indexed", built.Counts)
	}
	get := func(id string, in workflows.TimelineInput) schemas.Timeline {
		t.Helper()
		run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.Timeline, in)
		if err != nil {
			t.Fatal(err)
		}
		var tl schemas.Timeline
		if err := run.Get(rctx, &tl); err != nil {
			t.Fatalf("timeline %s: %v", id, err)
		}
		return tl
	}
	tl := get("timeline", workflows.TimelineInput{Index: "tl", Topic: "Libia Bengasi Gadafi", AsOf: time.Date(2011, 9, 1, 0, 0, 0, 0, time.UTC), Dates: 3})
	if len(tl.Entries) != 3 || tl.Entries[0].Day.Format(time.DateOnly) != "2011-02-17" || tl.Entries[0].Documents != 3 {
		t.Fatalf("timeline entries %+v: want 3 days, the first 2011-02-17 reported by 3 documents", tl.Entries)
	}
	stored, err := storeio.GetJSON[schemas.Timeline](rctx, b, layout.TimelineKey("timeline"))
	if err != nil || len(stored.Entries) != 3 || stored.RunID != "timeline" || stored.ManifestSeq != built.Seq {
		t.Fatalf("stored timeline %+v, %v", stored, err)
	}
	for i, day := range []string{"2011-02-17", "2011-02-18", "2011-03-19", "2011-03-20", "2011-08-23", "2011-08-24"} {
		asOf, _ := time.Parse(time.DateOnly, day)
		got := get("timeline-asof-"+day, workflows.TimelineInput{Index: "tl", Topic: "Libia", AsOf: asOf, Dates: 10, BM25Only: i%2 == 1})
		for _, e := range got.Entries {
			if e.Day.After(asOf) {
				t.Errorf("as of %s: day %s", day, e.Day.Format(time.DateOnly))
			}
			for _, c := range e.Citations {
				if c.PublishedAt.After(asOf.AddDate(0, 0, 1)) || !c.PublishedAt.Before(asOf.AddDate(0, 0, 1)) {
					t.Errorf("as of %s: a citation published %s", day, c.PublishedAt)
				}
			}
		}
	}
	run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{TaskQueue: workflows.TaskQueue}, workflows.Timeline,
		workflows.TimelineInput{Index: "tl", Topic: "Libia"})
	if err == nil {
		err = run.Get(rctx, nil)
	}
	if err == nil {
		t.Fatal("a timeline without as_of ran")
	}
	// A digest with a history: each topic's timeline beside its answer, in digest.json.
	drun, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: "digest-history", TaskQueue: workflows.TaskQueue}, workflows.Digest,
		workflows.DigestInput{Name: "libia", Index: "tl", Topics: []digest.Topic{{Name: "Libia", Query: "Libia Bengasi Gadafi"}}, AsOf: time.Date(2011, 9, 1, 0, 0, 0, 0, time.UTC),
			History: 3, Judge: &workflows.JudgeOptions{Mode: "heuristic", Pool: 20, Batch: 10, Failure: workflows.FailureKeep, MaxAttempts: 1}, Summarizer: "extractive"})
	if err != nil {
		t.Fatal(err)
	}
	var dres workflows.DigestResult
	if err := drun.Get(rctx, &dres); err != nil {
		t.Fatal(err)
	}
	d, err := storeio.GetJSON[schemas.Digest](rctx, b, dres.Keys.JSON)
	if err != nil || len(d.Topics) != 1 || len(d.Topics[0].History) != 3 || d.Topics[0].History[0].Day.Format(time.DateOnly) != "2011-02-17" {
		t.Fatalf("digest %+v, %v: want one topic with a 3-day history from 2011-02-17", d.Topics, err)
	}
	if *updateHistory {
		saveHistory(t, "timeline")
		saveHistory(t, "digest-history")
	}
}
