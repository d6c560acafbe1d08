package main

import (
	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/config"
)

func newConfigCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration (secrets redacted)",
		Long: `config prints the configuration asof would run with, after defaults, --config FILE,
ASOF_* environment variables and flags, as YAML (usable as a --config file). Secrets are
shown as ***. The environment variables it reads:
` + envHelp(),
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			printf(a.stdout, "%s", a.cfg.Redacted().YAML())
			return nil
		},
	}
}

func envHelp() string {
	s := ""
	for _, e := range config.EnvVars() {
		s += "  " + e.Name + "  (" + e.Key + ")\n"
	}
	return s
}
