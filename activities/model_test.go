package activities

import (
	"strings"
	"testing"

	"github.com/asofrag/asof/schemas"
)

func TestCheckModel(t *testing.T) {
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
			err := checkModel("rtqa", tc.built, tc.used)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}
