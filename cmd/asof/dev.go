package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/redact"
	"github.com/asofrag/asof/worker"
	"github.com/asofrag/asof/workflows"
)

func newDevCmd(a *app) *cobra.Command {
	var once bool
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run everything in one process: embedded Temporal, embedded S3 and a worker",
		Long: `dev starts, in this one process and on 127.0.0.1 only:
  - a real Temporal server persisting to <data-dir>/temporal.db (SQLite),
  - a real S3 gateway (versitygw) serving <data-dir>/s3 as bucket "asof",
  - a worker polling every asof task queue,
  - the Temporal Web UI (--ui-port, 0 disables it),
then runs the HealthCheck workflow (write, read back and delete an object; ping each task
queue) and stays up until Ctrl-C. Other processes can use its Temporal and S3 addresses:
it prints the export lines (addresses and the gateway's S3 keys) they need. --temporal or --store use external servers instead of the embedded ones.`,
		Example: `  asof dev                       # stay up; Ctrl-C to stop
  asof dev --once                # start, health-check, stop (exit code tells)
  asof dev --data-dir /tmp/asof --temporal-port 17233 --s3-port 17070`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			began := time.Now()
			b, err := a.startBoot(ctx, "asof dev", true)
			if err != nil {
				return err
			}
			defer b.Close()
			st := b.st
			deps, merr, release, err := b.workerDeps(st.Config)
			if err != nil {
				return err
			}
			defer release()
			wctx, stopWorker := context.WithCancel(ctx)
			werr := make(chan error, 1)
			go func() { werr <- worker.Run(wctx, st.Client, st.Config.Worker, deps) }()
			defer func() { stopWorker(); <-werr }()
			unrecord, err := recordStack(st, "asof dev", st.Config.Worker.TaskQueues)
			if err != nil {
				return err
			}
			defer unrecord()

			printStack(a.stdout, st, time.Since(began))
			if merr != nil {
				printf(a.stdout, "  Model     none: indexing is unavailable until a model is present (%v)\n", merr)
			} else {
				printf(a.stdout, "  Model     %s (%d-d, sha256 %.12s…)\n", deps.Model.ID, deps.Model.Dim, deps.Model.SHA256)
				printf(a.stdout, "  Embedding %s\n", worker.EmbedderLine(st.Config, deps))
			}
			if deps.Reranker != nil {
				printf(a.stdout, "  Reranking %s\n", worker.RerankerLine(deps))
			}
			if err := healthCheck(ctx, a.stdout, &asof.Client{Temporal: st.Client, Store: st.Bucket, UI: webUIHint(a.cfg, st.Embedded.UIURL)}); err != nil {
				return err
			}
			printAttach(a.stdout, st)
			if once {
				return nil
			}
			printf(a.stdout, "\nasof dev is up. Press Ctrl-C to stop.\n")
			select {
			case <-ctx.Done():
				printf(a.stdout, "\nstopping...\n")
				return nil
			case err := <-werr:
				werr <- err // for the deferred wait
				return fmt.Errorf("worker stopped: %w", err)
			}
		},
	}
	cmd.Flags().BoolVar(&once, "once", false, "exit after the health check instead of staying up")
	a.embeddedFlags(cmd, true)
	a.workerFlags(cmd)
	a.metricsFlag(cmd)
	return cmd
}

// printStack tells a person what is running where, and how to attach another worker.
func printStack(w io.Writer, st *infra.Stack, took time.Duration) {
	c := st.Config
	printf(w, "asof is up in %s (data dir %s)\n", took.Round(time.Millisecond), c.DataDir)
	if st.Embedded.TemporalLog != "" {
		printf(w, "  Temporal  %s  namespace %s  (embedded, SQLite %s; server log %s)\n", redact.URL(c.Temporal.Address), c.Temporal.Namespace, c.TemporalDBPath(), st.Embedded.TemporalLog)
		printf(w, "  Metrics   %s  (the embedded Temporal server's own)\n", st.Embedded.TemporalMetrics)
	} else {
		printf(w, "  Temporal  %s  namespace %s\n", redact.URL(c.Temporal.Address), c.Temporal.Namespace)
	}
	if st.Embedded.UIURL != "" {
		printf(w, "  Web UI    %s\n", st.Embedded.UIURL)
	}
	if st.Embedded.S3Endpoint != "" {
		printf(w, "  S3        %s  bucket %s  (embedded versitygw over %s)\n", st.Embedded.S3Endpoint, config.DefaultBucket, c.GatewayRoot())
	} else if st.Bucket != nil {
		printf(w, "  Store     %s\n", st.Bucket)
	}
	if len(c.Worker.TaskQueues) > 0 && st.Bucket != nil {
		printf(w, "  Worker    task queues %s\n", strings.Join(c.Worker.TaskQueues, ", "))
	}
}

// printAttach shows the settings another process (a worker, or asof ask/index/eval from
// another shell) needs to use this stack, the embedded gateway's S3 keys included, and the
// command that attaches a worker. `asof dev` and `asof server` both print it.
func printAttach(w io.Writer, st *infra.Stack) {
	c := st.Config
	printf(w, "\nasof commands with --data-dir %s (ask, index, eval, worker, ...) use this stack by themselves.\n", c.DataDir)
	printf(w, "Other processes use it with:\n")
	printf(w, "  export ASOF_TEMPORAL=%s ASOF_STORE='%s'\n", c.Temporal.Address, c.Store.URL)
	if st.Embedded.S3Endpoint != "" {
		printf(w, "  export %s\n", s3KeyEnv(st))
	}
	printf(w, "\nStart a worker in another process with:\n")
	if st.Embedded.S3Endpoint != "" {
		printf(w, "  %s \\\n    asof worker --temporal %s --store '%s'\n", s3KeyEnv(st), c.Temporal.Address, c.Store.URL)
		printf(w, "  (the keys are this data dir's own, in %s)\n", c.GatewayCredsPath())
	} else {
		printf(w, "  asof worker --temporal %s --store '%s'\n", c.Temporal.Address, c.Store.URL)
	}
}

// s3KeyEnv is the environment that hands the embedded gateway's keys to another process.
func s3KeyEnv(st *infra.Stack) string {
	return fmt.Sprintf("ASOF_S3_ACCESS_KEY_ID=%s ASOF_S3_SECRET_ACCESS_KEY=%s", st.Embedded.S3AccessKeyID, st.Embedded.S3SecretAccessKey)
}

// healthCheck runs the HealthCheck workflow and prints its outcome.
func healthCheck(ctx context.Context, w io.Writer, c *asof.Client) error {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	run, err := c.StartHealthCheck(ctx, workflows.HealthCheckInput{})
	if err != nil {
		return err
	}
	id := run.ID()
	res, err := run.Wait(ctx)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("health check %s did not finish in 2 minutes (is a worker polling %s?)", id, workflows.TaskQueue)
		}
		return err
	}
	var queues []string
	for _, q := range res.Queues {
		queues = append(queues, q.TaskQueue)
	}
	printf(w, "Health check %s passed in %s:\n", id, time.Since(began).Round(time.Millisecond))
	printf(w, "  wrote, read back and deleted %s (%d bytes) in %s\n", res.Key, res.Bytes, res.Store)
	printf(w, "  workers answered on %s\n", strings.Join(queues, ", "))
	return nil
}
