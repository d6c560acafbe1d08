package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// putIndex publishes a small index in a local store through internal/layout: one shard of
// four chunks (two documents of rbc, one merged from markettwits and rbc), a manifest and CURRENT.
func putIndex(t *testing.T, b blob.Bucket, name string) {
	t.Helper()
	ctx := context.Background()
	day := func(d int) time.Time { return time.Date(2024, 10, d, 9, 0, 0, 0, time.UTC) }
	chunks := []schemas.Chunk{
		{ChunkID: "1#0", DocID: "1", PublishedAt: day(2), Source: "rbc", Text: "a"},
		{ChunkID: "1#1", DocID: "1", PublishedAt: day(2), Source: "rbc", Text: "b"},
		{ChunkID: "2#0", DocID: "2", PublishedAt: day(20), Source: "rbc", Text: "c"},
		{ChunkID: "3#0", DocID: "3", PublishedAt: day(25), Source: "markettwits; rbc", Text: "d"}, // a repost merged from two channels
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, chunks); err != nil {
		t.Fatal(err)
	}
	rel := layout.ShardPrefix("2024-10", "abc123") + "/chunks.parquet"
	if _, err := b.Put(ctx, layout.IndexPrefix(name)+"/"+rel, bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	m := schemas.Manifest{Version: schemas.ManifestVersion, Index: name, CreatedAt: time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC),
		Model: schemas.ModelRef{ID: "e5-small", Dim: 384}, Period: "month",
		Shards: []schemas.ShardMeta{{ID: "abc123", Period: "2024-10", MinDate: day(2), MaxDate: day(25), Docs: 3, Chunks: 4,
			Objects: []schemas.ObjectRef{{Key: rel, Size: int64(buf.Len())}}}},
		Counts: schemas.IndexCounts{Read: 4, Indexed: 3, Skipped: 1, Chunks: 4}}
	key, err := layout.PutManifest(ctx, b, name, &m, 1, func(schemas.Manifest) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if err := layout.MoveCurrent(ctx, b, name, "", layout.Current{Manifest: key, Seq: m.Seq}); err != nil {
		t.Fatal(err)
	}
}

// TestIndexesCommand lists, shows and deletes indexes of a file:// store: the table and JSON
// come from the manifest, delete needs --yes off a terminal and removes every object.
func TestIndexesCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded Temporal server")
	}
	dir := t.TempDir()
	b, err := blob.NewLocal(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	putIndex(t, b, "tg")
	putIndex(t, b, "news")
	// A build that never published: listed, with why its facts are missing.
	if _, err := b.Put(context.Background(), layout.StagingDocsKey("half", "x"), strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--store", "file://" + filepath.Join(dir, "store"), "--temporal-port", freePort(t)}
	cli := func(args ...string) (int, string, string) { return runCLI(t, nil, append(args, common...)...) }

	code, out, errOut := cli("indexes")
	if code != 0 {
		t.Fatalf("indexes: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"NAME", "MODEL", "half", "no published manifest", "news", "tg  ", "e5-small", "2024-10-02", "2024-10-25"} {
		if !strings.Contains(out, want) {
			t.Errorf("indexes lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = cli("indexes", "list", "--json")
	var list []catalog.Index
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 3 {
		t.Fatalf("indexes list --json: exit %d\n%s\n%s", code, out, errOut)
	}
	tg := list[2]
	if tg.Name != "tg" || tg.Documents != 3 || tg.Chunks != 4 || tg.Sources != 2 || tg.Shards != 1 || tg.ManifestSeq != 1 || tg.Objects != 3 || tg.Bytes == 0 {
		t.Errorf("tg = %+v", tg)
	}
	code, out, errOut = cli("indexes", "show", "tg")
	if code != 0 || !strings.Contains(out, "sources    2: rbc 3, markettwits 1") || !strings.Contains(out, "4 read = 3 indexed + 0 quarantined + 1 skipped") ||
		!strings.Contains(out, "2024-10") {
		t.Fatalf("indexes show: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut = cli("indexes", "show", "nope"); code == 0 || !strings.Contains(errOut, `no index named "nope"`) {
		t.Fatalf("show a missing index: exit %d %s", code, errOut)
	}
	// Off a terminal, delete needs --yes and keeps the index without it.
	if code, _, errOut = cli("indexes", "delete", "tg"); code == 0 || !strings.Contains(errOut, "add --yes to confirm") {
		t.Fatalf("delete without --yes: exit %d %s", code, errOut)
	}
	if ok, _ := b.Exists(context.Background(), layout.CurrentKey("tg")); !ok {
		t.Fatal("delete without --yes removed CURRENT")
	}
	code, out, errOut = cli("indexes", "delete", "tg", "--yes")
	if code != 0 || !strings.Contains(out, "deleted index tg: 3 objects") {
		t.Fatalf("delete --yes: exit %d\n%s\n%s", code, out, errOut)
	}
	left, _ := blob.List(context.Background(), b, layout.IndexPrefix("tg")+"/")
	if len(left) != 0 {
		t.Fatalf("after delete, %d objects left: %v", len(left), left)
	}
	if ok, _ := b.Exists(context.Background(), layout.CurrentKey("news")); !ok {
		t.Fatal("deleting tg touched news")
	}
}

// TestUnknownNamesSuggest: a mistyped command or flag gets one readable line naming what was
// meant.
func TestUnknownNamesSuggest(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"command", []string{"indexs"}, `asof: unknown command "indexs" for "asof": did you mean index or indexes? (asof --help lists the commands)` + "\n"},
		{"command after a flag", []string{"--log-level", "warn", "indx"}, `unknown command "indx" for "asof": did you mean index`},
		{"nothing near", []string{"zzzzzz"}, `asof: unknown command "zzzzzz" for "asof" (asof --help lists the commands)` + "\n"},
		{"--asof", []string{"ask", "--asof", "2024-01-01", "q"}, `asof: unknown flag --asof for "asof ask": did you mean --as-of?` + "\n"},
		{"--date", []string{"digest", "--date", "2024-01-01"}, `unknown flag --date for "asof digest": did you mean --as-of?`},
		{"typo", []string{"ask", "--indx", "x", "q"}, `did you mean --index?`},
		{"flag, nothing near", []string{"ask", "--zzzzzzzz", "q"}, `asof: unknown flag --zzzzzzzz for "asof ask" (see asof ask --help)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, nil, tt.args...)
			if code == 0 || !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "\t") {
				t.Fatalf("exit %d, stderr %q; want %q", code, errOut, tt.want)
			}
		})
	}
}
