// Package workflows holds asof's Temporal workflows: orchestration only, deterministic.
//
// Workflow code here never does I/O, never reads the wall clock (workflow.Now only), never
// ranges over a map, and passes object keys and counts rather than payloads. Every step that
// touches the world is an activity in package activities.
package workflows

//go:generate go test -count=1 -run ^(TestPublishedJSONSchemasAreCurrent|TestAPIChangesAreAdditive)$ -update-schemas .

import "github.com/asofrag/asof/activities"

// a references activity methods; it is never dereferenced (Temporal resolves names).
var a *activities.Activities
