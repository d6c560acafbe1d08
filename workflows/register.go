package workflows

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Register adds every workflow of asof to r under its name. It is the one list: the worker
// (worker.RegisterWorkflows), the replay test and the payload tests all use it, so a workflow
// added here is run, replayed and checked alike.
func Register(r worker.WorkflowRegistry) {
	RegisterColocated(r, Colocated{})
}

// RegisterColocated is Register for a worker whose process also serves what c says: its Ask
// runs those steps as local activities (Colocated). worker.Run calls it.
func RegisterColocated(r worker.WorkflowRegistry, c Colocated) {
	r.RegisterWorkflowWithOptions(HealthCheck, workflow.RegisterOptions{Name: "HealthCheck"})
	r.RegisterWorkflowWithOptions(IndexBuild, workflow.RegisterOptions{Name: "IndexBuild"})
	r.RegisterWorkflowWithOptions(BuildShard, workflow.RegisterOptions{Name: "BuildShard"})
	r.RegisterWorkflowWithOptions(BuildShardBatch, workflow.RegisterOptions{Name: "BuildShardBatch"})
	r.RegisterWorkflowWithOptions(c.ask, workflow.RegisterOptions{Name: "Ask"})
	r.RegisterWorkflowWithOptions(Eval, workflow.RegisterOptions{Name: "Eval"})
	r.RegisterWorkflowWithOptions(Digest, workflow.RegisterOptions{Name: "Digest"})
	r.RegisterWorkflowWithOptions(EvalSummaries, workflow.RegisterOptions{Name: "EvalSummaries"})
	r.RegisterWorkflowWithOptions(TakeDown, workflow.RegisterOptions{Name: "TakeDown"})
	r.RegisterWorkflowWithOptions(Timeline, workflow.RegisterOptions{Name: "Timeline"})
}
