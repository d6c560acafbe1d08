package s3gw

import "golang.org/x/sys/unix"

// quietStdout points file descriptor 1 at stderr until restore is called. versitygw prints
// start-up lines ("Using sidecar directory…", "No IAM service configured…") with fmt.Println,
// which would corrupt a command's stdout (`asof ask --json | jq`). It works on the descriptor,
// not on the os.Stdout variable, so no Go code races with it; and it sends to stderr rather
// than discarding, so nothing another goroutine writes meanwhile is ever lost. One gateway per
// process starts at a time.
func quietStdout() (restore func()) {
	saved, err := unix.Dup(1)
	if err != nil {
		return func() {}
	}
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(saved)
		return func() {}
	}
	return func() {
		_ = unix.Dup2(saved, 1)
		unix.Close(saved)
	}
}
