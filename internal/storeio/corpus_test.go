package storeio

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/indexplan"
)

// TestReadCorpus: every file is read in order (done names each), bad rows are rejected, and a
// missing or unreadable file stops the reading with an error that names it.
func TestReadCorpus(t *testing.T) {
	ctx := context.Background()
	type row struct {
		DocID       string    `parquet:"doc_id"`
		PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
		Text        string    `parquet:"text"`
		Source      string    `parquet:"source"`
	}
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []row{{"a", day, "A document.", "ex.com"}, {"", day, "No id.", "ex.com"}}); err != nil {
		t.Fatal(err)
	}
	b := newBucket(t)
	for key, data := range map[string][]byte{"good.parquet": buf.Bytes(), "junk.parquet": []byte("not parquet")} {
		if _, err := b.Put(ctx, key, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	good := indexplan.InputFile{Key: "good.parquet", Name: "exports/good.parquet"}
	tests := []struct {
		name     string
		files    []indexplan.InputFile
		wantDone []string
		wantIs   error
		wantMsg  string
	}{
		{name: "one good file", files: []indexplan.InputFile{good}, wantDone: []string{"exports/good.parquet"}},
		{name: "a missing file", files: []indexplan.InputFile{good, {Key: "gone.parquet", Name: "gone.parquet"}},
			wantDone: []string{"exports/good.parquet"}, wantIs: blob.ErrNotFound, wantMsg: "input gone.parquet"},
		{name: "not parquet", files: []indexplan.InputFile{{Key: "junk.parquet", Name: "junk.parquet"}}, wantIs: corpus.ErrBadFile, wantMsg: "junk.parquet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var done []string
			docs, rejects, err := ReadCorpus(ctx, b, corpus.NewLoader(corpus.Options{}), tt.files, func(name string) { done = append(done, name) })
			if !reflect.DeepEqual(done, tt.wantDone) {
				t.Fatalf("done %v, want %v", done, tt.wantDone)
			}
			if tt.wantIs != nil {
				if !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("err %v, want %v saying %q", err, tt.wantIs, tt.wantMsg)
				}
				return
			}
			if err != nil || len(docs) != 1 || docs[0].DocID != "a" || len(rejects) != 1 {
				t.Fatalf("docs %+v, rejects %+v, err %v", docs, rejects, err)
			}
		})
	}
}
