//go:build tools

package tools

import (
	_ "go.temporal.io/server/cmd/server"
	_ "go.temporal.io/server/cmd/tools/sql"
	_ "github.com/versity/versitygw/cmd/versitygw"
)
