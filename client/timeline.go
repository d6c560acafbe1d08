package client

import (
	"context"
	"fmt"

	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// StartTimeline starts a topic's timeline as of a day (the Timeline workflow) once its index
// is known to exist; it is stored under runs/<id>/ (TimelineID) and returned by Wait.
func (c *Client) StartTimeline(ctx context.Context, in workflows.TimelineInput) (*Run[schemas.Timeline], error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if err := c.RequireIndex(ctx, in.Index); err != nil {
		return nil, err
	}
	run, err := start[schemas.Timeline](ctx, c, "timeline "+in.Index, TimelineID(in.Index, c.now()), c.Eager, workflows.Timeline, in)
	if err != nil {
		return nil, fmt.Errorf("start timeline: %w", err)
	}
	return run, nil
}

// Timeline builds a topic's timeline as of its day and waits for it.
func (c *Client) Timeline(ctx context.Context, in workflows.TimelineInput) (schemas.Timeline, error) {
	run, err := c.StartTimeline(ctx, in)
	if err != nil {
		return schemas.Timeline{}, err
	}
	return run.Wait(ctx)
}
