package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/asofrag/asof/internal/keepalive"
)

// heartbeat records an activity's progress (activity.RecordHeartbeat): every activity that
// heartbeats does it through here, and a retry reads the last details back to resume.
func heartbeat(ctx context.Context, details any) { activity.RecordHeartbeat(ctx, details) }

// keepAliveFor starts a keepalive.KeepAlive for ctx's activity at its heartbeat timeout.
func keepAliveFor(ctx context.Context) *keepalive.KeepAlive {
	return keepalive.Start(ctx, activity.GetInfo(ctx).HeartbeatTimeout, func(details any) { heartbeat(ctx, details) })
}

// PartStall is how long one embedding part may run before EmbedShard stops vouching for its
// worker (keepalive.PartStall).
const PartStall = keepalive.PartStall
