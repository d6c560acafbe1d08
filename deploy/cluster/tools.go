//go:build tools

// Package tools pins the external cluster's programs (the Temporal server and its SQL schema
// tool, versitygw) in this module's go.mod, apart from asof's own; cluster.sh builds them.
package tools

import (
	_ "github.com/versity/versitygw/cmd/versitygw"
	_ "go.temporal.io/server/cmd/server"
	_ "go.temporal.io/server/cmd/tools/sql"
)
