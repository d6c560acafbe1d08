package catalog

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// ErrNoQuarantine matches (errors.Is) a run that quarantined no row, or no such run.
var ErrNoQuarantine = errors.New("no quarantined rows")

// QuarantineRun is the run id in run: the build's run id as it stands, or the key `asof index`
// printed ("quarantine/<run-id>/rejects.parquet"), checked as a run id (layout.ValidateRunID).
func QuarantineRun(run string) (string, error) {
	run = strings.TrimSpace(run)
	if rest, ok := strings.CutPrefix(run, "quarantine/"); ok {
		if id, ok := strings.CutSuffix(rest, "/"+path.Base(layout.QuarantineKey("x"))); ok {
			run = id
		}
	}
	if err := layout.ValidateRunID(run); err != nil {
		return "", err
	}
	return run, nil
}

// QuarantineRows reads the rows an index build run quarantined (quarantine/<run-id>/
// rejects.parquet), with the reason and detail of each, and the key it read; run is a run id or
// that key (QuarantineRun). A run that quarantined nothing is ErrNoQuarantine.
func QuarantineRows(ctx context.Context, b blob.Bucket, run string) ([]schemas.QuarantineRow, string, error) {
	id, err := QuarantineRun(run)
	if err != nil {
		return nil, "", err
	}
	key := layout.QuarantineKey(id)
	rows, err := storeio.GetParquet[schemas.QuarantineRow](ctx, b, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, key, fmt.Errorf("%w under %s in %s (a build that refused no row writes none)", ErrNoQuarantine, key, b)
	}
	if err != nil {
		return nil, key, err
	}
	return rows, key, nil
}
