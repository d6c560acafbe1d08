package main

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/asofrag/asof/workflows"
)

// TestProgressMeterThroughAResume drives the index progress line through a resumed build:
// earlier runs left 20 of 77 shards and some stored parts done, then this command watches
// parts being stored and a shard land. The chunks shown never go back, the rate is over what
// this command saw embedded, and the ETA is the chunks left over that rate.
func TestProgressMeterThroughAResume(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	snap := func(shardsDone, chunksDone, docsLeft int) workflows.Progress {
		return workflows.Progress{Stage: "building", ShardsTotal: 77, ShardsDone: shardsDone, ChunksDone: chunksDone, DocsToBuild: docsLeft}
	}
	steps := []struct {
		at       time.Duration
		p        workflows.Progress
		inFlight int
		want     string // the line after the bar
	}{
		// Resumed: 1200 chunks in 20 shards, 64 chunks stored by an earlier attempt of an
		// in-flight shard; nothing embedded by this command yet, so no rate.
		{0, snap(20, 1200, 1000), 64, "1264 chunks embedded, 0s"},
		{time.Second, snap(20, 1200, 1000), 64, "1264 chunks embedded, 1s"},
		// Two more parts in 10 s: 12.8 chunks/s, not (1264+128)/10; left: 1000 documents at
		// one chunk each, less the 192 stored.
		{10 * time.Second, snap(20, 1200, 1000), 192, "1392 chunks embedded, 12.80 chunks/s, ETA ~1m3s, 10s"},
		// The shard lands with 150 chunks of 100 documents (its last part held fewer than 64):
		// 1350 < 1392 shown, which stays; from now on 1.5 chunks a document.
		{20 * time.Second, snap(21, 1350, 900), 0, "1392 chunks embedded, 6.40 chunks/s, ETA ~3m31s, 20s"},
		{40 * time.Second, snap(21, 1350, 900), 320, "1670 chunks embedded, 10.15 chunks/s, ETA ~1m41s, 40s"},
	}
	var m progressMeter
	prev := 0
	tail := regexp.MustCompile(`shards, (.*)$`)
	count := regexp.MustCompile(`(\d+) chunks embedded`)
	for _, s := range steps {
		line := m.line(s.p, s.inFlight, t0.Add(s.at), s.at)
		got := tail.FindStringSubmatch(line)
		if got == nil || got[1] != s.want {
			t.Errorf("at %s: %q, want ...%q", s.at, line, s.want)
			continue
		}
		n, _ := strconv.Atoi(count.FindStringSubmatch(line)[1])
		if n < prev {
			t.Errorf("at %s: chunks embedded went back from %d to %d", s.at, prev, n)
		}
		prev = n
	}
}

// TestProgressMeterFreshBuild: a build from nothing states no rate before minRateWindow and
// an ETA from the documents left once chunks are stored.
func TestProgressMeterFreshBuild(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var m progressMeter
	p := workflows.Progress{Stage: "building", ShardsTotal: 4, DocsToBuild: 400}
	if got, want := m.line(p, 0, t0, 0), "building [..............................] 0/4 shards, 0 chunks embedded, 0s"; got != want {
		t.Errorf("start: %q, want %q", got, want)
	}
	if got, want := m.line(p, 100, t0.Add(2*time.Second), 2*time.Second), "building [..............................] 0/4 shards, 100 chunks embedded, 2s"; got != want {
		t.Errorf("within the window: %q, want %q", got, want)
	}
	if got, want := m.line(p, 100, t0.Add(10*time.Second), 10*time.Second), "building [..............................] 0/4 shards, 100 chunks embedded, 10.00 chunks/s, ETA ~30s, 10s"; got != want {
		t.Errorf("after 10 s: %q, want %q", got, want)
	}
}
