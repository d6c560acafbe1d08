package client

import (
	"context"
	"fmt"

	"github.com/asofrag/asof/workflows"
)

// StartDigest starts a digest (the Digest workflow: every topic answered as of one day, written
// under digests/<name>/<day>/) once its index is known to exist.
func (c *Client) StartDigest(ctx context.Context, in workflows.DigestInput) (*Run[workflows.DigestResult], error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if err := c.RequireIndex(ctx, in.Index); err != nil {
		return nil, err
	}
	what := "digest " + in.Name
	if in.Name == "digest" { // the default name: not "digest digest"
		what = "digest"
	}
	run, err := start[workflows.DigestResult](ctx, c, what, DigestID(in.Name, c.now()), false, workflows.Digest, in)
	if err != nil {
		return nil, fmt.Errorf("start digest: %w", err)
	}
	return run, nil
}
