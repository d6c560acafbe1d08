package infra

import (
	"bytes"
	"context"
	"encoding/json"
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

// TestNewLoggerJSON: log_format json writes one JSON object a line, with the level, message
// and attributes as fields a collector can index.
func TestNewLoggerJSON(t *testing.T) {
	cfg := config.Default()
	cfg.LogFormat, cfg.LogLevel = "json", "info"
	var b bytes.Buffer
	l := NewLogger(&b, cfg)
	l.Debug("hidden")
	l.Info("shard built", "shard", "2023-06", "chunks", 412)
	l.Warn("retrying", "attempt", 2)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2 (debug filtered):\n%s", len(lines), b.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("not JSON: %q: %v", lines[0], err)
	}
	if rec["level"] != "INFO" || rec["msg"] != "shard built" || rec["shard"] != "2023-06" || rec["chunks"] != float64(412) {
		t.Fatalf("record %v", rec)
	}
}
