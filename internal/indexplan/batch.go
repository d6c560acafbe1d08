package indexplan

// BatchMaxShards is the most shards one batch holds. A batch is built by one child workflow
// whose three activities take a list of shards, so its cost is that of one shard (55–300 ms
// here: docs/capacity.md §5) and its payloads hold one entry per shard (about 0.3 KB in the
// largest, WriteShard's input): 64 keeps each under 20 KB, well inside the 64 KB the scale
// test allows, and saves 63 of every 64 children of an archive of tiny daily shards.
const BatchMaxShards = 64

// BatchMaxDocs is the most documents a batch of more than one shard holds. Batching pays only
// where the fixed cost of a shard is large next to its work: 256 one-chunk documents embed in
// about 20 s at 12.5 chunks/s (docs/capacity.md §1), against which 0.3 s a shard is small. The
// bound also keeps one batch's EmbedShard from becoming a long activity that one embed worker
// holds while others idle. A period of more documents is a batch of its own.
const BatchMaxDocs = 256

// BatchOptions bound a batch of shards.
type BatchOptions struct {
	// MaxShards is the most shards a batch holds (< 1: 1).
	MaxShards int
	// MaxDocs is the most documents a batch of more than one shard holds (< 1: each period
	// that has documents is a batch of its own).
	MaxDocs int
}

// DefaultBatchOptions are BatchMaxShards and BatchMaxDocs.
func DefaultBatchOptions() BatchOptions {
	return BatchOptions{MaxShards: BatchMaxShards, MaxDocs: BatchMaxDocs}
}

// Batches groups consecutive periods, given by their documents (docs[i] for the i-th), into
// batches of at most o.MaxShards periods and at most o.MaxDocs documents, and returns each
// batch's number of periods, in order; they add up to len(docs). It is greedy: a period joins
// the open batch unless that would pass a bound, so a period of more than o.MaxDocs documents
// is a batch of one. The same docs and options always give the same batches.
func Batches(docs []int, o BatchOptions) []int {
	maxShards := max(1, o.MaxShards)
	var sizes []int
	n, sum := 0, 0 // the open batch: periods and documents
	for _, d := range docs {
		if n > 0 && (n == maxShards || sum+d > o.MaxDocs) {
			sizes = append(sizes, n)
			n, sum = 0, 0
		}
		n++
		sum += d
	}
	if n > 0 {
		sizes = append(sizes, n)
	}
	return sizes
}
