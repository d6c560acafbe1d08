package main

import (
	"fmt"

	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/redact"
	"github.com/asofrag/asof/workflows"
)

// runFailure is workflows.RunFailure: a failed run as a person reads it.
type runFailure = workflows.RunFailure

// explainFailure is workflows.ExplainFailure: the root cause once, and where to look.
func explainFailure(err error, workflowID, ui string) error {
	return workflows.ExplainFailure(err, workflowID, ui)
}

// the embedded one `asof dev` and `asof server` serve on this data dir, or the cluster's own.
func webUIHint(cfg config.Config, served string) string {
	switch {
	case served != "":
		return "in the Web UI at " + served
	case cfg.Temporal.Embedded() && cfg.Temporal.UIPort > 0:
		return fmt.Sprintf("in the Web UI at http://127.0.0.1:%d (while asof dev or asof server runs)", cfg.Temporal.UIPort)
	case cfg.Temporal.Embedded():
		return "in the Web UI (asof dev --ui-port N serves it)"
	default:
		return fmt.Sprintf("in the Temporal Web UI of %s (namespace %s)", redact.URL(cfg.Temporal.Address), cfg.Temporal.Namespace)
	}
}
