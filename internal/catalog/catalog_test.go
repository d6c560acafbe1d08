package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/blob"
)

// TestPickAndDigestFile stores two days of one digest and picks the latest, a given day, a
// missing day and a missing name, then reads a file and a missing one.
func TestPickAndDigestFile(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"digests/morning/2026-03-30/digest.md", "digests/morning/2026-03-31/digest.md", "digests/morning/index.html", "digests/evening/2026-03-31/digest.json"} {
		if _, err := b.Put(ctx, key, strings.NewReader("# "+key)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, digest, want, day string
		err                     error
	}{
		{name: "latest", digest: "morning", day: "2026-03-31"},
		{name: "a given day", digest: "morning", want: "2026-03-30", day: "2026-03-30"},
		{name: "a missing day", digest: "morning", want: "2026-03-29", err: ErrNoDay},
		{name: "a missing name", digest: "noon", err: ErrNoDigest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			day, days, err := Pick(ctx, b, tc.digest, tc.want)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || day != tc.day || len(days) != 2 {
				t.Fatalf("Pick = %q, %d days, %v; want %q", day, len(days), err, tc.day)
			}
		})
	}
	data, err := DigestFile(ctx, b, "morning", "2026-03-31", "digest.md")
	if err != nil || string(data) != "# digests/morning/2026-03-31/digest.md" {
		t.Fatalf("DigestFile = %q, %v", data, err)
	}
	if _, err := DigestFile(ctx, b, "morning", "2026-03-31", "digest.html"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("a missing file: %v", err)
	}
	days, err := Digests(ctx, b, "")
	if err != nil {
		t.Fatal(err)
	}
	names := DigestNames(days)
	if len(names) != 2 || names[0].Name != "evening" || names[1].Days != 2 || names[1].First != "2026-03-30" {
		t.Fatalf("names %+v", names)
	}
	if err := RequireIndex(ctx, b, "news"); err == nil || !strings.Contains(err.Error(), `index "news" does not exist`) {
		t.Fatalf("RequireIndex on an empty store: %v", err)
	}
}
