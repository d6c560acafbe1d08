package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// StartTakeDown starts taking documents down from an index (the TakeDown workflow): every
// version of each doc_id leaves every answer, as of any day, from the manifest that records it
// (with the reason) on; builds after it count the documents' rows as deleted. With Purge their
// text and vectors then leave the store too (refused, ErrIndexBuilding, while a build of the
// index runs).
func (c *Client) StartTakeDown(ctx context.Context, in workflows.TakeDownInput) (*Run[workflows.TakeDownResult], error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if err := CheckTakeDown(in); err != nil {
		return nil, err
	}
	if err := c.RequireIndex(ctx, in.Index); err != nil {
		return nil, err
	}
	if in.Purge { // a build running would publish shards it planned with the rows, or ones the purge deletes
		if err := c.notBuilding(ctx, in.Index, "purge"); err != nil {
			return nil, err
		}
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

// CheckTakeDown refuses a takedown that cannot run, before anything starts (an
// *apispec.InvalidError): a bad index name, no doc_id (unless it only purges what earlier
// takedowns left) or an empty one, or no reason (it is recorded in the manifest).
func CheckTakeDown(in workflows.TakeDownInput) error {
	invalid := func(format string, a ...any) error { return &apispec.InvalidError{Err: fmt.Errorf(format, a...)} }
	if err := layout.ValidateIndexName(in.Index); err != nil {
		return invalid("index: %w", err)
	}
	if len(in.DocIDs) == 0 && !in.Purge {
		return invalid("doc_id: name at least one document to take down")
	}
	for _, id := range in.DocIDs {
		if strings.TrimSpace(id) == "" {
			return invalid("doc_id: an empty doc_id")
		}
	}
	if strings.TrimSpace(in.Reason) == "" && len(in.DocIDs) > 0 {
		return invalid("reason: required (it is recorded in the manifest with the takedown)")
	}
	return nil
}
