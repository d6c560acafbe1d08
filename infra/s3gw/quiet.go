package s3gw

import (
	"os"

	"golang.org/x/sys/unix"
)

// quietStdout points file descriptor 1 at /dev/null until restore is called. versitygw prints
// start-up lines ("Using sidecar directory…", "No IAM service configured…") with fmt.Println,
// which would corrupt a command's stdout (`asof ask --json | jq`). It works on the descriptor,
// not on the os.Stdout variable, so no Go code races with it; one gateway per process starts at
// a time.
func quietStdout() (restore func()) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return func() {}
	}
	defer null.Close()
	saved, err := unix.Dup(1)
	if err != nil {
		return func() {}
	}
	if err := unix.Dup2(int(null.Fd()), 1); err != nil {
		unix.Close(saved)
		return func() {}
	}
	return func() {
		_ = unix.Dup2(saved, 1)
		unix.Close(saved)
	}
}
