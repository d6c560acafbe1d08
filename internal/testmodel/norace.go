//go:build !race

package testmodel

const raceEnabled = false
