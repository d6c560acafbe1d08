// Package keepalive heartbeats a long activity on a ticker while one slow call (an
// embedding part) runs, and stops vouching for it once that call has run past PartStall, so
// a worker that dies is found within the heartbeat timeout however long its parts take, and
// a hung call still times out. It knows nothing of Temporal: the caller passes the function
// that records a heartbeat.
package keepalive

import (
	"context"
	"sync"
	"time"
)

// PartStall is how long one embedding part may run before a KeepAlive stops vouching for its
// worker. A part of 128 long chunks takes seconds on ONNX Runtime and minutes on the pure-Go
// backend; a call still running after PartStall is taken as hung.
const PartStall = 10 * time.Minute

// KeepAlive heartbeats on a ticker while an embedding part runs, so that a worker that dies is
// found within the activity's heartbeat timeout (a minute by default) however long its parts
// take, instead of after the longest part's time. It stops vouching once the part in progress
// is older than PartStall, so a hung call still times out. The details it sends are those of
// the last stored part, as the progress heartbeats'.
type KeepAlive struct {
	beat  func(details any)
	mu    sync.Mutex
	since time.Time // the part in progress began; zero between parts
	last  any
	quit  chan struct{}
	done  chan struct{}
}

// Start returns a KeepAlive that calls beat every quarter of timeout (at least a second, at
// most 30 s) until Stop or ctx ends; with no heartbeat timeout it does nothing.
func Start(ctx context.Context, timeout time.Duration, beat func(details any)) *KeepAlive {
	k := &KeepAlive{beat: beat, last: -1, quit: make(chan struct{}), done: make(chan struct{})}
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
				k.Tick(now)
			case <-k.quit:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return k
}

// PartStarted marks the start of a part's embedding call.
func (k *KeepAlive) PartStarted(now time.Time) {
	k.mu.Lock()
	k.since = now
	k.mu.Unlock()
}

// Progress records a stored part: the part is over, and its number is the details to send.
func (k *KeepAlive) Progress(part any) {
	k.mu.Lock()
	k.since, k.last = time.Time{}, part
	k.mu.Unlock()
}

// Tick heartbeats unless the part in progress has run past PartStall; it reports whether it did.
func (k *KeepAlive) Tick(now time.Time) bool {
	k.mu.Lock()
	since, last := k.since, k.last
	k.mu.Unlock()
	if !since.IsZero() && now.Sub(since) > PartStall {
		return false
	}
	k.beat(last)
	return true
}

// Stop ends the ticker and waits for it.
func (k *KeepAlive) Stop() {
	select {
	case <-k.done:
	default:
		close(k.quit)
		<-k.done
	}
}
