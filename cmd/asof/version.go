package main

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/vecindex"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise "dev".
var version = "dev"

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print asof's version and the versions of its main dependencies",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			printf(a.stdout, "asof %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			printf(a.stdout, "  search kernel %s\n", vecindex.Kernel())
			info, ok := debug.ReadBuildInfo()
			if !ok {
				return nil
			}
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" {
					printf(a.stdout, "  commit %s\n", s.Value)
				}
			}
			for _, d := range info.Deps {
				switch d.Path {
				case "go.temporal.io/sdk", "go.temporal.io/server", "github.com/versity/versitygw", "github.com/aws/aws-sdk-go-v2/service/s3":
					printf(a.stdout, "  %s %s\n", d.Path, d.Version)
				}
			}
			return nil
		},
	}
}
