package client

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/workflows"
)

// TestInputListAndFileTableRoundTrip: the input list is stored under its content's hash (the
// same files give the same key, so a rerun is the same build), and a result that names a
// stored per-file table prints the same table as one that carried it.
func TestInputListAndFileTableRoundTrip(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := []workflows.InputFile{{Key: "corpora/aa/a.parquet", Name: "a.parquet"}, {Key: "corpora/bb/a.parquet", Name: "a.parquet"}}
	c := New(nil, b)
	k1, err := c.StoreInputList(ctx, files)
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := c.StoreInputList(ctx, files)
	k3, _ := c.StoreInputList(ctx, files[:1])
	if k1 != k2 || k1 == k3 || !strings.HasPrefix(k1, "builds/inputs/") {
		t.Fatalf("keys %s %s %s: want equal lists under one key, another list under another", k1, k2, k3)
	}
	var back []workflows.InputFile
	data, _ := blob.ReadAll(ctx, b, k1)
	if json.Unmarshal(data, &back) != nil || len(back) != 2 || back[1] != files[1] {
		t.Fatalf("stored list %s", data)
	}

	table := []workflows.FileCounts{{Name: "a.parquet", Stats: corpus.Stats{Read: 3, Documents: 2, Skipped: 1}}}
	enc, _ := json.Marshal(table)
	key := layout.BuildFilesKey("run1")
	if _, err := b.Put(ctx, key, bytes.NewReader(enc)); err != nil {
		t.Fatal(err)
	}
	carried := workflows.IndexBuildResult{ManifestKey: "indexes/news/manifests/000001.json", Seq: 1, Files: table}
	stored := carried
	stored.Files, stored.FilesKey, stored.FileCount = nil, key, 1
	if err := c.FileTable(ctx, &stored); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stored.Files, carried.Files) {
		t.Fatalf("table from the store %+v, want %+v", stored.Files, carried.Files)
	}
	missing := workflows.IndexBuildResult{FilesKey: layout.BuildFilesKey("gone")}
	if err := c.FileTable(ctx, &missing); err == nil || !strings.Contains(err.Error(), "per-file table") {
		t.Fatalf("missing table: %v", err)
	}
}
