package digest

import (
	"testing"

	"github.com/asofrag/asof/schemas"
)

// TestTitle: a digest is titled by its name, and the CLI's default name "digest" does not
// make "Digest digest".
func TestTitle(t *testing.T) {
	tests := []struct{ name, digest, want string }{
		{"named", "morning", "Digest morning"},
		{"no name", "", "Digest"},
		{"the default name", "digest", "Digest"},
		{"the default name, capitalized", "Digest", "Digest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildView(schemas.Digest{Name: tt.digest}).Title; got != tt.want {
				t.Errorf("title of %q = %q, want %q", tt.digest, got, tt.want)
			}
		})
	}
}
