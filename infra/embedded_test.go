//go:build !lean

package infra

import (
	"testing"

	"github.com/asofrag/asof/infra/s3gw"
	"github.com/asofrag/asof/internal/config"
)

func TestEmbeddedServersTakeTheConfiguredLogLevel(t *testing.T) {
	tests := []struct {
		name      string
		level     string
		wantDebug bool
	}{
		{"debug", "debug", true},
		{"info", "info", false},
		{"warn", "warn", false},
		{"error", "error", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.LogLevel = tt.level
			if got := temporalOptions(cfg).LogLevel; got != tt.level {
				t.Errorf("Temporal server log level = %q, want %q", got, tt.level)
			}
			if got := gatewayOptions(cfg, s3gw.Credentials{AccessKeyID: "a", SecretAccessKey: "b"}).Debug; got != tt.wantDebug {
				t.Errorf("versitygw debug = %v, want %v", got, tt.wantDebug)
			}
		})
	}
}
