package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/redact"
	"github.com/asofrag/asof/worker"
)

func newWorkerCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run a worker against a Temporal server and an artifact store",
		Long: `worker polls asof's task queues on a running Temporal server and runs workflows and
activities, reading and writing artifacts in the store. Run as many as you like, on as many
machines: asof-default runs workflows and general activities, asof-embed the embedding
activities, asof-llm the LLM calls. S3 credentials come from ASOF_S3_ACCESS_KEY_ID /
ASOF_S3_SECRET_ACCESS_KEY, or the standard AWS chain (AWS_ACCESS_KEY_ID, ~/.aws, SSO, IMDS).`,
		Example: `  asof worker --temporal 127.0.0.1:7233 --store 's3://asof?endpoint=http://127.0.0.1:7070'
  asof worker --temporal temporal.internal:7233 --store s3://my-bucket/asof --task-queues asof-embed
  asof worker --temporal 127.0.0.1:7233 --store file:///srv/asof-store`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.cfg.Temporal.Embedded() {
				return errors.New("worker needs a server to poll: pass --temporal HOST:PORT (ASOF_TEMPORAL), or run 'asof dev' for server and worker in one process")
			}
			if a.cfg.Store.Embedded() {
				return errors.New("worker needs a store: pass --store s3://bucket/prefix or file:///path (ASOF_STORE); 'asof server' prints the one it serves")
			}
			ctx := cmd.Context()
			b, err := a.startBoot(ctx, "asof worker", false)
			if err != nil {
				return err
			}
			defer b.Close()
			deps, merr, release, err := b.workerDeps(a.cfg)
			if err != nil {
				return err
			}
			defer release()
			if merr != nil {
				printf(a.stderr, "asof worker: no embedding model, index work will fail on this worker: %v\n", merr)
			} else {
				printf(a.stdout, "asof worker: embedding %s\n", worker.EmbedderLine(a.cfg, deps))
			}
			if deps.Reranker != nil {
				printf(a.stdout, "asof worker: reranking %s\n", worker.RerankerLine(deps))
			}
			printf(a.stdout, "asof worker polling %s on %s (namespace %s), store %s. Ctrl-C to stop.\n",
				strings.Join(a.cfg.Worker.TaskQueues, ", "), redact.URL(a.cfg.Temporal.Address), a.cfg.Temporal.Namespace, b.st.Bucket)
			err = worker.Run(ctx, b.st.Client, a.cfg.Worker, deps)
			printf(a.stdout, "asof worker stopped\n")
			return err
		},
	}
	a.workerFlags(cmd)
	a.metricsFlag(cmd)
	return cmd
}
