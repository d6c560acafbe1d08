// Package infra starts what asof needs around it: the embedded Temporal server and S3 gateway
// when the configuration asks for the embedded default, or connections to external ones
// otherwise. Sub-packages hold each embedded server; deployment files for scale-out live
// beside them.
package infra

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/asofrag/asof/infra/s3gw"
	"github.com/asofrag/asof/infra/temporalserver"
	"github.com/asofrag/asof/infra/temporalui"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
)

// Stack is a Temporal client and an object store, with whatever embedded servers back them.
type Stack struct {
	// Config is the effective configuration, with embedded addresses filled in.
	Config config.Config
	// Client talks to the Temporal frontend.
	Client client.Client
	// Bucket is the object store.
	Bucket blob.Bucket
	// Temporal is the embedded server, or nil when Config.Temporal.Address was set.
	Temporal *temporalserver.Server
	// Gateway is the embedded S3 gateway, or nil when Config.Store.URL was set.
	Gateway *s3gw.Gateway
	// UI is the Temporal Web UI, when StartOptions.UI asked for it with the embedded server.
	UI *temporalui.UI

	closers []func() error
}

// StartOptions choose which parts to start.
type StartOptions struct {
	// NoStore skips the object store (for a process that only serves Temporal).
	NoStore bool
	// UI serves the Temporal Web UI next to the embedded server (port Config.Temporal.UIPort;
	// 0 disables it).
	UI bool
	// Logger receives the SDK client's log lines (default: discard below warn).
	Logger *slog.Logger
}

// Start brings up the stack described by cfg: embedded servers for empty addresses, clients
// for the rest. On error everything already started is stopped again. With the embedded S3
// gateway the process's working directory changes until Close (see package s3gw): resolve
// relative paths before calling Start.
func Start(ctx context.Context, cfg config.Config, opts StartOptions) (*Stack, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// The embedded S3 gateway changes the working directory (see package s3gw): pin the
	// data dir first.
	abs, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	cfg.DataDir = abs
	s := &Stack{Config: cfg}
	if err := s.start(ctx, opts); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Stack) start(ctx context.Context, opts StartOptions) error {
	cfg := s.Config
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}

	if cfg.Temporal.Embedded() {
		srv, err := temporalserver.Start(ctx, temporalserver.Options{
			DBPath:       cfg.TemporalDBPath(),
			FrontendPort: cfg.Temporal.Port,
			Namespaces:   []string{cfg.Temporal.Namespace},
		})
		if err != nil {
			return err
		}
		s.Temporal = srv
		s.closers = append(s.closers, srv.Stop)
		s.Config.Temporal.Address = srv.HostPort()
		if opts.UI && cfg.Temporal.UIPort > 0 {
			ui, err := temporalui.Start(ctx, temporalui.Options{Port: cfg.Temporal.UIPort, TemporalAddress: srv.HostPort(), Namespace: cfg.Temporal.Namespace})
			if err != nil {
				return err
			}
			s.UI = ui
			s.closers = append(s.closers, ui.Stop)
		}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	c, err := client.DialContext(ctx, client.Options{
		HostPort:  s.Config.Temporal.Address,
		Namespace: cfg.Temporal.Namespace,
		Logger:    sdklog.NewStructuredLogger(logger),
	})
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s: %w", s.Config.Temporal.Address, err)
	}
	s.Client = c
	s.closers = append(s.closers, func() error { c.Close(); return nil })

	if opts.NoStore {
		return nil
	}
	if cfg.Store.Embedded() {
		creds, err := s3gw.LoadOrCreateCredentials(cfg.GatewayCredsPath())
		if err != nil {
			return err
		}
		gw, err := s3gw.Start(ctx, s3gw.Options{
			Root: cfg.GatewayRoot(), Port: cfg.Store.GatewayPort, Credentials: creds, Buckets: []string{config.DefaultBucket},
		})
		if err != nil {
			return err
		}
		s.Gateway = gw
		s.closers = append(s.closers, gw.Stop)
		s.Config.Store.URL = EmbeddedStoreURL(gw)
		s.Config.Store.Endpoint = gw.Endpoint()
		s.Config.Store.Region = gw.Region()
		s.Config.Store.AccessKeyID = creds.AccessKeyID
		s.Config.Store.SecretAccessKey = creds.SecretAccessKey
	}
	b, err := OpenStore(ctx, s.Config.Store)
	if err != nil {
		return err
	}
	s.Bucket = b
	return nil
}

// EmbeddedStoreURL is the store URL another process uses to reach gw.
func EmbeddedStoreURL(gw *s3gw.Gateway) string {
	return "s3://" + config.DefaultBucket + "?endpoint=" + url.QueryEscape(gw.Endpoint())
}

// OpenStore opens the bucket a store configuration names.
func OpenStore(ctx context.Context, st config.Store) (blob.Bucket, error) {
	if st.URL == "" {
		return nil, errors.New("no store configured: pass --store s3://bucket/prefix or file:///path")
	}
	b, err := blob.Open(ctx, st.URL, blob.S3Options{
		Endpoint: st.Endpoint, Region: st.Region, PathStyle: st.PathStyle,
		AccessKeyID: st.AccessKeyID, SecretAccessKey: st.SecretAccessKey,
	})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return b, nil
}

// Close stops everything Start started, in reverse order.
func (s *Stack) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i](); err != nil {
			errs = append(errs, err)
		}
	}
	s.closers = nil
	return errors.Join(errs...)
}
