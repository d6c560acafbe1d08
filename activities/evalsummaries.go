package activities

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
)

// PlanSummariesInput names the queries of a summaries evaluation: unlabelled queries
// (QueriesKey), or judged questions (QuestionsKey with QrelsKey).
type PlanSummariesInput struct {
	EvalID     string `json:"eval_id"`
	QueriesKey string `json:"queries_key"`
	// QuestionsKey and QrelsKey are judged questions (question_id, question_date, question)
	// and their judgements: only questions with judgements, dated within [From, To] (zero:
	// unbounded), are answered, in question id order.
	QuestionsKey string    `json:"questions_key,omitempty"`
	QrelsKey     string    `json:"qrels_key,omitempty"`
	From         time.Time `json:"from,omitzero"`
	To           time.Time `json:"to,omitzero"`
	// Limit keeps the first Limit queries (0: all).
	Limit int `json:"limit"`
}

// PlanSummariesResult lists the queries in file order.
type PlanSummariesResult struct {
	Queries []sumeval.Query `json:"queries"`
}

// PlanSummaries reads the queries (query_id, query, anchor_date), checks them and marks the
// ones already answered by an earlier run of the same evaluation.
func (a *Activities) PlanSummaries(ctx context.Context, in PlanSummariesInput) (PlanSummariesResult, error) {
	if in.EvalID == "" {
		return PlanSummariesResult{}, invalid(errors.New("no eval id"))
	}
	// The unlabelled file, or the judged questions that have judgements, inside [From, To].
	rows, qs, qrels, err := a.questionSet(ctx, in.QuestionsKey == "", cmp.Or(in.QuestionsKey, in.QueriesKey), in.QrelsKey)
	if err != nil {
		return PlanSummariesResult{}, err
	}
	if in.QuestionsKey != "" {
		rows = sumeval.JudgedQueries(qs, qrels, in.From, in.To)
	}
	if rows, err = sumeval.FirstQueries(rows, in.Limit); err != nil {
		return PlanSummariesResult{}, invalid(err)
	}
	var out PlanSummariesResult
	for _, r := range rows {
		q := sumeval.Query{QueryID: r.QueryID, Query: r.Query, AnchorDate: r.AnchorDate.UTC(), RunID: sumeval.RunID(in.EvalID, r.QueryID)}
		if q.Done, err = a.Bucket.Exists(ctx, layout.AnswerKey(q.RunID)); err != nil {
			return PlanSummariesResult{}, err
		}
		out.Queries = append(out.Queries, q)
	}
	return out, nil
}

// FinishSummariesInput is what to score: asof's answers (by run) and the study's file.
type FinishSummariesInput struct {
	EvalID  string          `json:"eval_id"`
	Index   string          `json:"index"`
	Queries []sumeval.Query `json:"queries"`
	// Errors maps a query id to why its Ask failed (its row says so; no metrics).
	Errors map[string]string `json:"errors,omitempty"`
	// StudyKey is the study's answers (study-answers.parquet); empty: asof alone. Only the
	// study's rows for the queries above are scored.
	StudyKey string `json:"study_key,omitempty"`
	// QrelsKey, when set, holds judgements of the queries: asof's summaries are then scored
	// against them too (summary lead, support and noise: sumeval.LeadOf).
	QrelsKey string `json:"qrels_key,omitempty"`
	// Rubric is sumeval.RubricLLM when asof's answers were graded; Rubrics then holds the scores by
	// query id (an answer without scores counts as missing).
	Rubric  string                    `json:"rubric,omitempty"`
	Rubrics map[string]sumeval.Rubric `json:"rubrics,omitempty"`
}

// FinishSummariesResult names the written files and carries the table.
type FinishSummariesResult struct {
	SummaryKey   string         `json:"summary_key"`
	TableKey     string         `json:"table_key"`
	PerAnswerKey string         `json:"per_answer_key"`
	Report       sumeval.Report `json:"report"`
	Markdown     string         `json:"markdown"`
}

// FinishSummaries scores asof's answers and the study's for the same queries and writes
// evals/summaries/<id>/summary.json, table.md and per_answer.parquet.
func (a *Activities) FinishSummaries(ctx context.Context, in FinishSummariesInput) (FinishSummariesResult, error) {
	if in.EvalID == "" || len(in.Queries) == 0 {
		return FinishSummariesResult{}, invalid(errors.New("no eval id or no queries"))
	}
	var grades map[string]sumeval.Grades
	if in.QrelsKey != "" {
		qrels, err := storeio.GetParquet[schemas.Qrel](ctx, a.Bucket, in.QrelsKey)
		if err != nil {
			return FinishSummariesResult{}, invalidIfMissing(err, "qrels")
		}
		grades = sumeval.GradesOf(qrels)
	}
	answered, err := sumeval.AnswersOf(in.Queries, in.Errors, in.Rubric == sumeval.RubricLLM, in.Rubrics, a.answer(ctx))
	if err != nil {
		return FinishSummariesResult{}, err
	}
	study, err := storeio.GetParquetIfSet[schemas.StudyAnswer](ctx, a.Bucket, in.StudyKey)
	if err != nil {
		return FinishSummariesResult{}, invalidIfMissing(err, "study answers")
	}
	t := sumeval.Tabulate(sumeval.AsofSystem, answered, study, grades)
	rep := sumeval.NewReport(in.EvalID, in.Index, len(in.Queries), len(in.Errors), t, in.Rubric)
	res := FinishSummariesResult{SummaryKey: layout.SummariesSummaryKey(in.EvalID), TableKey: layout.SummariesTableKey(in.EvalID),
		PerAnswerKey: layout.SummariesPerAnswerKey(in.EvalID), Report: rep, Markdown: sumeval.Markdown(rep.Systems)}
	if err := storeio.PutParquet(ctx, a.Bucket, res.PerAnswerKey, t.Rows); err != nil {
		return FinishSummariesResult{}, err
	}
	if err := storeio.PutIndentedJSON(ctx, a.Bucket, res.SummaryKey, rep); err != nil {
		return FinishSummariesResult{}, err
	}
	if _, err := a.Bucket.Put(ctx, res.TableKey, strings.NewReader(res.Markdown)); err != nil {
		return FinishSummariesResult{}, err
	}
	return res, nil
}

// RubricInput names one stored answer (runs/<run-id>/answer.json) to grade.
type RubricInput struct {
	RunID string `json:"run_id"`
}

// RubricResult is the LLM's five scores of the answer's summary.
type RubricResult struct {
	Rubric sumeval.Rubric `json:"rubric"`
	// Method is "llm:<model>".
	Method string `json:"method"`
}

// RubricSummary asks the LLM (asof-llm queue) for the study's five 1–5 scores of a stored
// answer's summary against its context (sumeval.JudgeRubric: strict JSON, one repair turn),
// and keeps them in runs/<run-id>/rubric.json; when that file exists it is returned without
// a call, so a rerun does not grade again. A worker without an LLM fails for good.
func (a *Activities) RubricSummary(ctx context.Context, in RubricInput) (RubricResult, error) {
	if in.RunID == "" {
		return RubricResult{}, invalid(errors.New("no run id"))
	}
	if a.LLM == nil {
		return RubricResult{}, temporal.NewNonRetryableApplicationError("--rubric llm: this worker has no LLM configured (llm.base_url / ASOF_LLM_BASE_URL)", ErrTypeConfig, nil)
	}
	key := layout.RubricKey(in.RunID)
	if res, err := storeio.GetJSON[RubricResult](ctx, a.Bucket, key); !errors.Is(err, blob.ErrNotFound) {
		return res, err // graded by an earlier run, or unreadable
	}
	ans, err := storeio.GetJSON[schemas.Answer](ctx, a.Bucket, layout.AnswerKey(in.RunID))
	if err != nil {
		return RubricResult{}, invalidIfMissing(err, "answer")
	}
	r, err := sumeval.JudgeRubric(ctx, a.LLM, ans.Query, sumeval.AsofAnswer(ans))
	if err != nil {
		return RubricResult{}, llmError(err)
	}
	res := RubricResult{Rubric: r, Method: "llm:" + a.LLM.Config().Model}
	return res, storeio.PutIndentedJSON(ctx, a.Bucket, key, res)
}
