//go:build !race

package lexical

// raceEnabled: see race_test.go.
const raceEnabled = false
