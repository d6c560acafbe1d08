package temporalserver

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// fatalHook replaces zap's exit on a Fatal entry. The Temporal server ends the process with
// logger.Fatal when a service cannot go on (a listener it cannot serve, a ringpop or namespace
// registry it cannot start); zap writes that line only to the server's log file and calls
// os.Exit(1), so the asof process — or a test binary running the embedded server — vanished
// with no word on its terminal. The hook says why on stderr, with the log's path, then exits.
type fatalHook struct {
	logPath string
	w       io.Writer
	exit    func(int)
}

// OnWrite implements zapcore.CheckWriteHook.
func (h fatalHook) OnWrite(ce *zapcore.CheckedEntry, fields []zapcore.Field) {
	fmt.Fprintf(h.w, "asof: the embedded Temporal server stopped this process: %s\n", fatalLine(ce.Message, fields))
	fmt.Fprintf(h.w, "asof: its log: %s\n", h.logPath)
	h.exit(1)
}

// fatalLine is the entry's message and its fields (the error first), on one line.
func fatalLine(msg string, fields []zapcore.Field) string {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range fields {
		f.AddTo(enc)
	}
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		if k != "logging-call-at" {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == "error") != (keys[j] == "error") {
			return keys[i] == "error"
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	b.WriteString(msg)
	for _, k := range keys {
		fmt.Fprintf(&b, "; %s: %v", k, enc.Fields[k])
	}
	return b.String()
}

// withFatalHook makes z's Fatal entries go through fatalHook (writing to stderr, exiting 1).
func withFatalHook(z *zap.Logger, logPath string) *zap.Logger {
	return z.WithOptions(zap.WithFatalHook(fatalHook{logPath: logPath, w: os.Stderr, exit: os.Exit}))
}
