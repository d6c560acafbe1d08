package activities

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
	// StudyKey, when set, is the study's answers: the result lists its systems.
	StudyKey string `json:"study_key,omitempty"`
}

// PlanSummariesResult lists the queries in file order.
type PlanSummariesResult struct {
	Queries []sumeval.Query `json:"queries"`
	// StudySystems are the systems of the study's file (StudyKey), sorted.
	StudySystems []string `json:"study_systems,omitempty"`
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
	if in.StudyKey != "" {
		study, err := storeio.GetParquet[schemas.StudyAnswer](ctx, a.Bucket, in.StudyKey)
		if err != nil {
			return PlanSummariesResult{}, invalidIfMissing(err, "study answers")
		}
		for _, r := range study {
			out.StudySystems = append(out.StudySystems, r.System)
		}
		slices.Sort(out.StudySystems)
		out.StudySystems = slices.Compact(out.StudySystems)
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
	// StudyGrader, when set ("llm:<model>"), graded the study's summaries too: StudyRubrics
	// holds its scores by study system and query id, tabulated as sumeval.RegradedSystem.
	StudyGrader  string                               `json:"study_grader,omitempty"`
	StudyRubrics map[string]map[string]sumeval.Rubric `json:"study_rubrics,omitempty"`
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
	var re *sumeval.Regraded
	if in.StudyGrader != "" {
		re = &sumeval.Regraded{Grader: in.StudyGrader, Rubrics: in.StudyRubrics}
	}
	t := sumeval.Tabulate(sumeval.AsofSystem, answered, study, grades, re)
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
	// Prompt is the sumeval.RubricPromptVersion it was graded with: a kept grade of another
	// prompt is graded again.
	Prompt int `json:"prompt,omitempty"`
}

// errNoRubricLLM fails a rubric activity on a worker without an LLM, for good.
var errNoRubricLLM = temporal.NewNonRetryableApplicationError("--rubric llm: this worker has no LLM configured (llm.base_url / ASOF_LLM_BASE_URL, or --llm local)", ErrTypeConfig, nil)

// RubricSummary asks the LLM (asof-llm queue) for the study's five 1–5 scores of a stored
// answer's summary against its context (sumeval.JudgeRubric: strict JSON, one repair turn),
// and keeps them in runs/<run-id>/rubric.json; when that file exists with this prompt's
// version (sumeval.RubricPromptVersion) it is returned without a call, so a rerun does not
// grade again. A worker without an LLM fails for good.
func (a *Activities) RubricSummary(ctx context.Context, in RubricInput) (RubricResult, error) {
	if in.RunID == "" {
		return RubricResult{}, invalid(errors.New("no run id"))
	}
	if a.LLM == nil {
		return RubricResult{}, errNoRubricLLM
	}
	key := layout.RubricKey(in.RunID)
	if res, err := storeio.GetJSON[RubricResult](ctx, a.Bucket, key); err != nil && !errors.Is(err, blob.ErrNotFound) {
		return res, err // unreadable
	} else if err == nil && res.Prompt == sumeval.RubricPromptVersion {
		return res, nil // graded by an earlier run with this prompt
	}
	ans, err := storeio.GetJSON[schemas.Answer](ctx, a.Bucket, layout.AnswerKey(in.RunID))
	if err != nil {
		return RubricResult{}, invalidIfMissing(err, "answer")
	}
	r, err := sumeval.JudgeRubric(ctx, a.LLM, ans.Query, sumeval.AsofAnswer(ans))
	if err != nil {
		return RubricResult{}, llmError(err)
	}
	res := RubricResult{Rubric: r, Method: "llm:" + a.LLM.Config().Model, Prompt: sumeval.RubricPromptVersion}
	return res, storeio.PutIndentedJSON(ctx, a.Bucket, key, res)
}

// RubricStudyInput names the study's summary of one query by one of its systems.
type RubricStudyInput struct {
	StudyKey string `json:"study_key"`
	System   string `json:"system"`
	QueryID  string `json:"query_id"`
}

// RubricStudy has the LLM (asof-llm queue) grade the study's summary of a query by a system,
// as RubricSummary grades asof's (same prompt, context and checks: sumeval.JudgeRubric over
// sumeval.StudyAnswer), so that one grader scores every system. The scores are kept at
// layout.StudyRubricKey (per study file, grader and prompt version, shared by evaluations) and
// returned without a call when there. A row without a summary gets no scores (missing) and no call; a
// query or system not in the file is invalid input; a worker without an LLM fails for good.
func (a *Activities) RubricStudy(ctx context.Context, in RubricStudyInput) (RubricResult, error) {
	if in.StudyKey == "" || in.System == "" || in.QueryID == "" {
		return RubricResult{}, invalid(errors.New("rubric of a study summary: no study file, system or query id"))
	}
	if a.LLM == nil {
		return RubricResult{}, errNoRubricLLM
	}
	method := "llm:" + a.LLM.Config().Model
	key := layout.StudyRubricKey(in.StudyKey, method+"#"+strconv.Itoa(sumeval.RubricPromptVersion), in.System, in.QueryID)
	if res, err := storeio.GetJSON[RubricResult](ctx, a.Bucket, key); !errors.Is(err, blob.ErrNotFound) {
		return res, err // graded by an earlier run with this prompt, or unreadable
	}
	study, err := storeio.GetParquet[schemas.StudyAnswer](ctx, a.Bucket, in.StudyKey)
	if err != nil {
		return RubricResult{}, invalidIfMissing(err, "study answers")
	}
	i := slices.IndexFunc(study, func(r schemas.StudyAnswer) bool { return r.System == in.System && r.QueryID == in.QueryID })
	if i < 0 {
		return RubricResult{}, invalid(fmt.Errorf("the study's file has no summary of %s by %s", in.QueryID, in.System))
	}
	res := RubricResult{Method: method, Prompt: sumeval.RubricPromptVersion}
	if s := study[i].Summary; s != nil && strings.TrimSpace(*s) != "" {
		if res.Rubric, err = sumeval.JudgeRubric(ctx, a.LLM, study[i].Query, sumeval.StudyAnswer(study[i])); err != nil {
			return RubricResult{}, llmError(err)
		}
	}
	return res, storeio.PutIndentedJSON(ctx, a.Bucket, key, res)
}
