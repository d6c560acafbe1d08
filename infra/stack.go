// Package infra starts what asof needs around it: the embedded Temporal server, Web UI and S3
// gateway when the configuration asks for the embedded default, or connections to external
// ones otherwise. Sub-packages hold each embedded server.
//
// A binary built with -tags lean leaves the embedded servers out (a worker for a real cluster
// needs neither, and the Temporal server alone adds ~200 MB and minutes of build time); it
// then requires --temporal and --store.
package infra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/fsutil"
	"github.com/asofrag/asof/internal/redact"
)

// ErrNoEmbedded is returned by Start when the configuration asks for an embedded server that
// this binary was built without (-tags lean).
var ErrNoEmbedded = errors.New("this asof binary was built without the embedded servers (-tags lean)")

// Embedded describes the embedded servers a Stack runs; empty fields were not started.
type Embedded struct {
	// TemporalLog is the embedded Temporal server's log file.
	TemporalLog string
	// TemporalMetrics is the URL of the embedded Temporal server's own Prometheus metrics.
	TemporalMetrics string
	// UIURL is the Temporal Web UI's address.
	UIURL string
	// S3Endpoint is the embedded S3 gateway's address.
	S3Endpoint string
	// S3AccessKeyID and S3SecretAccessKey are the gateway's generated root keys.
	S3AccessKeyID, S3SecretAccessKey string
}

// Stack is a Temporal client and an object store, with whatever embedded servers back them.
type Stack struct {
	// Config is the effective configuration, with embedded addresses filled in.
	Config config.Config
	// Client talks to the Temporal frontend (nil with StartOptions.NoTemporal).
	Client client.Client
	// Bucket is the object store (nil with StartOptions.NoStore).
	Bucket blob.Bucket
	// Embedded tells what runs in this process.
	Embedded Embedded

	closers []func() error
}

// StartOptions choose which parts to start.
type StartOptions struct {
	// NoStore skips the object store (for a process that only serves Temporal).
	NoStore bool
	// NoTemporal skips Temporal: no server, no client (Client stays nil), for a process that
	// only reads or writes the store.
	NoTemporal bool
	// UI serves the Temporal Web UI next to the embedded server (port Config.Temporal.UIPort;
	// 0 disables it).
	UI bool
	// Logger receives the SDK client's and workers' log lines (default: NewLogger(os.Stderr,
	// cfg), at the configured log_level).
	Logger *slog.Logger
	// MetricsHandler receives the SDK client's and workers' metrics (nil: none; see
	// worker.SDKMetrics).
	MetricsHandler client.MetricsHandler
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
	// The data dir holds the SQLite file, the S3 folder and the gateway's keys: its owner's
	// only (0700), an existing one tightened with a note.
	tightened, err := fsutil.PrivateDir(cfg.DataDir)
	if err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	if tightened {
		logger := opts.Logger
		if logger == nil {
			logger = NewLogger(os.Stderr, cfg)
		}
		logger.Warn("the data dir was readable by other users; asof made it its owner's only (chmod 700): it holds the Temporal database, the S3 folder and their keys", "data_dir", cfg.DataDir)
	}
	if !opts.NoTemporal {
		if err := s.startClient(ctx, opts); err != nil {
			return err
		}
	}

	if opts.NoStore {
		return nil
	}
	if cfg.Store.Embedded() {
		if err := s.startGateway(ctx); err != nil {
			return err
		}
	}
	b, err := OpenStore(ctx, s.Config.Store)
	if err != nil {
		return err
	}
	s.Bucket = b
	return nil
}

// startClient starts the embedded Temporal server when cfg asks for it, then dials the
// frontend.
func (s *Stack) startClient(ctx context.Context, opts StartOptions) error {
	cfg := s.Config
	if cfg.Temporal.Embedded() {
		if err := s.startTemporal(ctx, opts.UI); err != nil {
			return err
		}
	}
	logger := opts.Logger
	if logger == nil {
		logger = NewLogger(os.Stderr, cfg)
	}
	c, err := client.DialContext(ctx, client.Options{
		HostPort:       s.Config.Temporal.Address,
		Namespace:      cfg.Temporal.Namespace,
		Logger:         sdklog.NewStructuredLogger(logger),
		MetricsHandler: opts.MetricsHandler,
	})
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s: %w", redact.URL(s.Config.Temporal.Address), err)
	}
	s.Client = c
	s.closers = append(s.closers, func() error { c.Close(); return nil })
	return nil
}

// NewLogger is the logger to w at cfg's log_level, in its log_format (text, or json: one
// object a line): asof's own log and the SDK client's.
//
// A warning whose error is a cancelled context is logged at debug: it is what an ordinary stop
// looks like (a worker stopped mid-poll, "Failed to poll for task."; a heartbeat cut off by
// Ctrl-C, "RecordActivityHeartbeat with error"), not something to act on.
func NewLogger(w io.Writer, cfg config.Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.SlogLevel()}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(stopQuiet{h})
}

// stopQuiet lowers to debug the records below error level that carry a cancelled context's
// error (see NewLogger).
type stopQuiet struct{ slog.Handler }

func (h stopQuiet) Handle(ctx context.Context, r slog.Record) error {
	if r.Level > slog.LevelDebug && r.Level < slog.LevelError && carriesCancel(r) {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h stopQuiet) WithAttrs(as []slog.Attr) slog.Handler {
	return stopQuiet{h.Handler.WithAttrs(as)}
}

func (h stopQuiet) WithGroup(name string) slog.Handler { return stopQuiet{h.Handler.WithGroup(name)} }

// carriesCancel reports whether one of r's attributes is the error of a cancelled context
// (as such, as a gRPC status, or as its text: the SDK passes some as strings).
func carriesCancel(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		v := a.Value.Resolve()
		switch {
		case v.Kind() == slog.KindAny:
			if err, ok := v.Any().(error); ok {
				found = errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled || strings.Contains(err.Error(), context.Canceled.Error())
			}
		case v.Kind() == slog.KindString:
			found = strings.Contains(v.String(), context.Canceled.Error())
		}
		return !found
	})
	return found
}

// EmbeddedStoreURL is the store URL another process uses to reach a gateway at endpoint.
func EmbeddedStoreURL(endpoint string) string {
	return "s3://" + config.DefaultBucket + "?endpoint=" + endpoint
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
