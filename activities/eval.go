package activities

import (
	"context"
	"io"
	"time"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/report"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// PlanEvalInput names the question and judgement files in the store.
type PlanEvalInput struct {
	EvalID       string `json:"eval_id"`
	QuestionsKey string `json:"questions_key"`
	QrelsKey     string `json:"qrels_key"`
	// Unlabelled reads QuestionsKey in the query layout (query_id, query, anchor_date) and
	// evaluates context freshness only; QrelsKey is then empty.
	Unlabelled bool `json:"unlabelled"`
	// Limit keeps at most this many judged questions (0: all), sampled with Seed.
	Limit     int    `json:"limit"`
	Seed      uint64 `json:"seed"`
	BatchSize int    `json:"batch_size"`
	// From and To keep questions dated in that range (zero: unbounded), e.g. the index's span.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Store writes each batch's questions to layout.EvalPlanKey and returns only their count
	// (BatchCount): the question list never enters the workflow's history, whatever its size.
	Store bool `json:"store,omitempty"`
}

// PlanEvalResult lists the batches, or with Store counts the batches written to the store.
type PlanEvalResult struct {
	Batches    [][]evalrun.Planned `json:"batches,omitempty"`
	BatchCount int                 `json:"batch_count,omitempty"`
	// Questions are the judged questions kept; Unjudged had no qrels rows.
	Questions int `json:"questions"`
	Unjudged  int `json:"unjudged"`
	OutOfSpan int `json:"out_of_span"`
}

// PlanEval reads the questions and qrels, keeps questions with judgements (inside [From, To]),
// samples Limit of them deterministically, and splits them into batches.
func (a *Activities) PlanEval(ctx context.Context, in PlanEvalInput) (PlanEvalResult, error) {
	queries, qs, qrels, err := a.questionSet(ctx, in.Unlabelled, in.QuestionsKey, in.QrelsKey)
	if err != nil {
		return PlanEvalResult{}, err
	}
	judged := evalrun.JudgedIDs(qrels)
	if in.Unlabelled {
		qs, judged = evalrun.Unlabelled(queries)
	}
	if err := evalrun.CheckQuestions(qs); err != nil {
		return PlanEvalResult{}, invalid(err)
	}
	plan, err := evalrun.PlanQuestions(qs, judged, evalrun.PlanOptions{From: in.From, To: in.To, Limit: in.Limit, Seed: in.Seed, BatchSize: in.BatchSize})
	res := PlanEvalResult{Questions: plan.Questions, Unjudged: plan.Unjudged, OutOfSpan: plan.OutOfSpan}
	if err != nil {
		return res, invalid(err)
	}
	if !in.Store {
		res.Batches = plan.Batches
		return res, nil
	}
	for n, batch := range plan.Batches {
		if err := storeio.PutJSON(ctx, a.Bucket, layout.EvalPlanKey(in.EvalID, n), batch); err != nil {
			return res, err
		}
	}
	res.BatchCount = len(plan.Batches)
	return res, nil
}

// plannedBatch reads the questions PlanEval stored for one batch.
func (a *Activities) plannedBatch(ctx context.Context, key string) ([]evalrun.Planned, error) {
	qs, err := storeio.GetJSON[[]evalrun.Planned](ctx, a.Bucket, key)
	return qs, invalidIfMissing(err, "the evaluation plan")
}

// questionSet reads a query set: unlabelled queries (query_id, query, anchor_date) at
// questionsKey, or judged questions there with their qrels at qrelsKey. A missing file is bad
// input.
func (a *Activities) questionSet(ctx context.Context, unlabelled bool, questionsKey, qrelsKey string) (queries []schemas.EvalQuery, qs []schemas.EvalQuestion, qrels []schemas.Qrel, err error) {
	if unlabelled {
		queries, err = storeio.GetParquet[schemas.EvalQuery](ctx, a.Bucket, questionsKey)
		return queries, nil, nil, invalidIfMissing(err, "queries")
	}
	if qs, err = storeio.GetParquet[schemas.EvalQuestion](ctx, a.Bucket, questionsKey); err != nil {
		return nil, nil, nil, invalidIfMissing(err, "questions")
	}
	qrels, err = storeio.GetParquet[schemas.Qrel](ctx, a.Bucket, qrelsKey)
	return nil, qs, qrels, invalidIfMissing(err, "qrels")
}

// EmbedTextsInput are texts to embed as queries.
type EmbedTextsInput struct {
	Texts []string `json:"texts"`
	// PlanKey, when set, names a batch PlanEval stored: its texts (evalrun.Texts) are embedded
	// and Texts is empty.
	PlanKey string `json:"plan_key,omitempty"`
	// Key, when set, is where the vectors are stored (vecindex's file format) instead of being
	// returned into the workflow's history (about 5 KB a question, twice: here and EvalBatch's input).
	Key string `json:"key"`
	// Index, when set, is the index evaluated: the texts are embedded with its model, as
	// EmbedQueryInput.Index says.
	Index string `json:"index,omitempty"`
}

// EmbedTextsResult are the vectors, in order, or the key they were stored at, and the model.
type EmbedTextsResult struct {
	Vectors [][]float32      `json:"vectors"`
	Key     string           `json:"key"`
	Model   schemas.ModelRef `json:"model"`
}

// EmbedTexts embeds a batch of queries on the asof-embed queue, with the model in.Index was
// built with where this worker can load it (as EmbedQuery).
func (a *Activities) EmbedTexts(ctx context.Context, in EmbedTextsInput) (EmbedTextsResult, error) {
	e, model, release, err := a.queryEmbedder(ctx, in.Index)
	if err != nil {
		return EmbedTextsResult{}, err
	}
	defer release()
	if in.PlanKey != "" {
		batch, err := a.plannedBatch(ctx, in.PlanKey)
		if err != nil {
			return EmbedTextsResult{}, err
		}
		in.Texts = evalrun.Texts(batch)
	}
	v, err := e.EmbedQueries(ctx, in.Texts)
	if err != nil {
		return EmbedTextsResult{}, err
	}
	if in.Key == "" {
		return EmbedTextsResult{Vectors: v, Model: model}, nil
	}
	if err := storeio.PutVectors(ctx, a.Bucket, in.Key, model.ID, v); err != nil {
		return EmbedTextsResult{}, err
	}
	return EmbedTextsResult{Key: in.Key, Model: model}, nil
}

// EvalBatchInput is one batch of questions with their vectors.
type EvalBatchInput struct {
	EvalID    string            `json:"eval_id"`
	Batch     int               `json:"batch"`
	Index     string            `json:"index"`
	QrelsKey  string            `json:"qrels_key"`
	Systems   []string          `json:"systems"`
	Questions []evalrun.Planned `json:"questions"`
	// PlanKey, when set, names the batch's questions in the store (Questions is then empty).
	PlanKey string      `json:"plan_key,omitempty"`
	Vectors [][]float32 `json:"vectors"`
	// VectorsKey, when set, is where EmbedTexts stored the vectors (Vectors is then empty).
	VectorsKey string           `json:"vectors_key"`
	Model      schemas.ModelRef `json:"model"`
}

// EvalBatchResult says where the batch's rows are.
type EvalBatchResult struct {
	Key  string `json:"key"`
	Rows int    `json:"rows"`
	// Resumed is set when the rows were already stored by an earlier attempt or run.
	Resumed bool `json:"resumed"`
}

// EvalBatch answers every question of a batch with every system (ranked documents: a
// document's rank is its best chunk's), scores them against the qrels and stores the rows.
// A batch already stored is not run again.
func (a *Activities) EvalBatch(ctx context.Context, in EvalBatchInput) (_ EvalBatchResult, err error) {
	defer func() { a.Metrics.EvalBatch(err) }()
	key := layout.EvalBatchKey(in.EvalID, in.Batch)
	if in.PlanKey != "" {
		if in.Questions, err = a.plannedBatch(ctx, in.PlanKey); err != nil {
			return EvalBatchResult{}, err
		}
	}
	if ok, err := a.Bucket.Exists(ctx, key); err != nil {
		return EvalBatchResult{}, err
	} else if ok {
		return EvalBatchResult{Key: key, Rows: len(in.Questions) * len(in.Systems), Resumed: true}, nil
	}
	if in.VectorsKey != "" {
		f, err := storeio.GetVectors(ctx, a.Bucket, in.VectorsKey)
		if err != nil {
			return EvalBatchResult{}, invalidIfMissing(err, "query vectors")
		}
		in.Vectors = storeio.Rows(f)
	}
	qrels, err := storeio.GetParquetIfSet[schemas.Qrel](ctx, a.Bucket, in.QrelsKey)
	if err != nil {
		return EvalBatchResult{}, err
	}
	// One vector per question, then one per AutoText (workflows.questionsOf's layout).
	b, err := evalrun.NewBatch(in.Systems, in.Questions, in.Vectors, qrels)
	if err != nil {
		return EvalBatchResult{}, invalid(err)
	}
	all := retrieve.Bounds{Hi: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
	loaded, _, err := a.loadShards(ctx, in.Index, &in.Model, all)
	if err != nil {
		return EvalBatchResult{}, err
	}
	defer loaded.Release()
	b.Shards, b.Heartbeat = loaded.Shards, func(qi int) { heartbeat(ctx, qi) }
	if a.Reranker != nil { // every system reranks, as ask does with the same configuration
		b.Rerank = func(query string, o retrieve.Options, r answer.Ranking) (answer.Ranking, error) {
			return a.rerankRanking(ctx, query, o, r)
		}
	}
	rows, err := b.Rows()
	if err != nil {
		return EvalBatchResult{}, err
	}
	if err := storeio.PutParquet(ctx, a.Bucket, key, rows); err != nil {
		return EvalBatchResult{}, err
	}
	return EvalBatchResult{Key: key, Rows: len(rows)}, nil
}

// FinishEvalInput names the batches of an evaluation.
type FinishEvalInput struct {
	EvalID    string   `json:"eval_id"`
	Index     string   `json:"index"`
	Systems   []string `json:"systems"`
	BatchKeys []string `json:"batch_keys"`
	// Batches, when BatchKeys is empty, counts the batches: their keys are
	// layout.EvalBatchKey(EvalID, 0…Batches−1).
	Batches   int `json:"batches,omitempty"`
	Questions int `json:"questions"`
	// Unlabelled is set for a query set without judgements: freshness only.
	Unlabelled bool `json:"unlabelled"`
	// Generated stamps the report (the workflow's time; activities never read the clock for it).
	Generated time.Time `json:"generated"`
}

// FinishEvalResult names the outputs.
type FinishEvalResult struct {
	SummaryKey  string              `json:"summary_key"`
	PerQueryKey string              `json:"per_query_key"`
	ReportKey   string              `json:"report_key"`
	Summary     evalrun.SummaryFile `json:"summary"`
}

// FinishEval gathers every batch's rows into per_query.parquet and summary.json.
func (a *Activities) FinishEval(ctx context.Context, in FinishEvalInput) (FinishEvalResult, error) {
	keys := in.BatchKeys
	if len(keys) == 0 {
		for n := range in.Batches {
			keys = append(keys, layout.EvalBatchKey(in.EvalID, n))
		}
	}
	rows, err := storeio.GetParquetAll[schemas.EvalRow](ctx, a.Bucket, keys)
	if err != nil {
		return FinishEvalResult{}, err
	}
	res := FinishEvalResult{SummaryKey: layout.EvalSummaryKey(in.EvalID), PerQueryKey: layout.EvalPerQueryKey(in.EvalID)}
	if err := storeio.PutParquet(ctx, a.Bucket, res.PerQueryKey, rows); err != nil {
		return res, err
	}
	res.Summary = evalrun.SummaryFile{Index: in.Index, EvalID: in.EvalID, Questions: in.Questions,
		Summary: evalrun.Summarize(rows, in.Systems, in.Unlabelled), Unlabelled: in.Unlabelled, Order: in.Systems}
	if err := storeio.PutIndentedJSON(ctx, a.Bucket, res.SummaryKey, res.Summary); err != nil {
		return res, err
	}
	// The HTML report: metric table, bars per system, the corpus's documents per period, and
	// the age of retrieved results.
	ri := evalrun.ReportInput{EvalID: in.EvalID, Index: in.Index, Systems: in.Systems, Summaries: res.Summary.Systems, Questions: in.Questions,
		Unlabelled: in.Unlabelled, Generated: in.Generated, Rows: rows}
	if m, err := a.currentManifest(ctx, in.Index); err == nil {
		ri.Manifest = &m
	}
	rep, key := evalrun.Report(ri), layout.EvalReportKey(in.EvalID)
	if err := storeio.PutWritten(ctx, a.Bucket, key, func(w io.Writer) error { return report.WriteEval(w, rep) }); err != nil {
		return res, err
	}
	res.ReportKey = key
	return res, nil
}
