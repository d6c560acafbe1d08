package client

import (
	"context"
	"fmt"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// StartTakeDown starts taking documents down from an index (the TakeDown workflow): every
// version of each doc_id leaves every answer, as of any day, from the manifest that records it
// (with the reason) on; builds after it count the documents' rows as deleted.
func (c *Client) StartTakeDown(ctx context.Context, in workflows.TakeDownInput) (*Run[workflows.TakeDownResult], error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if err := c.RequireIndex(ctx, in.Index); err != nil {
		return nil, err
	}
	run, err := start[workflows.TakeDownResult](ctx, c, "take down in "+in.Index, TakeDownID(in.Index, c.now()), false, workflows.TakeDown, in)
	if err != nil {
		return nil, fmt.Errorf("start takedown: %w", err)
	}
	return run, nil
}

// TakeDown takes documents down and waits for the manifest that records it.
func (c *Client) TakeDown(ctx context.Context, in workflows.TakeDownInput) (workflows.TakeDownResult, error) {
	run, err := c.StartTakeDown(ctx, in)
	if err != nil {
		return workflows.TakeDownResult{}, err
	}
	return run.Wait(ctx)
}

// Takedowns lists the documents taken down from an index (its live manifest's record), by
// doc_id.
func (c *Client) Takedowns(ctx context.Context, index string) ([]schemas.Takedown, error) {
	if err := c.checkStore(); err != nil {
		return nil, err
	}
	if err := c.RequireIndex(ctx, index); err != nil {
		return nil, err
	}
	m, err := layout.ReadLive(ctx, c.Store, index)
	if err != nil {
		return nil, err
	}
	return m.Takedowns, nil
}
