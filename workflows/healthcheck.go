package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// HealthCheck proves the whole stack works: a worker writes a probe object to the store, reads
// it back, compares it with what the workflow sent, deletes it, and then a worker on every
// task queue answers a ping. `asof dev` runs it at start-up.
func HealthCheck(ctx workflow.Context, in HealthCheckInput) (HealthCheckResult, error) {
	if in.Prefix == "" {
		in.Prefix = layout.HealthPrefix
	}
	if len(in.Queues) == 0 {
		in.Queues = config.AllQueues
	}
	if in.QueueTimeout <= 0 {
		in.QueueTimeout = 20 * time.Second
	}
	info := workflow.GetInfo(ctx)
	probe := schemas.HealthProbe{
		Version:    schemas.HealthProbeVersion,
		WorkflowID: info.WorkflowExecution.ID,
		RunID:      info.WorkflowExecution.RunID,
		WrittenAt:  workflow.Now(ctx).UTC(),
		Payload:    strings.Repeat("as of ", 170), // ~1 KiB
	}
	key := layout.HealthProbeKey(in.Prefix, info.WorkflowExecution.RunID)

	storeCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    500 * time.Millisecond,
			BackoffCoefficient: 2,
			MaximumAttempts:    5,
		},
	})
	var wrote activities.WriteProbeResult
	if err := workflow.ExecuteActivity(storeCtx, a.WriteProbe, activities.WriteProbeInput{Key: key, Probe: probe}).Get(ctx, &wrote); err != nil {
		return HealthCheckResult{}, fmt.Errorf("write probe: %w", err)
	}
	var read activities.ReadProbeResult
	if err := workflow.ExecuteActivity(storeCtx, a.ReadProbe, activities.ReadProbeInput{Key: key}).Get(ctx, &read); err != nil {
		return HealthCheckResult{}, fmt.Errorf("read probe: %w", err)
	}
	if !read.Probe.Equal(probe) || read.Bytes != wrote.Bytes {
		return HealthCheckResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("probe %s came back different: wrote %d bytes, read %d", key, wrote.Bytes, read.Bytes), ErrTypeHealth, nil)
	}
	var del activities.DeleteProbeResult
	if err := workflow.ExecuteActivity(storeCtx, a.DeleteProbe, activities.DeleteProbeInput{Key: key}).Get(ctx, &del); err != nil {
		return HealthCheckResult{}, fmt.Errorf("delete probe: %w", err)
	}

	// Ping every queue in parallel; a queue nobody polls fails after QueueTimeout.
	pings := make([]workflow.Future, len(in.Queues))
	for i, q := range in.Queues {
		qctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:              q,
			ScheduleToStartTimeout: in.QueueTimeout,
			StartToCloseTimeout:    10 * time.Second,
			RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
		})
		pings[i] = workflow.ExecuteActivity(qctx, a.Ping, activities.PingInput{})
	}
	res := HealthCheckResult{Store: wrote.Store, Key: key, Bytes: wrote.Bytes, WrittenAt: probe.WrittenAt}
	var missing []string
	for i, f := range pings {
		var p activities.PingResult
		if err := f.Get(ctx, &p); err != nil {
			missing = append(missing, in.Queues[i])
			continue
		}
		res.Queues = append(res.Queues, p)
	}
	if len(missing) > 0 {
		return res, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("no worker answered on task queue(s) %s within %s; start one with `asof worker --task-queues %s`",
				strings.Join(missing, ", "), in.QueueTimeout, strings.Join(missing, ",")), ErrTypeHealth, nil)
	}
	return res, nil
}
