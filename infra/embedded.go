//go:build !lean

package infra

import (
	"context"

	"github.com/asofrag/asof/infra/s3gw"
	"github.com/asofrag/asof/infra/temporalserver"
	"github.com/asofrag/asof/infra/temporalui"
	"github.com/asofrag/asof/internal/config"
)

// EmbeddedAvailable reports whether this binary carries the embedded servers.
const EmbeddedAvailable = true

// startTemporal runs the embedded Temporal server (and the Web UI when asked) and points the
// stack's configuration at it.
func (s *Stack) startTemporal(ctx context.Context, ui bool) error {
	cfg := s.Config
	srv, err := temporalserver.Start(ctx, temporalOptions(cfg))
	if err != nil {
		return err
	}
	s.closers = append(s.closers, srv.Stop)
	s.Config.Temporal.Address = srv.HostPort()
	s.Embedded.TemporalLog = srv.LogPath()
	s.Embedded.TemporalMetrics = srv.MetricsURL()
	if ui && cfg.Temporal.UIPort > 0 {
		u, err := temporalui.Start(ctx, temporalui.Options{Port: cfg.Temporal.UIPort, TemporalAddress: srv.HostPort(), Namespace: cfg.Temporal.Namespace})
		if err != nil {
			return err
		}
		s.closers = append(s.closers, u.Stop)
		s.Embedded.UIURL = u.URL()
	}
	return nil
}

// startGateway runs the embedded S3 gateway over <data-dir>/s3 and points the stack's store
// configuration at it, with the data dir's own keys.
func (s *Stack) startGateway(ctx context.Context) error {
	cfg := s.Config
	creds, err := s3gw.LoadOrCreateCredentials(cfg.GatewayCredsPath())
	if err != nil {
		return err
	}
	gw, err := s3gw.Start(ctx, gatewayOptions(cfg, creds))
	if err != nil {
		return err
	}
	s.closers = append(s.closers, gw.Stop)
	s.Embedded.S3Endpoint = gw.Endpoint()
	s.Embedded.S3AccessKeyID, s.Embedded.S3SecretAccessKey = creds.AccessKeyID, creds.SecretAccessKey
	s.Config.Store = config.Store{
		URL:             EmbeddedStoreURL(gw.Endpoint()),
		Endpoint:        gw.Endpoint(),
		Region:          gw.Region(),
		PathStyle:       true,
		AccessKeyID:     creds.AccessKeyID,
		SecretAccessKey: creds.SecretAccessKey,
		GatewayPort:     cfg.Store.GatewayPort,
	}
	return nil
}

// temporalOptions configure the embedded Temporal server from cfg, its log level included.
func temporalOptions(cfg config.Config) temporalserver.Options {
	return temporalserver.Options{
		DBPath:       cfg.TemporalDBPath(),
		FrontendPort: cfg.Temporal.Port,
		Namespaces:   []string{cfg.Temporal.Namespace},
		LogLevel:     cfg.LogLevel,
	}
}

// gatewayOptions configure the embedded S3 gateway from cfg: versitygw has one log knob, its
// request log, which log_level debug turns on.
func gatewayOptions(cfg config.Config, creds s3gw.Credentials) s3gw.Options {
	return s3gw.Options{
		Root: cfg.GatewayRoot(), Port: cfg.Store.GatewayPort, Credentials: creds, Buckets: []string{config.DefaultBucket},
		Debug: cfg.LogLevel == "debug",
	}
}
