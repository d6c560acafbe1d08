package shard

import (
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

func TestDocHashFromPieces(t *testing.T) {
	long := strings.Repeat("Первое предложение о ставке, второе — о курсе.  Third sentence here!\n\nА потом новый абзац с цифрами 1 234,5. ", 60)
	docs := []schemas.Document{
		{DocID: "a", PublishedAt: time.Now(), Title: "T", Text: long, Source: "s", URL: "u"},
		{DocID: "b", PublishedAt: time.Now(), Text: "short one"},
		{DocID: "c", PublishedAt: time.Now(), Text: "  leading and trailing spaces  \n"},
	}
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	rows, _ := Chunks(docs, cfg)
	by := map[string][]schemas.Chunk{}
	for _, r := range rows {
		r.DocHash = ""
		by[r.DocID] = append(by[r.DocID], r)
	}
	for _, d := range docs {
		if got, want := DocHash(by[d.DocID]), d.ContentHash(); got != want {
			t.Errorf("%s (%d chunks): hash from pieces %q, want %q", d.DocID, len(by[d.DocID]), got, want)
		}
	}
}
