package activities

import (
	"context"
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/expand"
)

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
}

// EmbedVariantsResult are the variants the answer searches with.
type EmbedVariantsResult struct {
	Variants []answer.Variant `json:"variants"`
}

// EmbedVariants embeds each rephrasing as a query (one model call each, as EmbedQuery: a
// query's vector must not depend on what it was batched with) and the hypothetical answer as
// a passage (E5's "passage: " prefix: it is meant to look like the documents), on asof-embed.
func (a *Activities) EmbedVariants(ctx context.Context, in EmbedVariantsInput) (EmbedVariantsResult, error) {
	if a.Embedder == nil {
		return EmbedVariantsResult{}, noModel()
	}
	var out EmbedVariantsResult
	for i, q := range in.Queries {
		v, err := a.Embedder.EmbedQueries(ctx, []string{q})
		if err != nil {
			return out, embedFailed(fmt.Sprintf("rephrasing %d", i+1), err)
		}
		out.Variants = append(out.Variants, answer.Variant{Kind: "query", Text: q, Vec: v[0]})
	}
	if in.Passage != "" {
		v, err := a.Embedder.EmbedPassages(ctx, []string{in.Passage})
		if err != nil {
			return out, embedFailed("hypothetical answer", err)
		}
		out.Variants = append(out.Variants, answer.Variant{Kind: "hyde", Vec: v[0]})
	}
	return out, nil
}
