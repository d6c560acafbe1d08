//go:build lean

package infra

import (
	"context"
	"fmt"
)

// EmbeddedAvailable reports whether this binary carries the embedded servers.
const EmbeddedAvailable = false

func (s *Stack) startTemporal(context.Context, bool) error {
	return fmt.Errorf("%w: pass --temporal HOST:PORT (ASOF_TEMPORAL)", ErrNoEmbedded)
}

func (s *Stack) startGateway(context.Context) error {
	return fmt.Errorf("%w: pass --store s3://bucket/prefix or file:///path (ASOF_STORE)", ErrNoEmbedded)
}
