package storeio

import (
	"context"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestReadDigests: every day's digest.json of the name comes back in day order; a damaged
// day stands as one failed topic naming its key; deeper files, other files and other names'
// digests are not read.
func TestReadDigests(t *testing.T) {
	ctx := context.Background()
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	dayOf := func(key string) time.Time { d, _ := time.Parse(time.DateOnly, path.Base(path.Dir(key))); return d }
	tests := []struct {
		name  string
		files map[string]string // key → content; "" marks a digest written with PutJSON
		want  []string          // each digest's day and first topic ("" when none), in order
	}{
		{name: "none", want: nil},
		{name: "two days", files: map[string]string{
			layout.DigestJSONKey("news", day(2)): "", layout.DigestJSONKey("news", day(1)): "",
			layout.DigestJSONKey("other", day(1)): "", layout.DigestMarkdownKey("news", day(1)): "# md",
			layout.DigestsPrefix("news") + "/2026-03-01/old/digest.json": `{}`},
			want: []string{"2026-03-01 t", "2026-03-02 t"}},
		{name: "damaged day", files: map[string]string{
			layout.DigestJSONKey("news", day(1)): "", layout.DigestJSONKey("news", day(3)): `{"name":`},
			want: []string{"2026-03-01 t", "2026-03-03 digest.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBucket(t)
			for key, content := range tc.files {
				var err error
				if content == "" {
					err = PutJSON(ctx, b, key, schemas.Digest{Name: "news", AsOf: dayOf(key), Topics: []schemas.DigestTopic{{Name: "t"}}})
				} else {
					_, err = b.Put(ctx, key, strings.NewReader(content))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			ds, err := ReadDigests(ctx, b, "news")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range ds {
				s := d.AsOf.Format(time.DateOnly) + " "
				if len(d.Topics) > 0 {
					s += d.Topics[0].Name
				}
				if d.Name != "news" {
					t.Errorf("digest of %q, want news", d.Name)
				}
				got = append(got, s)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("digests %q, want %q", got, tc.want)
			}
		})
	}
}
