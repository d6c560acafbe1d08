//go:build race

package worker_test

// raceEnabled: the race detector slows an index build ~10x (0.3 s a daily shard instead of
// ~0.03 s), so the scale test builds weekly shards under it; make test runs it again without.
const raceEnabled = true
