//go:build !unix

package stackfile

// processExists cannot ask the system here; Find then relies on the addresses answering.
func processExists(int) bool { return true }
