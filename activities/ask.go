package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/expand"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// ReadQueryInput is a question before retrieval.
type ReadQueryInput struct {
	Query string    `json:"query"`
	AsOf  time.Time `json:"as_of"`
	// Mode is auto or one of retrieve's modes.
	Mode string `json:"mode"`
	// From and To are explicit dates (--year, --from/--to); they win over dates in the text.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// ReadQueryResult is how the question will be searched (answer.Reading).
type ReadQueryResult = answer.Reading

// ReadQuery decides the mode and dates of a question (answer.Read).
func (a *Activities) ReadQuery(_ context.Context, in ReadQueryInput) (ReadQueryResult, error) {
	r, err := answer.Read(in.Query, in.AsOf, in.Mode, in.From, in.To)
	if err != nil {
		return r, invalid(err)
	}
	return r, nil
}

// EmbedQueryInput is a query to embed.
type EmbedQueryInput struct {
	Text string `json:"text"`
	// Index, when set, is the index the query searches: it is embedded with the model that
	// index was built with (queryEmbedder). Empty (workflows started before the field): with
	// the worker's own model.
	Index string `json:"index,omitempty"`
}

// EmbedQueryResult is the query's vector and the model that made it.
type EmbedQueryResult struct {
	Vector []float32        `json:"vector"`
	Model  schemas.ModelRef `json:"model"`
}

// EmbedQuery embeds a search query (E5's "query: " prefix) on the asof-embed queue, with the
// model in.Index was built with where this worker can load it (queryEmbedder).
func (a *Activities) EmbedQuery(ctx context.Context, in EmbedQueryInput) (EmbedQueryResult, error) {
	e, model, release, err := a.queryEmbedder(ctx, in.Index)
	if err != nil {
		return EmbedQueryResult{}, err
	}
	defer release()
	v, err := e.EmbedQueries(ctx, []string{in.Text})
	if err != nil {
		return EmbedQueryResult{}, embedFailed("", err)
	}
	return EmbedQueryResult{Vector: v[0], Model: model}, nil
}

// embedFailed classifies a failed query embedding. A server that refuses the request or serves
// another model (llm.ErrConfig) and a reply that breaks the API (llm.ErrInvalidReply: a vector
// missing, of mixed lengths, non-finite) fail for good, since a retry gets the same reply;
// anything else (a timeout, a 5xx) is left to the retry policy. what, when set, says which
// text it was.
func embedFailed(what string, err error) error {
	msg := err.Error()
	if what != "" {
		msg = what + ": " + msg
	}
	switch {
	case errors.Is(err, llm.ErrConfig):
		return temporal.NewNonRetryableApplicationError(msg, ErrTypeConfig, err)
	case errors.Is(err, llm.ErrInvalidReply):
		return temporal.NewNonRetryableApplicationError(msg+"; check the embedding server and its model", ErrTypeConfig, err)
	case what != "":
		return fmt.Errorf("%s: %w", what, err)
	}
	return err
}

// ExpandQueryInput asks the LLM for other ways to search for a question (internal/expand).
type ExpandQueryInput struct {
	Query string    `json:"query"`
	AsOf  time.Time `json:"as_of"`
	// Queries is how many rephrasings to ask for; HyDE asks for a hypothetical answer passage.
	Queries int  `json:"queries"`
	HyDE    bool `json:"hyde"`
}

// ExpandQueryResult is what the LLM wrote; Skipped when this worker has no LLM.
type ExpandQueryResult struct {
	Queries []string `json:"queries"`
	Passage string   `json:"passage"`
	Skipped bool     `json:"skipped"`
}

// ExpandQuery asks the worker's LLM for the question's rephrasings and hypothetical answer, on
// the asof-llm queue. A reply that stays unusable after one repair turn is an error the
// workflow's retry policy retries; a configuration error (bad key, unknown model) is final.
func (a *Activities) ExpandQuery(ctx context.Context, in ExpandQueryInput) (ExpandQueryResult, error) {
	if a.LLM == nil {
		return ExpandQueryResult{Skipped: true}, nil
	}
	r := expand.Request{Query: in.Query, AsOf: in.AsOf, Queries: in.Queries, HyDE: in.HyDE}
	if err := r.Validate(); err != nil {
		return ExpandQueryResult{}, invalid(err)
	}
	e, err := expand.Generate(ctx, a.LLM, r)
	if err != nil {
		return ExpandQueryResult{}, llmError(err)
	}
	return ExpandQueryResult{Queries: e.Queries, Passage: e.Passage}, nil
}

// EmbedVariantsInput is an expansion to embed.
type EmbedVariantsInput struct {
	Queries []string `json:"queries"`
	Passage string   `json:"passage"`
	// Index, when set, is the index searched: the variants are embedded with its model, as
	// EmbedQueryInput.Index says.
	Index string `json:"index,omitempty"`
}

// EmbedVariantsResult are the variants the answer searches with.
type EmbedVariantsResult struct {
	Variants []answer.Variant `json:"variants"`
}

// EmbedVariants embeds each rephrasing as a query (one model call each, as EmbedQuery: a
// query's vector must not depend on what it was batched with) and the hypothetical answer as
// a passage (E5's "passage: " prefix: it is meant to look like the documents), on asof-embed,
// with the model in.Index was built with, as EmbedQuery.
func (a *Activities) EmbedVariants(ctx context.Context, in EmbedVariantsInput) (EmbedVariantsResult, error) {
	e, _, release, err := a.queryEmbedder(ctx, in.Index)
	if err != nil {
		return EmbedVariantsResult{}, err
	}
	defer release()
	var out EmbedVariantsResult
	for i, q := range in.Queries {
		v, err := e.EmbedQueries(ctx, []string{q})
		if err != nil {
			return out, embedFailed(fmt.Sprintf("rephrasing %d", i+1), err)
		}
		out.Variants = append(out.Variants, answer.Variant{Kind: "query", Text: q, Vec: v[0]})
	}
	if in.Passage != "" {
		v, err := e.EmbedPassages(ctx, []string{in.Passage})
		if err != nil {
			return out, embedFailed("hypothetical answer", err)
		}
		out.Variants = append(out.Variants, answer.Variant{Kind: "hyde", Vec: v[0]})
	}
	return out, nil
}

// AnswerInput is everything one as-of answer needs.
type AnswerInput struct {
	RunID string    `json:"run_id"`
	Index string    `json:"index"`
	Query string    `json:"query"`
	AsOf  time.Time `json:"as_of"`
	// Read is how the query was read (ReadQuery's result).
	Read ReadQueryResult `json:"read"`
	// Vector and Model are EmbedQuery's result.
	Vector  []float32         `json:"vector"`
	Model   schemas.ModelRef  `json:"model"`
	Options retrieve.Options  `json:"options"`
	Dedup   dedup.Options     `json:"dedup"`
	Context evidence.Options  `json:"context"`
	Summary summarize.Options `json:"summary"`
	// Variants are the LLM's rephrasings and hypothetical answer with their vectors
	// (ExpandQuery, EmbedVariants): searched too and fused by reciprocal rank, never shown.
	Variants []answer.Variant `json:"variants,omitempty"`
}

// Answer retrieves as of the anchor (only shards that overlap the time mask are loaded, through
// the worker's shard cache), folds near-duplicates, builds the dated context, summarizes it
// extractively, writes runs/<run-id>/answer.json and context.md, and returns the answer.
//
// It is the Ask workflow's single step before judging existed (workflow version 0); newer runs
// call Candidates, Judge, Compose, Summarize and SaveAnswer instead. It stays registered so
// that histories of older runs replay.
func (a *Activities) Answer(ctx context.Context, in AnswerInput) (schemas.Answer, error) {
	began := time.Now()
	ans, r, err := a.rank(ctx, in)
	if err != nil {
		return ans, err
	}
	if err := compose(&ans, in, answer.Docs(r.Ranked), answer.Groups(r.Ranked), r.Evolution()); err != nil {
		return ans, err
	}
	ans.Counts.RetrieveMS = time.Since(began).Milliseconds()
	return ans, storeio.PutAnswer(ctx, a.Bucket, ans)
}

// rank loads the shards the mask can reach and ranks them (answer.Rank): the answer's header,
// results and counts, and the ranking the pool and the context are drawn from.
func (a *Activities) rank(ctx context.Context, in AnswerInput) (schemas.Answer, answer.Ranking, error) {
	began := time.Now()
	ans, o, err := answer.Start(in.RunID, in.Index, in.Query, in.AsOf, in.Read, in.Options)
	if err != nil {
		return ans, answer.Ranking{}, invalid(err)
	}
	var model *schemas.ModelRef // no vector: no model to check
	if in.Vector != nil {
		model = &in.Model
	}
	// The shards Rank may search: the reading's bounds, or every day up to the anchor when
	// auto may look back or fall back to the whole past (answer.Reach), as eval loads them.
	loaded, seq, err := a.loadShards(ctx, in.Index, model, answer.Reach(in.Read, in.AsOf, in.Options))
	ans.ManifestSeq = seq
	if err != nil {
		return ans, answer.Ranking{}, err
	}
	defer loaded.Release()
	ans.Counts.ShardsSearched, ans.Counts.ShardsSkipped = loaded.Searched, loaded.Skipped
	r, err := answer.Rank(loaded.Shards, answer.Query{Read: in.Read, Vec: in.Vector, Variants: in.Variants, AsOf: in.AsOf, Options: in.Options, Dedup: in.Dedup})
	if err != nil {
		return ans, r, invalid(err)
	}
	if r, err = a.rerankRanking(ctx, in.Query, o, r); err != nil {
		return ans, r, err
	}
	a.Metrics.Retrieval(string(r.Mode), time.Since(began))
	r.Fill(&ans) // the header says what was searched (answer.Ranking.Read)
	return ans, r, nil
}

// compose builds the dated context of docs and its extractive summary into ans (answer.Compose).
func compose(ans *schemas.Answer, in AnswerInput, docs []evidence.Doc, groups map[string]string, evolution bool) error {
	c, err := answer.Compose(answer.ComposeInput{Query: in.Query, SearchText: ans.SearchText, AsOf: in.AsOf, Evolution: evolution, Groups: groups,
		Empty: ans.Message, Context: in.Context, Summary: in.Summary}, docs)
	if err != nil {
		return invalid(err)
	}
	ans.Context, ans.Blocks, ans.Summary, ans.SummaryMethod, ans.Brief = c.Context, c.Blocks, c.Summary, c.SummaryMethod, c.Brief
	return nil
}
