package retrieve

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
)

// mergeFragments is the time-gap cluster rerank: per source, candidates sorted by time form
// runs where each is at most gap after the previous one. A run of n ≥ 2 becomes one candidate:
// its best-scored fragment (ties: lower chunk id), with Fragments n, FragmentIDs the run's
// chunk ids oldest first, Chunk.Text the run's distinct texts oldest first joined by blank lines
// (on a copy of the chunk: the shard's stays as it is), and the composite score
//
//	mean(fragment scores) + bonus·ln(1 + density),  density = n − 1.
//
// Lone candidates keep their score and get Fragments 1. The input order does not matter; the
// output is unsorted.
func mergeFragments(cands []Candidate, gap time.Duration, bonus float64) []Candidate {
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
		cands[i].Fragments = 1
	}
	slices.SortFunc(idx, func(a, b int) int {
		ca, cb := cands[a].Chunk, cands[b].Chunk
		return cmp.Or(cmp.Compare(ca.Source, cb.Source), ca.PublishedAt.Compare(cb.PublishedAt), cmp.Compare(ca.ChunkID, cb.ChunkID))
	})
	out := make([]Candidate, 0, len(cands))
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) {
			prev, next := cands[idx[end-1]].Chunk, cands[idx[end]].Chunk
			if next.Source != prev.Source || next.PublishedAt.Sub(prev.PublishedAt) > gap {
				break
			}
			end++
		}
		run := idx[start:end]
		if len(run) == 1 {
			out = append(out, cands[run[0]])
			start = end
			continue
		}
		best := run[0]
		sum := 0.0
		ids := make([]string, 0, len(run))
		var texts []string
		for _, i := range run {
			c := cands[i]
			if c.Score > cands[best].Score || (c.Score == cands[best].Score && c.Chunk.ChunkID < cands[best].Chunk.ChunkID) {
				best = i
			}
			sum += c.Score
			ids = append(ids, c.Chunk.ChunkID)
			if t := strings.TrimSpace(c.Chunk.Text); t != "" && !slices.Contains(texts, t) {
				texts = append(texts, t)
			}
		}
		c := cands[best]
		ch := *c.Chunk
		ch.Text = strings.Join(texts, "\n\n")
		c.Chunk = &ch
		n := len(run)
		c.Fragments, c.FragmentIDs = n, ids
		c.Score = sum/float64(n) + bonus*math.Log(1+float64(n-1))
		out = append(out, c)
		start = end
	}
	return out
}
