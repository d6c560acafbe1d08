package client

import (
	"context"

	temporal "go.temporal.io/sdk/client"

	"github.com/asofrag/asof/workflows"
)

// Run is a started workflow whose result is a T.
type Run[T any] struct {
	c    *Client
	run  temporal.WorkflowRun
	what string
}

// ID is the run's workflow id.
func (r *Run[T]) ID() string { return r.run.GetID() }

// Wait waits for the run to end and returns its result; a failed run's error says its root
// cause once, the workflow id and where to look (workflows.RunFailure).
func (r *Run[T]) Wait(ctx context.Context) (T, error) {
	var res T
	if err := r.run.Get(ctx, &res); err != nil {
		return res, r.c.failed(r.what, err, r.run.GetID())
	}
	return res, nil
}

// start starts workflow fn with in under id on asof's task queue.
func start[T any](ctx context.Context, c *Client, what, id string, eager bool, fn, in any) (*Run[T], error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	run, err := c.Temporal.ExecuteWorkflow(ctx, temporal.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue, EnableEagerStart: eager}, fn, in)
	if err != nil {
		return nil, err
	}
	return &Run[T]{c: c, run: run, what: what}, nil
}
