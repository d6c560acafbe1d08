package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
)

// heartbeat records an activity's progress (activity.RecordHeartbeat): every activity that
// heartbeats does it through here, and a retry reads the last details back to resume.
func heartbeat(ctx context.Context, details any) { activity.RecordHeartbeat(ctx, details) }

// keepAliveFor starts a keepAlive for ctx's activity at its heartbeat timeout.
func keepAliveFor(ctx context.Context) *keepAlive {
	return startKeepAlive(ctx, activity.GetInfo(ctx).HeartbeatTimeout, func(details any) { heartbeat(ctx, details) })
}

// PartStall is how long one embedding part may run before EmbedShard stops vouching for its
// worker. A part of 128 long chunks takes seconds on ONNX Runtime and minutes on the pure-Go
// backend; a call still running after PartStall is taken as hung.
const PartStall = 10 * time.Minute

// keepAlive heartbeats on a ticker while an embedding part runs, so that a worker that dies is
// found within the activity's heartbeat timeout (a minute by default) however long its parts
// take, instead of after the longest part's time. It stops vouching once the part in progress
// is older than PartStall, so a hung call still times out. The details it sends are those of
// the last stored part, as the progress heartbeats'.
type keepAlive struct {
	beat  func(details any)
	mu    sync.Mutex
	since time.Time // the part in progress began; zero between parts
	last  any
	quit  chan struct{}
	done  chan struct{}
}

// startKeepAlive ticks every quarter of timeout (at least a second, at most 30 s); with no
// heartbeat timeout it does nothing.
func startKeepAlive(ctx context.Context, timeout time.Duration, beat func(details any)) *keepAlive {
	k := &keepAlive{beat: beat, last: -1, quit: make(chan struct{}), done: make(chan struct{})}
	if timeout <= 0 {
		close(k.done)
		return k
	}
	every := min(max(timeout/4, time.Second), 30*time.Second)
	go func() {
		defer close(k.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				k.tick(now)
			case <-k.quit:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return k
}

// partStarted marks the start of a part's embedding call.
func (k *keepAlive) partStarted(now time.Time) {
	k.mu.Lock()
	k.since = now
	k.mu.Unlock()
}

// progress records a stored part: the part is over, and its number is the details to send.
func (k *keepAlive) progress(part any) {
	k.mu.Lock()
	k.since, k.last = time.Time{}, part
	k.mu.Unlock()
}

// tick heartbeats unless the part in progress has run past PartStall; it reports whether it did.
func (k *keepAlive) tick(now time.Time) bool {
	k.mu.Lock()
	since, last := k.since, k.last
	k.mu.Unlock()
	if !since.IsZero() && now.Sub(since) > PartStall {
		return false
	}
	k.beat(last)
	return true
}

// stop ends the ticker and waits for it.
func (k *keepAlive) stop() {
	select {
	case <-k.done:
	default:
		close(k.quit)
		<-k.done
	}
}
