package embed

import (
	"runtime"
	"testing"
)

// TestCallSlots: the number of concurrent model calls follows GOMAXPROCS (a container's CPU
// limit), not the machine's core count.
func TestCallSlots(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		name           string
		procs, threads int
		want           int
	}{
		{"one CPU allowed", 1, 1, 1},
		{"two CPUs, one thread a call", 2, 1, 2},
		{"eight CPUs, two threads a call", 8, 2, 4},
		{"more threads than CPUs", 2, 4, 1},
		{"threads 0 counts as 1", 3, 0, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GOMAXPROCS(tc.procs)
			if got := callSlots(tc.threads); got != tc.want {
				t.Fatalf("callSlots(%d) with GOMAXPROCS %d = %d, want %d", tc.threads, tc.procs, got, tc.want)
			}
		})
	}
}
