//go:build race

package lexical

// raceEnabled: the race detector slows bleve's indexing ~10x, so the realtimeqa parity test
// indexes fewer articles.
const raceEnabled = true
