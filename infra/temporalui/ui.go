// Package temporalui serves the Temporal Web UI (github.com/temporalio/ui-server, with its
// built assets embedded) on 127.0.0.1 for the embedded Temporal server, so a developer can
// watch asof's workflows in a browser.
package temporalui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	"github.com/temporalio/ui-server/v2/server/server_options"
)

// Host is the only interface the UI binds to.
const Host = "127.0.0.1"

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
	port := opts.Port
	if port == 0 {
		port = 8233
	}
	if port < 0 {
		l, err := net.Listen("tcp", net.JoinHostPort(Host, "0"))
		if err != nil {
			return nil, fmt.Errorf("temporalui: find a free port: %w", err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	// The UI library exits the process when it cannot listen: check the port first.
	addr := net.JoinHostPort(Host, strconv.Itoa(port))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("temporalui: port %d: %w (use --ui-port, or 0 to disable the UI)", port, err)
	}
	l.Close()

	cfg := &uiconfig.Config{
		Host:                Host,
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
	if err := u.waitReady(ctx, 15*time.Second); err != nil {
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

func (u *UI) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := &http.Client{Timeout: time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.url+"/healthz", nil)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("temporalui: UI at %s did not answer within %s", u.url, timeout)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
