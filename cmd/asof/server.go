package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"
)

func newServerCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the embedded Temporal server and S3 gateway for workers in other processes",
		Long: `server starts the embedded Temporal server (SQLite under --data-dir) and the embedded S3
gateway, both on 127.0.0.1 only, and no worker. It prints the export lines (addresses and the
gateway's S3 keys) other processes need, and the command that attaches a worker from another
process ('asof worker --temporal ... --store ...'). Stop it with Ctrl-C.`,
		Example: `  asof server --data-dir /srv/asof
  asof server --temporal-port 17233 --s3-port 17070`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !a.cfg.Temporal.Embedded() {
				return errors.New("server runs the embedded Temporal server; drop --temporal (ASOF_TEMPORAL) or run 'asof worker' against that server")
			}
			ctx := cmd.Context()
			began := time.Now()
			b, err := a.startBoot(ctx, "asof server", true)
			if err != nil {
				return err
			}
			defer b.Close()
			st := b.st
			b.sm.m.SetReady(true)
			st.Config.Worker.TaskQueues = nil // no worker in this process
			unrecord, err := recordStack(st, "asof server", nil)
			if err != nil {
				return err
			}
			defer unrecord()
			printStack(a.stdout, st, time.Since(began))
			printAttach(a.stdout, st)
			printf(a.stdout, "\nasof server is up. Press Ctrl-C to stop.\n")
			<-ctx.Done()
			printf(a.stdout, "\nstopping...\n")
			return nil
		},
	}
	a.embeddedFlags(cmd, true)
	a.metricsFlag(cmd)
	return cmd
}
