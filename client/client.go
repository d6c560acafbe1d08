// Package client is asof's use cases as typed calls: stage a corpus, start or follow an index
// build and watch it, ask, digest, start or resume an evaluation, manage digest schedules, and
// list, show or delete indexes. The command line (cmd/asof) and the HTTP API (httpapi) are
// options and printing around these calls, so both serve the same use cases with the same
// rules; another Go program uses them the same way (examples/go).
//
// Every workflow id asof starts is named here (ids.go): one rule per use case, whoever starts it.
//
// A Client holds a Temporal client and the store the workflows write (a client without a store
// can still ask, digest and manage schedules: the workflows read the store); it starts nothing of its
// own (no worker, no server): where asof's embedded stack or an in-process worker is wanted, the
// caller starts it (cmd/asof does) and hands its client and bucket here.
package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	temporal "go.temporal.io/sdk/client"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/workflows"
)

// Client runs asof's use cases against one Temporal namespace and one store.
type Client struct {
	// Temporal starts and queries the workflows; Store is the bucket they read and write.
	Temporal temporal.Client
	Store    blob.Bucket
	// UI says where a failed workflow can be looked up ("in the Web UI at …"), appended to a
	// failed run's error; "" for none.
	UI string
	// Eager asks the server to hand a started Ask's first workflow task back with the start,
	// which saves a round trip when a worker made from Temporal polls the queue in this process
	// (asof serve's own).
	Eager bool
	// Code identifies the code that scores an evaluation, part of its resume id (empty: this
	// executable's sha256, ExecutableVersion).
	Code string
	// Now is the client's clock for ids a person reads (nil: time.Now). It never decides what
	// "now" means to a workflow: an as-of day is an input, and "today" the workflow's own day.
	Now func() time.Time
}

// New returns a client of tc and the bucket b.
func New(tc temporal.Client, b blob.Bucket) *Client { return &Client{Temporal: tc, Store: b} }

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// check reports a client that cannot start or query a workflow.
func (c *Client) check() error {
	if c == nil || c.Temporal == nil {
		return errors.New("asof client: a Temporal client is required")
	}
	return nil
}

// checkStore reports a client that cannot read or write the store.
func (c *Client) checkStore() error {
	if c == nil || c.Store == nil {
		return errors.New("asof client: this call reads or writes the store: give the client one (Client.Store)")
	}
	return nil
}

// failed is a finished run's error as a person reads it: the root cause once, the workflow id,
// and where to look (workflows.ExplainFailure).
func (c *Client) failed(what string, err error, workflowID string) error {
	return fmt.Errorf("%s: %w", what, workflows.ExplainFailure(err, workflowID, c.UI))
}

// NoIndexError is the error of a use case on an index the store does not hold.
type NoIndexError = catalog.NoIndexError

// RequireIndex reports an index the store does not hold as a *NoIndexError. A client without
// a store checks nothing: the workflow then says it.
func (c *Client) RequireIndex(ctx context.Context, index string) error {
	if c.Store == nil {
		return nil
	}
	return catalog.RequireIndex(ctx, c.Store, index)
}
