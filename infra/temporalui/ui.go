// Package temporalui serves the Temporal Web UI (github.com/temporalio/ui-server, with its
// built assets embedded) on 127.0.0.1 for the embedded Temporal server, so a developer can
// watch asof's workflows in a browser.
package temporalui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	"github.com/temporalio/ui-server/v2/server/server_options"

	"github.com/asofrag/asof/internal/loopback"
)

// Options configure the UI server.
type Options struct {
	// Port to serve on (default 8233; -1 picks a free port).
	Port int
	// TemporalAddress is the frontend the UI talks to (host:port). Required.
	TemporalAddress string
	// Namespace opens first (default "default").
	Namespace string
}

// UI is a running Web UI server.
type UI struct {
	srv *server.Server
	url string
}

// Start serves the UI in the background and returns once it answers its health route.
func Start(ctx context.Context, opts Options) (*UI, error) {
	if opts.TemporalAddress == "" {
		return nil, errors.New("temporalui: TemporalAddress is required")
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	// The UI library exits the process when it cannot listen: check the port first.
	port, err := loopback.Resolve(opts.Port, 8233)
	if err != nil {
		return nil, fmt.Errorf("temporalui: port %d: %w (use --ui-port, or 0 to disable the UI)", opts.Port, err)
	}
	addr := loopback.Addr(port)

	cfg := &uiconfig.Config{
		Host:                loopback.Host,
		Port:                port,
		TemporalGRPCAddress: opts.TemporalAddress,
		EnableUI:            true,
		DefaultNamespace:    opts.Namespace,
		HideLogs:            true,
		// Plain HTTP on loopback: the CSRF cookie must not require HTTPS.
		CORS: uiconfig.CORS{CookieInsecure: true},
	}
	u := &UI{srv: server.NewServer(server_options.WithConfigProvider(cfg)), url: "http://" + addr}
	go func() { _ = u.srv.Start() }()
	if err := loopback.WaitHTTP(ctx, u.url+"/healthz", 15*time.Second, nil); err != nil {
		u.srv.Stop()
		return nil, err
	}
	return u, nil
}

// URL is the UI's address.
func (u *UI) URL() string { return u.url }

// Stop closes the server.
func (u *UI) Stop() error {
	u.srv.Stop()
	return nil
}
