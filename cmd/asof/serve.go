package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/httpapi"
	"github.com/asofrag/asof/internal/apispec"
)

type serveFlags struct {
	addr, token string
}

func newServeCmd(a *app) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080] [--token T]",
		Short: "Serve the HTTP API (/v1, OpenAPI at /v1/openapi.json) and a page to ask from (/)",
		Long: `serve answers HTTP: POST /v1/ask runs the Ask workflow as asof ask does, GET /v1/indexes and
/v1/digests read the store as asof indexes and asof digest list|get do, GET /v1/answers and
/v1/evals as asof answers and asof evals list|get do, POST /v1/digests starts a digest, GET
/v1/evals/{workflow_id} reports an eval workflow; GET /v1/openapi.json describes them all
(docs/api.md). The page at / asks a question as of a day and lists the indexes, the digests and
the recent answers.

It listens on 127.0.0.1 unless --addr says otherwise; bound to any other address it refuses to
start without a bearer token (--token or ASOF_API_TOKEN), which every /v1 request must then send
as "Authorization: Bearer <token>". Like the other commands it uses the data dir's running asof
dev, or starts the embedded servers and a worker itself; then, while it runs, the other commands
on its data dir (index, ask, digest, indexes) use its servers and worker as they would asof dev's.
It runs until Ctrl-C.`,
		Example: `  asof serve
  curl -s localhost:8080/v1/ask -d '{"index":"rtqa","as_of":"2023-03-03","query":"Brexit deal"}'
  ASOF_API_TOKEN=$(openssl rand -hex 16) asof serve --addr 0.0.0.0:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.token == "" {
				f.token = os.Getenv("ASOF_API_TOKEN")
			}
			return runServe(cmd.Context(), a, f)
		},
	}
	cmd.Flags().StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen address host:port (a non-loopback one requires --token)")
	cmd.Flags().StringVar(&f.token, "token", "", "bearer token every /v1 request must send (env ASOF_API_TOKEN)")
	a.embeddedFlags(cmd, false)
	a.embedFlags(cmd)
	a.rerankFlags(cmd)
	return cmd
}

func runServe(ctx context.Context, a *app, f serveFlags) error {
	loop, err := apispec.Loopback(f.addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	if !loop && f.token == "" {
		return fmt.Errorf("--addr %s is not a loopback address: anyone who can reach it could ask and start workflows; set a bearer token with --token or ASOF_API_TOKEN, or listen on 127.0.0.1", f.addr)
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", f.addr, err)
	}
	defer ln.Close()
	a.serving = true // its worker answers every index, each with the index's model
	st, _, stop, err := startServing(ctx, a, "", a.stderr)
	if err != nil {
		return err
	}
	defer stop()
	// The servers this process started are the data dir's stack while it serves: index, ask,
	// digest and indexes on the same data dir use them (and its worker) instead of clashing.
	unrecord, err := recordStack(st, "asof serve", st.Config.Worker.TaskQueues)
	if err != nil {
		return err
	}
	defer unrecord()
	h, err := httpapi.New(httpapi.Config{Client: st.Client, Bucket: st.Bucket, Token: f.token, Version: version, UI: a.uiHint()})
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	auth := "no token (loopback only)"
	if f.token != "" {
		auth = "bearer token required on /v1"
	}
	printf(a.stderr, "asof serve: listening on http://%s (API under /v1, page at /; %s); Ctrl-C stops\n", ln.Addr(), auth)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("stop serving: %w", err)
	}
	printf(a.stderr, "asof serve: stopped\n")
	return nil
}
