package lexical

// SearchAllPerShard is SearchAll as it was before collection statistics (per-shard document
// frequencies, query norm and date terms; summed cardinalities), for the measurement in
// measure_test.go.
func SearchAllPerShard(indexes []*Index, q string, k int, w Window) ([]ShardHit, error) {
	return searchAll(indexes, q, k, w, shardDF)
}
