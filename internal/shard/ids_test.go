package shard

import (
	"reflect"
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

// TestIDs names each period's shard as ID does, in order, and fails on a document JSON
// cannot encode.
func TestIDs(t *testing.T) {
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	model := schemas.ModelRef{ID: "e5-small-v2", SHA256: "abc", Dim: 384}
	groups := map[string][]schemas.Document{
		"2024-03": {{DocID: "a", PublishedAt: at("2024-03-05T10:00:00Z"), Text: "march"}},
		"2024-04": {{DocID: "b", PublishedAt: at("2024-04-05T10:00:00Z"), Text: "april"}},
		"bad":     {{DocID: "c", PublishedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Text: "far"}},
	}
	tests := []struct {
		name    string
		periods []string
		wantErr bool
	}{
		{name: "in order", periods: []string{"2024-03", "2024-04"}},
		{name: "reversed", periods: []string{"2024-04", "2024-03"}},
		{name: "none", periods: nil},
		{name: "a date past 9999", periods: []string{"2024-03", "bad"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := IDs(tt.periods, groups, cfg, model)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := make([]string, len(tt.periods))
			for i, p := range tt.periods {
				if want[i], err = ID(p, groups[p], cfg, model); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("IDs = %v, want %v", got, want)
			}
		})
	}
}

func TestEmbedTexts(t *testing.T) {
	got := EmbedTexts([]schemas.Chunk{{Seq: 0, Title: "T", Text: "one"}, {Seq: 1, Title: "T", Text: "two"}, {Seq: 0, Text: "three"}})
	if want := []string{"T. one", "two", "three"}; !reflect.DeepEqual(got, want) {
		t.Errorf("EmbedTexts = %q, want %q", got, want)
	}
}
