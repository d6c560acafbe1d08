package s3gw

import (
	"bufio"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// startupNoise are the beginnings of the lines versitygw prints on every start, which say
// nothing to an asof user (the metadata folder is asof's choice, single-account mode its
// design): they are dropped unless the gateway runs with Debug.
var startupNoise = []string{"Using sidecar directory for metadata", "No IAM service configured"}

// quietStdout points file descriptor 1 at a pipe until restore is called, and copies what
// arrives there to stderr, line by line, without the lines keep rejects. versitygw prints
// its start-up lines with fmt.Println, which would corrupt a command's stdout (`asof ask
// --json | jq`) and, on stderr, repeat themselves on every command. It works on the
// descriptor, not on the os.Stdout variable, so no Go code races with it; and whatever
// another goroutine writes meanwhile still reaches stderr. One gateway per process starts at
// a time. restore waits until the pipe is drained.
func quietStdout(keep func(line string) bool) (restore func()) {
	saved, err := unix.Dup(1)
	if err != nil {
		return func() {}
	}
	r, w, err := os.Pipe()
	if err != nil {
		unix.Close(saved)
		return func() {}
	}
	if err := unix.Dup2(int(w.Fd()), 1); err != nil {
		unix.Close(saved)
		r.Close()
		w.Close()
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		copyLines(os.Stderr, r, keep)
		r.Close()
	}()
	return func() {
		_ = unix.Dup2(saved, 1) // the pipe's last writer is now w alone
		unix.Close(saved)
		w.Close()
		<-done
	}
}

// copyLines copies the lines of r that keep accepts to out.
func copyLines(out io.Writer, r io.Reader, keep func(string) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); keep(line) {
			_, _ = io.WriteString(out, line+"\n")
		}
	}
	_, _ = io.Copy(out, r) // a line too long for the scanner: the rest as it is
}

// notNoise reports whether line is not one of versitygw's start-up lines (startupNoise).
func notNoise(line string) bool {
	for _, n := range startupNoise {
		if strings.HasPrefix(line, n) {
			return false
		}
	}
	return true
}
