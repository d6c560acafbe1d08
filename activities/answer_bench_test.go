package activities_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// BenchmarkAnswerRealtimeQA measures one full answer (retrieve over every shard in the mask,
// fold duplicates, context, extractive summary) on a built index of the realtimeqa documents,
// for realtimeqa questions dated inside it, with the shard cache warm. Point it at the store
// folder of an index built by `asof index` (the embedded S3 keeps objects as files):
//
//	ASOF_BENCH_STORE=.asof/s3/asof ASOF_BENCH_INDEX=rtqa make bench
//
// It reports the p50 and p95 latency of the Answer activity in ms, the mean number of results
// per answer and the index's chunk count.
func BenchmarkAnswerRealtimeQA(b *testing.B) {
	store, index := os.Getenv("ASOF_BENCH_STORE"), os.Getenv("ASOF_BENCH_INDEX")
	qfile := filepath.Join("..", "..", "shared", "data", "realtimeqa", "questions.parquet")
	if store == "" || index == "" {
		b.Skip("set ASOF_BENCH_STORE (a store folder) and ASOF_BENCH_INDEX (an index of realtimeqa docs)")
	}
	if _, err := os.Stat(qfile); err != nil {
		b.Skipf("shared data absent: %v", err)
	}
	ctx := context.Background()
	bucket, err := blob.NewLocal(store)
	if err != nil {
		b.Fatal(err)
	}
	emb := testmodel.Bench(b) // the model the index benchmark builds with
	type question struct {
		ID       string    `parquet:"question_id"`
		Date     time.Time `parquet:"question_date,timestamp(millisecond)"`
		Question string    `parquet:"question"`
	}
	qs, err := parquet.ReadFile[question](qfile)
	if err != nil {
		b.Fatal(err)
	}
	data, err := blob.ReadAll(ctx, bucket, "indexes/"+index+"/manifests/000001.json")
	if err != nil {
		b.Fatal(err)
	}
	manifest, err := schemas.DecodeManifest(data)
	if err != nil {
		b.Fatal(err)
	}
	acts := &activities.Activities{Deps: activities.Deps{Bucket: bucket, Embedder: emb}}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	// Questions dated inside 2022-06..2023-03 and after the index's first document (a small
	// index, such as the one `make bench` builds, may start later), with their vectors,
	// embedded once.
	from := time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC)
	if len(manifest.Shards) > 0 {
		first := manifest.Shards[0].MinDate
		for _, sh := range manifest.Shards {
			if sh.MinDate.Before(first) {
				first = sh.MinDate
			}
		}
		if first.After(from) {
			from = first
		}
	}
	var picked []question
	for _, q := range qs {
		if q.Date.After(from) && q.Date.Before(time.Date(2023, 3, 4, 0, 0, 0, 0, time.UTC)) && len(picked) < 40 {
			picked = append(picked, q)
		}
	}
	if len(picked) == 0 {
		b.Skipf("no question dated inside %s..2023-03-03", from.Format(time.DateOnly))
	}
	texts := make([]string, len(picked))
	for i, q := range picked {
		texts[i] = q.Question
	}
	vecs, err := emb.EmbedQueries(ctx, texts)
	if err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	results := 0
	for i := 0; b.Loop(); i++ {
		q := picked[i%len(picked)]
		began := time.Now()
		v, err := env.ExecuteActivity(acts.Answer, answerInput(index, q.Question, q.Date, vecs[i%len(picked)], manifest.Model))
		if err != nil {
			b.Fatal(err)
		}
		var ans schemas.Answer
		v.Get(&ans)
		for _, r := range ans.Results {
			if r.PublishedAt.After(q.Date) {
				b.Fatalf("leak: %s published %s for a question of %s", r.DocID, r.PublishedAt, q.Date)
			}
		}
		lat = append(lat, time.Since(began))
		results += len(ans.Results)
	}
	slices.Sort(lat)
	ms := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.95), "p95-ms")
	b.ReportMetric(float64(results)/float64(len(lat)), "results/answer")
	b.ReportMetric(float64(manifest.Counts.Chunks), "index-chunks")
}

func answerInput(index, query string, asOf time.Time, vec []float32, model schemas.ModelRef) activities.AnswerInput {
	return activities.AnswerInput{Index: index, Query: query, AsOf: asOf,
		Read:   activities.ReadQueryResult{Mode: "recency", Text: query, Interpretation: "recency"},
		Vector: vec, Model: model, Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions(),
		Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions()}
}
