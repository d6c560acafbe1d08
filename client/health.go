package client

import (
	"context"
	"fmt"

	"github.com/asofrag/asof/workflows"
)

// StartHealthCheck starts the HealthCheck workflow: write, read back and delete an object in
// the store, and ping every task queue asof's workers poll.
func (c *Client) StartHealthCheck(ctx context.Context, in workflows.HealthCheckInput) (*Run[workflows.HealthCheckResult], error) {
	run, err := start[workflows.HealthCheckResult](ctx, c, "health check", HealthCheckID(c.now()), false, workflows.HealthCheck, in)
	if err != nil {
		return nil, fmt.Errorf("start health check: %w", err)
	}
	return run, nil
}
