package embed

import (
	"math"
	"sort"
)

// Batching defaults: a model call holds at most DefaultBatchSize texts and at most
// DefaultBatchTokens padded tokens (texts × the longest text's tokens). Texts are sorted by
// length first, so a batch pads little; measured on 2 cores (BENCHMARKS.md).
const (
	DefaultBatchSize   = 16
	DefaultBatchTokens = 2048
)

// PlanBatches groups texts of the given token lengths into model calls: longest first (ties in
// input order), each call at most maxTexts texts and at most maxTokens padded tokens (its
// length × its longest text), but always at least one text. It returns the texts' indices,
// call by call; every index appears exactly once. The order is deterministic, so the same
// texts always meet in the same calls.
func PlanBatches(lengths []int, maxTexts, maxTokens int) [][]int {
	if maxTexts <= 0 {
		maxTexts = DefaultBatchSize
	}
	if maxTokens <= 0 {
		maxTokens = math.MaxInt
	}
	order := make([]int, len(lengths))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return lengths[order[a]] > lengths[order[b]] })
	var out [][]int
	for start := 0; start < len(order); {
		longest := max(1, lengths[order[start]]) // sorted: the first text is the call's longest
		n := max(1, min(maxTexts, maxTokens/longest, len(order)-start))
		out = append(out, order[start:start+n:start+n])
		start += n
	}
	return out
}

// PaddedTokens is what a plan costs the model: the sum over calls of texts × longest text.
func PaddedTokens(lengths []int, plan [][]int) int {
	total := 0
	for _, call := range plan {
		longest := 0
		for _, i := range call {
			longest = max(longest, lengths[i])
		}
		total += longest * len(call)
	}
	return total
}
