package activities

import (
	"cmp"
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/brief"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/metrics"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// The Ask pipeline after retrieval (workflow version 1):
//
//	Candidates → Judge × batches (asof-llm, in parallel) → Compose → Summarize (asof-llm) → SaveAnswer
//
// Candidates writes the judge pool to runs/<run-id>/candidates.parquet and the workflow passes
// only counts and verdicts, so payloads stay small however long the documents are.

// CandidatesInput is an answer to retrieve; Pool is how many candidates to keep for judging.
type CandidatesInput struct {
	AnswerInput
	// Pool is the most candidates judged (0: the context's KDocs). They are chosen the way the
	// context chooses (hot and history quotas), from a context of Pool documents.
	Pool int `json:"pool"`
}

// CandidatesResult is the answer so far (header, results, counts) and the pool's size.
type CandidatesResult struct {
	Answer schemas.Answer `json:"answer"`
	// Key holds the pool, Pool rows in fused order (ranks 1..Pool are judge ids).
	Key  string `json:"key"`
	Pool int    `json:"pool"`
}

// Candidates retrieves as of the anchor, folds near-duplicates, chooses the pool the judge will
// grade (the documents a context of Pool documents would hold), and stores it.
func (a *Activities) Candidates(ctx context.Context, in CandidatesInput) (CandidatesResult, error) {
	began := time.Now()
	if in.RunID == "" {
		return CandidatesResult{}, invalid(errors.New("no run id"))
	}
	ans, r, err := a.rank(ctx, in.AnswerInput)
	if err != nil {
		return CandidatesResult{}, err
	}
	pool, err := answer.Pool(r, in.AsOf, in.Context, in.Pool)
	if err != nil {
		return CandidatesResult{}, invalid(err)
	}
	rows := answer.CandidateRows(pool)
	key := layout.CandidatesKey(in.RunID)
	if err := storeio.PutParquet(ctx, a.Bucket, key, rows); err != nil {
		return CandidatesResult{}, err
	}
	ans.Counts.RetrieveMS = time.Since(began).Milliseconds()
	return CandidatesResult{Answer: ans, Key: key, Pool: len(rows)}, nil
}

// JudgeInput is one batch of the pool: ranks From..To (1-based, inclusive).
type JudgeInput struct {
	Key   string `json:"key"`
	Query string `json:"query"`
	// SearchText is the query without its date phrases: what the heuristic counts terms of
	// ("in February 2026" is the window, not a term a document must contain).
	SearchText string    `json:"search_text"`
	AsOf       time.Time `json:"as_of"`
	From       int       `json:"from"`
	To         int       `json:"to"`
	// Mode is auto, llm or heuristic.
	Mode string `json:"mode"`
}

// JudgeResult is one batch's verdicts, ids being pool ranks.
type JudgeResult struct {
	Method   string          `json:"method"`
	Verdicts []judge.Verdict `json:"verdicts"`
}

// Judge grades one batch of the pool 0/1/2 against the query, on the asof-llm queue: with the
// worker's LLM (strict JSON, one repair turn; documents fenced as untrusted data) or, without
// one, with the offline heuristic over query-term coverage and dense similarity. A bad LLM
// configuration fails at once (no retry can fix it); server errors, rate limits and unusable
// replies are retried by the workflow's policy.
func (a *Activities) Judge(ctx context.Context, in JudgeInput) (JudgeResult, error) {
	rows, err := storeio.GetParquet[schemas.CandidateRow](ctx, a.Bucket, in.Key)
	if err != nil {
		return JudgeResult{}, invalidIfMissing(err, "candidates")
	}
	docs, pool, err := answer.JudgeBatch(rows, in.From, in.To)
	if err != nil {
		return JudgeResult{}, invalid(err)
	}
	useLLM := a.LLM != nil && (in.Mode == judge.ModeLLM || in.Mode == judge.ModeAuto && !a.HeuristicAutoJudge)
	if in.Mode == judge.ModeLLM && a.LLM == nil {
		return JudgeResult{}, temporal.NewNonRetryableApplicationError("--judge llm: this worker has no LLM configured (llm.base_url / ASOF_LLM_BASE_URL)", ErrTypeConfig, nil)
	}
	if !useLLM {
		q := cmp.Or(in.SearchText, in.Query)
		a.Metrics.JudgeCall(judge.MethodHeuristic)
		return JudgeResult{Method: judge.MethodHeuristic, Verdicts: judge.HeuristicPool(q, docs, a.judgePools.Of(q, pool))}, nil
	}
	a.Metrics.JudgeCall("llm")
	v, err := judge.LLMInCalls(ctx, a.LLM, in.Query, in.AsOf, docs, a.JudgePerCall)
	if err != nil {
		a.Metrics.JudgeFailure(metrics.JudgeFailureClass(err))
		return JudgeResult{}, llmError(err)
	}
	return JudgeResult{Method: "llm:" + a.LLM.Config().Model, Verdicts: v}, nil
}

// ComposeInput is the judged pool to turn into a context and an extractive summary.
type ComposeInput struct {
	AnswerInput
	Answer schemas.Answer `json:"answer"`
	Key    string         `json:"key"`
	// Verdicts are the grades by pool rank; Unjudged lists the ranks of failed batches (or
	// every rank when judging is off) and Keep says whether those stay.
	Verdicts []judge.Verdict     `json:"verdicts"`
	Unjudged []int               `json:"unjudged"`
	Keep     bool                `json:"keep"`
	Report   schemas.JudgeReport `json:"report"`
}

// Compose applies the verdicts (relevance ≥ 1 stays), builds the dated context of what stayed,
// and summarizes it extractively. It writes nothing: SaveAnswer does, after Summarize.
func (a *Activities) Compose(ctx context.Context, in ComposeInput) (schemas.Answer, error) {
	ans := in.Answer
	rows, err := storeio.GetParquetIfSet[schemas.CandidateRow](ctx, a.Bucket, in.Key)
	if err != nil {
		return ans, invalidIfMissing(err, "candidates")
	}
	rep := in.Report
	j, err := answer.ApplyVerdicts(rows, answer.Verdicts{Grades: in.Verdicts, Unjudged: in.Unjudged, Keep: in.Keep}, &rep)
	if err != nil {
		return ans, invalid(err)
	}
	j.Grade(ans.Results)
	if err := compose(&ans, in.AnswerInput, j.Docs, j.Groups, ans.Mode == "evolution"); err != nil {
		return ans, err
	}
	ans.Judge = &rep
	return ans, nil
}

// SummarizeInput is a built context to summarize with the worker's LLM.
type SummarizeInput struct {
	Query   string                 `json:"query"`
	AsOf    time.Time              `json:"as_of"`
	Mode    string                 `json:"mode"`
	Blocks  []schemas.ContextBlock `json:"blocks"`
	NewDays int                    `json:"new_days"`
}

// SummarizeResult is the LLM's summary, or Skipped when this worker has no LLM (the extractive
// summary Compose made stands). Markdown is the brief rendered with the blocks it cites
// (render.Markdown), the answer's summary.
type SummarizeResult struct {
	Skipped  bool           `json:"skipped"`
	Brief    schemas.Brief  `json:"brief"`
	Markdown string         `json:"markdown"`
	Usage    map[string]int `json:"usage,omitempty"`
}

// Summarize writes the digest + timeline (or, in evolution mode, then vs now) with the worker's
// LLM, on the asof-llm queue. The reply is checked (every claim cites existing blocks, no date
// that is not in the documents, nothing after the anchor) and repaired once; a reply that stays
// wrong fails the attempt, and the workflow keeps the extractive summary when retries run out.
func (a *Activities) Summarize(ctx context.Context, in SummarizeInput) (SummarizeResult, error) {
	if a.LLM == nil || len(in.Blocks) == 0 {
		return SummarizeResult{Skipped: true}, nil
	}
	// Minutes on a local CPU model: the heartbeat says the worker is alive meanwhile.
	alive := keepAliveFor(ctx)
	defer alive.Stop()
	br, err := answer.Brief(ctx, a.LLM, a.LLM.Config().Model, in.Query, in.Mode, in.Blocks, in.AsOf, in.NewDays)
	if errors.Is(err, brief.ErrCheck) && a.LLM.Config().Temperature == 0 {
		// A retry would send the same prompt at temperature 0 and get the same reply: minutes
		// a try on a local CPU model, for nothing.
		return SummarizeResult{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeBadSummary, nil)
	}
	if err != nil {
		return SummarizeResult{}, llmError(err)
	}
	return SummarizeResult{Brief: br, Markdown: render.Markdown(br, in.Blocks)}, nil
}

// SaveAnswer writes runs/<run-id>/answer.json and context.md.
func (a *Activities) SaveAnswer(ctx context.Context, ans schemas.Answer) error {
	if ans.RunID == "" {
		return invalid(errors.New("no run id"))
	}
	return storeio.PutAnswer(ctx, a.Bucket, ans)
}
