package answer

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/asofrag/asof/internal/brief"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/schemas"
)

// JudgeBatch is ranks from..to (1-based, inclusive) of a judge pool's rows as the judge reads
// them, and the whole pool (JudgeDocs: each batch is graded against the whole pool's best
// cosine). A batch that is empty or reaches past the pool is an error.
func JudgeBatch(rows []schemas.CandidateRow, from, to int) (batch, pool []judge.Doc, err error) {
	if from < 1 || to < from {
		return nil, nil, fmt.Errorf("bad batch %d..%d", from, to)
	}
	if to > len(rows) {
		return nil, nil, fmt.Errorf("batch %d..%d is past the pool's %d candidates", from, to, len(rows))
	}
	pool = JudgeDocs(rows)
	return slices.Clone(pool[from-1 : to]), pool, nil
}

// Brief has c write the brief of a built context's blocks: then vs now (brief.Evolve) in
// evolution mode, else the digest and timeline (brief.Write).
func Brief(ctx context.Context, c brief.Chatter, model, query, mode string, in []schemas.ContextBlock, asOf time.Time, newDays int) (schemas.Brief, error) {
	blocks, then, now := Blocks(in)
	if mode == "evolution" {
		return brief.Evolve(ctx, c, model, query, then, now, asOf)
	}
	return brief.Write(ctx, c, model, query, blocks, asOf, newDays)
}
