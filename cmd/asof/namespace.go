package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/protobuf/types/known/durationpb"

	"go.temporal.io/api/workflowservice/v1"
)

func newNamespaceCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "namespace",
		Short: "Register the Temporal namespace asof uses, on an external cluster",
		Long: `The embedded server registers its namespaces itself. A Temporal cluster you run (for example
on PostgreSQL, docs/deploy.md) starts with none: register the one asof uses (--namespace,
default "default") once, before starting workers.`,
	}
	cmd.AddCommand(newNamespaceCreateCmd(a))
	return cmd
}

func newNamespaceCreateCmd(a *app) *cobra.Command {
	var retention, timeout time.Duration
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Register the namespace (succeeds when it already exists)",
		Example: `  asof namespace create --temporal 127.0.0.1:7233
  asof namespace create --temporal temporal:7233 --namespace asof --retention 720h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.cfg.Temporal.Embedded() {
				return errors.New("namespace create registers a namespace on an external Temporal: pass --temporal HOST:PORT (ASOF_TEMPORAL or the config file); the embedded server registers its own")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			created, err := registerNamespace(ctx, a.cfg.Temporal.Address, a.cfg.Temporal.Namespace, retention)
			if err != nil {
				return err
			}
			if created {
				printf(a.stdout, "namespace %s registered on %s (retention %s)\n", a.cfg.Temporal.Namespace, a.cfg.Temporal.Address, retention)
			} else {
				printf(a.stdout, "namespace %s already exists on %s\n", a.cfg.Temporal.Namespace, a.cfg.Temporal.Address)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&retention, "retention", 72*time.Hour, "how long Temporal keeps a closed workflow's history")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "give up after this long (a cluster just started may take a few seconds to answer)")
	return cmd
}

// registerNamespace registers ns at the frontend at addr, retrying while the frontend is not
// up yet; created is false when it existed.
func registerNamespace(ctx context.Context, addr, ns string, retention time.Duration) (created bool, err error) {
	quiet := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for {
		var nc client.NamespaceClient
		nc, err = client.NewNamespaceClient(client.Options{HostPort: addr, Logger: quiet})
		if err == nil {
			err = nc.Register(ctx, &workflowservice.RegisterNamespaceRequest{
				Namespace:                        ns,
				WorkflowExecutionRetentionPeriod: durationpb.New(retention),
			})
			nc.Close()
			var exists *serviceerror.NamespaceAlreadyExists
			if errors.As(err, &exists) {
				return false, nil
			}
			if err == nil {
				return true, nil
			}
		}
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("register namespace %s at %s: %w", ns, addr, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
