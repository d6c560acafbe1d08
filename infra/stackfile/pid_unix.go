//go:build unix

package stackfile

import (
	"errors"
	"syscall"
)

// processExists reports whether a process with this id runs (one owned by another user
// counts: signal 0 is then refused with EPERM).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
