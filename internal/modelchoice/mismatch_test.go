package modelchoice

import (
	"errors"
	"strings"
	"testing"

	"github.com/asofrag/asof/schemas"
)

func TestMismatch(t *testing.T) {
	e5 := schemas.ModelRef{ID: "e5-small-v2", SHA256: "b2a43b66f7f9", Dim: 384}
	q := schemas.ModelRef{ID: "e5-small-v2-q", SHA256: "7d9092cb25f2", Dim: 384}
	me5 := schemas.ModelRef{ID: "multilingual-e5-small-q4", SHA256: schemas.RemoteModelPrefix + "9f1c", Dim: 384}
	for _, tc := range []struct {
		name        string
		built, used schemas.ModelRef
		want        string
	}{
		{"same model", e5, e5, ""},
		{"another model", e5, q, "index rtqa was built with model e5-small-v2, this worker embeds with e5-small-v2-q: pass --embed-model e5-small-v2"},
		{"same id, other weights", e5, schemas.ModelRef{ID: "e5-small-v2", SHA256: "0000"}, "other weights or another recipe"},
		{"built on a server", me5, q, "pass --embed-backend openai --embed-model multilingual-e5-small-q4 and that server's embed.base_url"},
		{"server, another recipe", me5, schemas.ModelRef{ID: me5.ID, SHA256: schemas.RemoteModelPrefix + "0000"}, "another recipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Mismatch("rtqa", tc.built, tc.used)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrMismatch saying %q", err, tc.want)
			}
		})
	}
}

func TestPlannedMismatch(t *testing.T) {
	e5 := schemas.ModelRef{ID: "e5-small-v2", SHA256: "b2a43b66f7f9abcdef", Dim: 384}
	for _, tc := range []struct {
		name          string
		planned, used schemas.ModelRef
		want          string
	}{
		{name: "same model", planned: e5, used: e5},
		{name: "planned before it was recorded", used: e5},
		{name: "another model", planned: e5, used: schemas.ModelRef{ID: "bge-m3", SHA256: "ffff"},
			want: "this build was planned for model e5-small-v2 (sha256 b2a43b66f7f9…) and this asof-embed worker embeds with bge-m3 (sha256 ffff…): every worker must run the same --embed-model"},
		{name: "same id, other weights", planned: e5, used: schemas.ModelRef{ID: e5.ID, SHA256: "0000"}, want: "embeds with e5-small-v2 (sha256 0000…)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := PlannedMismatch(tc.planned, tc.used, "asof-embed")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrMismatch saying %q", err, tc.want)
			}
		})
	}
}
