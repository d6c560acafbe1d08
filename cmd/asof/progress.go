package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/asofrag/asof/workflows"
)

// progressMeter turns the index build's progress snapshots into the line asof index shows.
// What it says holds through a resume and through shards landing:
//   - the chunks embedded never go back (the stored parts of in-flight shards are counted
//     exactly, inFlightCounter, but a batch's shards are written, and their parts deleted,
//     before the batch's chunks are tallied, so the sum can briefly dip);
//   - the rate is over the chunks this command has seen embedded since it began watching,
//     not over what earlier runs left done (a resumed build starts with many chunks done);
//   - the ETA is the chunks left (the documents left, times the chunks a document makes in
//     this build, less what in-flight shards have already embedded) over that rate.
type progressMeter struct {
	started   bool
	t0        time.Time
	baseChunk int // chunks done when watching began (earlier runs' shards and stored parts)
	baseDone  int // of which in landed shards
	baseDocs  int // documents left to build then
	shown     int // the most chunks ever shown
}

// minRateWindow is how long the meter watches before it states a rate: a first second's
// rate is noise.
const minRateWindow = 3 * time.Second

// line is the progress line for snapshot p, with inFlight chunks already stored by the shards
// being built, seen at now, elapsed since the command began.
func (m *progressMeter) line(p workflows.Progress, inFlight int, now time.Time, elapsed time.Duration) string {
	bar := ""
	if p.ShardsTotal > 0 {
		const width = 30
		filled := width * min(p.ShardsDone, p.ShardsTotal) / p.ShardsTotal
		bar = fmt.Sprintf(" [%s%s] %d/%d shards", strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.ShardsDone, p.ShardsTotal)
	}
	done := p.ChunksDone + inFlight
	if !m.started && p.ShardsTotal > 0 {
		m.started, m.t0, m.baseChunk, m.baseDone, m.baseDocs = true, now, done, p.ChunksDone, p.DocsToBuild
	}
	m.shown = max(m.shown, done)
	rate := ""
	if m.started {
		if d := now.Sub(m.t0); d >= minRateWindow && m.shown > m.baseChunk {
			r := float64(m.shown-m.baseChunk) / d.Seconds()
			rate = fmt.Sprintf(", %.2f chunks/s", r)
			if left := m.chunksLeft(p, inFlight); left > 0 {
				rate += ", ETA ~" + time.Duration(float64(left)/r*float64(time.Second)).Round(time.Second).String()
			}
		}
	}
	return fmt.Sprintf("%s%s, %d chunks embedded%s, %s", p.Stage, bar, m.shown, rate, elapsed.Round(time.Second))
}

// chunksLeft estimates the chunks still to embed: the documents left times the chunks a
// document made in the shards this command saw land (one before any has: short texts make
// about one chunk each), less what the in-flight shards have stored.
func (m *progressMeter) chunksLeft(p workflows.Progress, inFlight int) int {
	perDoc := 1.0
	if docs, chunks := m.baseDocs-p.DocsToBuild, p.ChunksDone-m.baseDone; docs > 0 && chunks > 0 {
		perDoc = float64(chunks) / float64(docs)
	}
	return max(0, int(float64(p.DocsToBuild)*perDoc+0.5)-inFlight)
}
