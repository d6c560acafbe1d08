package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra/stackfile"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/redact"
)

func newConfigCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration and the stack it would use (secrets redacted)",
		Long: `config prints the configuration asof would run with, after defaults, --config FILE,
ASOF_* environment variables and flags, as YAML (usable as a --config file), then, as YAML
comments, the stack a command on this data dir would use: the asof dev or asof server running
on it (from its stack.json), the embedded servers a command would start, or the external ones
named. Secrets are shown as ***. The environment variables it reads:
` + envHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			printf(a.stdout, "%s", a.cfg.Redacted().YAML())
			printf(a.stdout, "%s", stackComment(ctx, a.cfg))
			return nil
		},
	}
}

// stackComment says, as YAML comment lines, which stack a command with cfg would use: the one
// running on its data dir (what attachStack takes from it), the embedded servers it would
// start, or the external addresses cfg names; every address through redact.URL.
func stackComment(ctx context.Context, cfg config.Config) string {
	var lines []string
	r, err := stackfile.Find(ctx, cfg.DataDir, stackProbeTimeout)
	running := err == nil
	switch {
	case running:
		lines = append(lines, fmt.Sprintf("stack: the %s running on this data dir (pid %d, started %s), from %s", r.By, r.PID, r.Started.UTC().Format("2006-01-02 15:04:05Z"), stackfile.Path(cfg.DataDir)))
	case errors.Is(err, stackfile.ErrStale):
		lines = append(lines, "stack: none runs on this data dir (a stale record is ignored: "+err.Error()+")")
	case cfg.Temporal.Embedded() || cfg.Store.Embedded():
		lines = append(lines, "stack: none runs on this data dir; a command starts what is embedded below itself")
	default:
		lines = append(lines, "stack: external")
	}
	switch {
	case !cfg.Temporal.Embedded():
		lines = append(lines, fmt.Sprintf("  temporal  %s  namespace %s  (--temporal)", redact.URL(cfg.Temporal.Address), cfg.Temporal.Namespace))
	case running:
		lines = append(lines, fmt.Sprintf("  temporal  %s  namespace %s", redact.URL(r.Temporal), r.Namespace))
	default:
		lines = append(lines, fmt.Sprintf("  temporal  embedded on 127.0.0.1:%d  namespace %s  (SQLite %s)", cfg.Temporal.Port, cfg.Temporal.Namespace, cfg.TemporalDBPath()))
	}
	switch {
	case !cfg.Store.Embedded():
		line := "  store     " + redact.URL(cfg.Store.URL)
		if cfg.Store.Endpoint != "" {
			line += "  endpoint " + redact.URL(cfg.Store.Endpoint)
		}
		lines = append(lines, line+"  (--store)")
	case running && r.S3Endpoint != "":
		lines = append(lines, fmt.Sprintf("  s3        %s  bucket %s  (keys in %s)", redact.URL(r.S3Endpoint), r.Bucket, r.S3KeysFile))
	case running:
		lines = append(lines, "  store     "+redact.URL(r.Store))
	default:
		lines = append(lines, fmt.Sprintf("  s3        embedded gateway on 127.0.0.1:%d  bucket %s  over %s", cfg.Store.GatewayPort, config.DefaultBucket, cfg.GatewayRoot()))
	}
	if running && r.UI != "" && (cfg.Temporal.Embedded() || cfg.Temporal.Address == r.Temporal) {
		lines = append(lines, "  web ui    "+r.UI)
	}
	return "# " + strings.Join(lines, "\n# ") + "\n"
}

func envHelp() string {
	s := ""
	for _, e := range config.EnvVars() {
		s += "  " + e.Name + "  (" + e.Key + ")\n"
	}
	return s
}
