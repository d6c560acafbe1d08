//go:build race

package testmodel

const raceEnabled = true
