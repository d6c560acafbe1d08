// Package worker wires asof's workflows and activities into Temporal workers. Register is the
// single place that lists them; the real worker process and the tests both call it, so what is
// tested is what runs.
package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/workflows"
)

// Deps are the real dependencies activities run with (activities.Deps; the alias lets a
// client such as cmd/asof build them without importing activities).
type Deps = activities.Deps

// Register adds every workflow and activity of asof to r.
func Register(r sdkworker.Registry, deps Deps) {
	RegisterWorkflows(r)
	RegisterActivities(r, deps)
}

// RegisterWorkflows adds every workflow of asof to r (the list is workflows.Register).
func RegisterWorkflows(r sdkworker.WorkflowRegistry) {
	workflows.Register(r)
}

// RegisterActivities adds every activity of asof to r, bound to deps.
func RegisterActivities(r sdkworker.ActivityRegistry, deps Deps) {
	registerActivities(r, NewActivities(deps))
}

// registerActivities adds acts to r: the SDK registers every exported method of the struct as
// an activity named after the method, so Activities has no exported method that is not one
// (activities.Close is a function for that reason; TestOnlyActivitiesAreRegistered checks).
func registerActivities(r sdkworker.ActivityRegistry, acts *activities.Activities) {
	r.RegisterActivity(acts)
}

// Colocated is what a process polling queues with deps serves besides its workflows, for the
// Ask workflow's local activities (workflows.Colocated): the query embedder when it polls
// asof-embed with one; no LLM when it polls asof-llm without one; the heuristic as the auto
// judge when it polls asof-llm with no LLM or one that does not judge (llm.judge heuristic).
func Colocated(queues []string, deps Deps) workflows.Colocated {
	return workflows.Colocated{
		QueryEmbedder:  slices.Contains(queues, config.QueueEmbed) && deps.Embedder != nil,
		NoLLM:          slices.Contains(queues, config.QueueLLM) && deps.LLM == nil,
		HeuristicJudge: slices.Contains(queues, config.QueueLLM) && (deps.LLM == nil || deps.HeuristicAutoJudge),
	}
}

// NewActivities builds the Activities struct from deps.
func NewActivities(deps Deps) *activities.Activities {
	id := deps.Identity
	if id == "" {
		id = DefaultIdentity()
	}
	deps.Identity = id
	return &activities.Activities{Deps: deps}
}

// queueOptions are the SDK worker's options for task queue q. The asof-llm queue runs at most
// deps.LLMSlots activities at once when that is set (llm.slots): the rest wait in Temporal's
// queue, where no timeout runs, not in the LLM server's, where theirs would.
func queueOptions(q string, cfg config.Worker, deps Deps) sdkworker.Options {
	opts := sdkworker.Options{
		Identity:                           deps.Identity,
		MaxConcurrentActivityExecutionSize: cfg.MaxConcurrentActivities,
		WorkerStopTimeout:                  cfg.ShutdownTimeout,
		DisableWorkflowWorker:              q != workflows.TaskQueue,
	}
	if q == config.QueueLLM && deps.LLMSlots > 0 {
		opts.MaxConcurrentActivityExecutionSize = deps.LLMSlots
	}
	return opts
}

// DefaultIdentity is host:pid.
func DefaultIdentity() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// Run starts one worker per configured task queue on c, all in this process, and blocks until
// ctx is done; then it stops them, letting running activities finish within
// cfg.ShutdownTimeout. Workflows run on the default queue only; the embed and LLM queues serve
// activities.
func Run(ctx context.Context, c client.Client, cfg config.Worker, deps Deps) error {
	if len(cfg.TaskQueues) == 0 {
		return errors.New("worker: no task queue to poll")
	}
	if deps.Bucket == nil {
		return errors.New("worker: no object store configured")
	}
	acts := NewActivities(deps) // one per process: queues share its shard cache
	here := Colocated(cfg.TaskQueues, deps)
	var started []sdkworker.Worker
	stopAll := func() {
		for i := len(started) - 1; i >= 0; i-- {
			started[i].Stop()
		}
	}
	for _, q := range cfg.TaskQueues {
		opts := queueOptions(q, cfg, deps)
		w := sdkworker.New(c, q, opts)
		registerActivities(w, acts)
		if !opts.DisableWorkflowWorker {
			workflows.RegisterColocated(w, here)
		}
		if err := w.Start(); err != nil {
			stopAll()
			return fmt.Errorf("worker: start on task queue %s: %w", q, err)
		}
		started = append(started, w)
	}
	deps.Metrics.SetReady(true)
	<-ctx.Done()
	deps.Metrics.SetReady(false)
	stopAll()
	return activities.Close(acts)
}
