// Command asof is the one CLI of asof, a Temporal RAG system that answers "as of" a date.
//
//	asof dev                      everything embedded in one process (Temporal, S3, worker)
//	asof server                   embedded Temporal + S3 only, for workers in other processes
//	asof worker --temporal H:P    a worker against any Temporal cluster and store
//	asof config                   the effective configuration, secrets redacted
//	asof version                  build and dependency versions
//
// Run `asof COMMAND --help` for each command's flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one CLI invocation and returns its exit code; tests call it directly.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if path := os.Getenv("ASOF_CPU_PROFILE"); path != "" {
		stopProfile, err := startCPUProfile(path)
		if err != nil {
			printError(stderr, err)
			return 1
		}
		defer stopProfile()
	}
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return 130
		}
		printError(stderr, unknownCommand(root, err))
		return 1
	}
	return 0
}

// startCPUProfile writes a Go CPU profile of the whole process to path until the returned stop
// is called: with ASOF_CPU_PROFILE=FILE, every command (an index build with its embedded
// Temporal server, S3 gateway and worker) can be read with `go tool pprof -top bin/asof FILE`.
// Time inside ONNX Runtime and other C code shows as runtime.cgocall.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("ASOF_CPU_PROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("ASOF_CPU_PROFILE: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// printError prints err on one line (the AWS SDK's "no credentials" as where the keys come
// from); a failed workflow run (see explainFailure) gets a second line that names the
// workflow to look up.
func printError(w io.Writer, err error) {
	err = explainNoCredentials(err)
	fmt.Fprintf(w, "asof: %s\n", oneLine(err))
	var rf *runFailure
	if errors.As(err, &rf) && rf.Where != "" {
		fmt.Fprintf(w, "  %s\n", rf.Where)
	}
}

// oneLine folds a (possibly joined) error into one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
