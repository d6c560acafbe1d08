package infra

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/config"
)

func TestNewLoggerTakesTheConfiguredLevel(t *testing.T) {
	tests := []struct {
		name  string
		level string
		want  []string // of debug, info, warn, error: the lines that come out
	}{
		{"default", config.Default().LogLevel, []string{"warn", "error"}},
		{"debug", "debug", []string{"debug", "info", "warn", "error"}},
		{"info", "info", []string{"info", "warn", "error"}},
		{"warn", "warn", []string{"warn", "error"}},
		{"error", "error", []string{"error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.LogLevel = tt.level
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			l := NewLogger(&b, cfg)
			l.Debug("debug")
			l.Info("info")
			l.Warn("warn")
			l.Error("error")
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
				if _, msg, ok := strings.Cut(line, "msg="); ok {
					got = append(got, msg)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("log_level %s let through %v, want %v", tt.level, got, tt.want)
			}
			if !l.Enabled(context.Background(), cfg.SlogLevel()) {
				t.Errorf("log_level %s: its own level is not enabled", tt.level)
			}
		})
	}
}
