package s3gw

import (
	"strings"
	"testing"
)

func TestCopyLinesDropsStartupNoise(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"sidecar line", "Using sidecar directory for metadata: /d/meta-s3\n", ""},
		{"iam line", "No IAM service configured, enabling single account mode\n", ""},
		{"other lines kept", "Using sidecar directory for metadata: /x\nport 7070 in use\nNo IAM service configured, enabling single account mode\n", "port 7070 in use\n"},
		{"last line without newline kept", "something else", "something else\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			copyLines(&out, strings.NewReader(tt.in), notNoise)
			if out.String() != tt.want {
				t.Errorf("copyLines(%q) = %q, want %q", tt.in, out.String(), tt.want)
			}
		})
	}
}
