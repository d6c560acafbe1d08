package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/redact"
)

// pingKey is the object ping looks up; it need not exist (a clean "no" proves the store
// answers with these credentials).
const pingKey = "asof-ping"

func newPingCmd(a *app) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "ping",
		Short: "Check that the configured Temporal namespace and store answer (for health checks)",
		Long: `ping connects to the configured Temporal frontend, describes the namespace, and looks an
object up in the store with the configured credentials; it exits 0 when both answer within
--timeout and prints one line each, else it names what failed. It starts no embedded server:
like a worker it needs --temporal and --store (ASOF_TEMPORAL, ASOF_STORE or the config file).
The container healthchecks in deploy/compose.yaml and the Kubernetes readiness probes
run it inside the worker image.`,
		Example: `  asof ping --temporal temporal:7233 --store s3://asof --s3-endpoint http://minio:9000
  ASOF_CONFIG=/etc/asof/asof.yaml asof ping`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.cfg.Temporal.Embedded() || a.cfg.Store.Embedded() {
				return errors.New("ping checks an external Temporal and store: pass --temporal HOST:PORT and --store URL (ASOF_TEMPORAL, ASOF_STORE or the config file)")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			began := time.Now()
			st, err := infra.Start(ctx, a.cfg, infra.StartOptions{})
			if err != nil {
				return fmt.Errorf("ping: %w", err)
			}
			defer st.Close()
			ns := a.cfg.Temporal.Namespace
			if _, err := st.Client.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: ns}); err != nil {
				return fmt.Errorf("ping: Temporal at %s, namespace %s: %w", redact.URL(a.cfg.Temporal.Address), ns, err)
			}
			printf(a.stdout, "temporal %s namespace %s: ok\n", redact.URL(a.cfg.Temporal.Address), ns)
			if _, err := st.Bucket.Exists(ctx, pingKey); err != nil {
				return fmt.Errorf("ping: store %s: %w", st.Bucket, err)
			}
			printf(a.stdout, "store %s: ok (%s)\n", st.Bucket, time.Since(began).Round(time.Millisecond))
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 8*time.Second, "give up after this long (keep it below the probe's timeout)")
	return cmd
}
