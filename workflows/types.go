// Package workflows holds asof's Temporal workflows: orchestration only, deterministic.
//
// Workflow code here never does I/O, never reads the wall clock (workflow.Now only), never
// ranges over a map, and passes object keys and counts rather than payloads. Every step that
// touches the world is an activity in package activities.
package workflows

//go:generate go test -count=1 -run ^(TestPublishedJSONSchemasAreCurrent|TestAPIChangesAreAdditive)$ -update-schemas .

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
)

// TaskQueue is where workflows and general activities run.
const TaskQueue = config.QueueDefault

// a references activity methods; it is never dereferenced (Temporal resolves names).
var a *activities.Activities

// HealthCheckInput configures a health check.
type HealthCheckInput struct {
	// Prefix is the folder of the probe object in the store (default "health").
	Prefix string `json:"prefix"`
	// Queues to ping; each must have a worker polling it (default: all asof queues).
	Queues []string `json:"queues"`
	// QueueTimeout bounds the wait for a worker on each queue (default 20 s).
	QueueTimeout time.Duration `json:"queue_timeout"`
}

// HealthCheckResult reports each step.
type HealthCheckResult struct {
	Store     string                  `json:"store"`
	Key       string                  `json:"key"`
	Bytes     int64                   `json:"bytes"`
	WrittenAt time.Time               `json:"written_at"`
	Queues    []activities.PingResult `json:"queues"`
}

// HealthCheckWorkflowID names a health-check run started at t (client time, for humans).
func HealthCheckWorkflowID(t time.Time) string {
	return fmt.Sprintf("asof-health-%s", t.UTC().Format("20060102T150405.000Z"))
}
