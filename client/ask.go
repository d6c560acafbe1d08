package client

import (
	"context"
	"fmt"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// StartAsk starts one as-of question (the Ask workflow) once its index is known to exist; its
// answer is stored under runs/<id>/ (AskID) and returned by Wait.
func (c *Client) StartAsk(ctx context.Context, in workflows.AskInput) (*Run[schemas.Answer], error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if err := c.RequireIndex(ctx, in.Index); err != nil {
		return nil, err
	}
	run, err := start[schemas.Answer](ctx, c, "ask "+in.Index, AskID(in.Index, c.now()), c.Eager, workflows.Ask, in)
	if err != nil {
		return nil, fmt.Errorf("start ask: %w", err)
	}
	return run, nil
}

// Ask answers one question as of its day and waits for the answer.
func (c *Client) Ask(ctx context.Context, in workflows.AskInput) (schemas.Answer, error) {
	run, err := c.StartAsk(ctx, in)
	if err != nil {
		return schemas.Answer{}, err
	}
	return run.Wait(ctx)
}

// AskRequest answers a request as `asof ask` and POST /v1/ask read it (apispec.AskRequest,
// checked with label's names for its fields).
func (c *Client) AskRequest(ctx context.Context, req apispec.AskRequest, label apispec.Label) (schemas.Answer, error) {
	checked, err := req.Check(label)
	if err != nil {
		return schemas.Answer{}, err
	}
	in, err := workflows.AskInputFrom(checked)
	if err != nil {
		return schemas.Answer{}, err
	}
	return c.Ask(ctx, in)
}
