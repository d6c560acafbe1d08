package client

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/storeio"
)

// Indexes lists the indexes in the store, each from its live manifest.
func (c *Client) Indexes(ctx context.Context) ([]catalog.Index, error) {
	if err := c.checkStore(); err != nil {
		return nil, err
	}
	return catalog.Indexes(ctx, c.Store, "", false)
}

// GetIndex is one index in detail: documents per source, shards, build counts, kind and
// lifecycle. An index the store does not hold is a *NoIndexError.
func (c *Client) GetIndex(ctx context.Context, name string) (catalog.Index, error) {
	if err := c.checkStore(); err != nil {
		return catalog.Index{}, err
	}
	if err := layout.ValidateIndexName(name); err != nil {
		return catalog.Index{}, fmt.Errorf("index name: %w", err)
	}
	l, err := catalog.Indexes(ctx, c.Store, name, true)
	if err != nil {
		return catalog.Index{}, err
	}
	if len(l) == 0 {
		return catalog.Index{}, &NoIndexError{Index: name}
	}
	return l[0], nil
}

// IndexObjects is what deleting an index removes (apispec.DeletedIndex).
type IndexObjects = apispec.DeletedIndex

// ErrIndexBuilding is DeleteIndex's error while a build of the index runs.
var ErrIndexBuilding = errors.New("index is being built")

// DeleteIndex removes every object of an index: CURRENT first, so no reader finds it any more,
// then the rest. confirm, when set, is asked with what would go and keeps the index when it
// returns false (an error of its own). A build that runs refuses the delete (ErrIndexBuilding);
// an index with no objects is a *NoIndexError. A delete that fails midway leaves the index
// unpublished, and a second delete removes the rest.
func (c *Client) DeleteIndex(ctx context.Context, name string, confirm func(IndexObjects) error) (IndexObjects, error) {
	if err := c.checkStore(); err != nil {
		return IndexObjects{}, err
	}
	what := IndexObjects{Index: name, Prefix: layout.IndexPrefix(name) + "/"}
	if err := c.check(); err != nil {
		return what, err
	}
	if err := layout.ValidateIndexName(name); err != nil {
		return what, fmt.Errorf("index name: %w", err)
	}
	if err := c.notBuilding(ctx, name, "delete"); err != nil {
		return what, err
	}
	objs, err := blob.List(ctx, c.Store, what.Prefix)
	if err != nil {
		return what, fmt.Errorf("list %s: %w", what.Prefix, err)
	}
	if len(objs) == 0 {
		return what, &NoIndexError{Index: name}
	}
	what.Objects = len(objs)
	for _, o := range objs {
		what.Bytes += o.Size
	}
	if confirm != nil {
		if err := confirm(what); err != nil {
			return what, err
		}
	}
	// CURRENT first: from then on no reader finds the index, even if a delete below fails.
	current := layout.CurrentKey(name)
	if err := c.Store.Delete(ctx, current); err != nil {
		return what, fmt.Errorf("delete %s: %w", current, err)
	}
	for _, o := range objs {
		if o.Key == current {
			continue
		}
		if err := c.Store.Delete(ctx, o.Key); err != nil {
			return what, fmt.Errorf("delete %s: %w (the index is unpublished; run delete again to remove the rest)", o.Key, err)
		}
	}
	return what, nil
}

// IndexLifecycle is the lifecycle report of an index's live manifest: its supersession links
// (which text supersedes which, from when, on what basis) and warnings; nil for an index that
// needs none.
func (c *Client) IndexLifecycle(ctx context.Context, name string) (*storeio.LifecycleReport, error) {
	if err := c.checkStore(); err != nil {
		return nil, err
	}
	return catalog.Lifecycle(ctx, c.Store, name)
}

// notBuilding is ErrIndexBuilding, naming what waits (delete, purge), while a build of index
// runs.
func (c *Client) notBuilding(ctx context.Context, index, what string) error {
	id := IndexID(index)
	d, err := c.Temporal.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
	case err != nil:
		return fmt.Errorf("is index %s being built? describe workflow %s: %w", index, id, err)
	case d.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return fmt.Errorf("%w: index %s, by workflow %s: wait for it to finish, or cancel it (%s), then %s", ErrIndexBuilding, index, id, c.UI, what)
	}
	return nil
}
