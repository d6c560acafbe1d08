package keepalive

import (
	"context"
	"testing"
	"time"
)

// TestKeepAliveVouchesUntilAPartStalls: between parts and while a part is younger than
// PartStall the ticker heartbeats with the last stored part's details; past PartStall it stops,
// so a hung call times out; a stored part resumes it.
func TestKeepAliveVouchesUntilAPartStalls(t *testing.T) {
	var sent []any
	k := Start(context.Background(), 0, func(d any) { sent = append(sent, d) }) // no ticker: ticks by hand
	defer k.Stop()
	t0 := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	for _, step := range []struct {
		name   string
		do     func()
		at     time.Duration
		beats  bool
		detail any
	}{
		{name: "before any part", at: 0, beats: true, detail: -1},
		{name: "part 0 starts", do: func() { k.PartStarted(t0) }, at: time.Minute, beats: true, detail: -1},
		{name: "part 0 at the stall bound", at: PartStall, beats: true, detail: -1},
		{name: "part 0 stalled", at: PartStall + time.Second, beats: false},
		{name: "part 0 stored", do: func() { k.Progress(0) }, at: PartStall + 2*time.Second, beats: true, detail: 0},
		{name: "part 1 runs long", do: func() { k.PartStarted(t0.Add(PartStall + 3*time.Second)) }, at: 2 * PartStall, beats: true, detail: 0},
		{name: "part 1 stalled", at: 2*PartStall + 4*time.Second, beats: false},
	} {
		if step.do != nil {
			step.do()
		}
		n := len(sent)
		if got := k.Tick(t0.Add(step.at)); got != step.beats || (len(sent) > n) != step.beats {
			t.Fatalf("%s: tick %v, %d heartbeats sent, want %v", step.name, got, len(sent)-n, step.beats)
		}
		if step.beats && sent[len(sent)-1] != step.detail {
			t.Fatalf("%s: details %v, want %v", step.name, sent[len(sent)-1], step.detail)
		}
	}
}

// TestKeepAliveTicks: with a heartbeat timeout the ticker runs on its own (every second at
// the least) and stop ends it.
func TestKeepAliveTicks(t *testing.T) {
	beats := make(chan any, 16)
	k := Start(context.Background(), 2*time.Second, func(d any) {
		select {
		case beats <- d:
		default:
		}
	})
	select {
	case d := <-beats:
		if d != -1 {
			t.Fatalf("details %v before any part", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no heartbeat within 10 s at a 2 s timeout")
	}
	k.Stop()
	k.Stop() // twice is fine
}
