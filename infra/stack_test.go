package infra

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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

// TestNewLoggerQuietOnStop: the SDK's warnings of an ordinary stop (an error that is a
// cancelled context, as an error, a gRPC status or text) are debug lines; other warnings and
// any error-level line stay.
func TestNewLoggerQuietOnStop(t *testing.T) {
	canceled := []any{
		context.Canceled,
		fmt.Errorf("heartbeat: %w", context.Canceled),
		status.Error(codes.Canceled, "context canceled"),
		"rpc error: code = Canceled desc = context canceled",
	}
	for _, level := range []string{"warn", "debug"} {
		cfg := config.Default()
		cfg.LogLevel = level
		var buf bytes.Buffer
		l := sdklog.NewStructuredLogger(NewLogger(&buf, cfg))
		for _, e := range canceled {
			l.Warn("RecordActivityHeartbeat with error", "Error", e)
		}
		l.Warn("Failed to poll for task.", "Error", errors.New("connection refused"))
		l.Error("Activity error.", "Error", context.Canceled)
		out := buf.String()
		stopLines := strings.Count(out, "RecordActivityHeartbeat")
		switch {
		case level == "warn" && stopLines != 0:
			t.Errorf("at warn, a stop's warnings are shown:\n%s", out)
		case level == "debug" && (stopLines != len(canceled) || strings.Count(out, `level=DEBUG msg="RecordActivityHeartbeat`) != len(canceled)):
			t.Errorf("at debug, a stop's warnings should be debug lines:\n%s", out)
		}
		if !strings.Contains(out, `level=WARN msg="Failed to poll for task." Error="connection refused"`) || !strings.Contains(out, "level=ERROR msg=\"Activity error.\"") {
			t.Errorf("at %s, other warnings and errors must stay:\n%s", level, out)
		}
	}
}
