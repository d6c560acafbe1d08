package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/chunk"
	"github.com/asofrag/asof/workflows"
)

// TestIndexFlagDefaults: --max-chunks-per-doc defaults to the chunker's cap (a 2 MB row is
// no longer 2,010 chunks), and --allow-future is offered.
func TestIndexFlagDefaults(t *testing.T) {
	cmd := newIndexCmd(&app{})
	if got := cmd.Flags().Lookup("max-chunks-per-doc"); got == nil || got.DefValue != "100" || chunk.DefaultMaxPieces != 100 {
		t.Fatalf("--max-chunks-per-doc default %v, want %d", got, chunk.DefaultMaxPieces)
	}
	if cmd.Flags().Lookup("allow-future") == nil {
		t.Fatal("no --allow-future")
	}
}

// TestPrintIndexResultSaysWhatWasCut: the table says how many documents the cap cut.
func TestPrintIndexResultSaysWhatWasCut(t *testing.T) {
	var buf bytes.Buffer
	printIndexResult(&buf, "news", workflows.IndexBuildResult{ManifestKey: "m", Seq: 1, ShardsBuilt: 1, Truncated: 2, MaxChunksPerDoc: 100}, time.Second)
	if !strings.Contains(buf.String(), "truncated: 2 documents cut at 100 chunks each") {
		t.Fatalf("table:\n%s", buf.String())
	}
	buf.Reset()
	printIndexResult(&buf, "news", workflows.IndexBuildResult{ManifestKey: "m", Seq: 1, ShardsBuilt: 1, MaxChunksPerDoc: 100}, time.Second)
	if strings.Contains(buf.String(), "truncated") {
		t.Fatalf("nothing was cut, yet:\n%s", buf.String())
	}
}

// TestIndexRefusesAppendWithReplace: --append keeps the index's documents and --replace drops
// some, so the two together are refused before anything starts.
func TestIndexRefusesAppendWithReplace(t *testing.T) {
	code, _, errOut := runCLI(t, nil, "index", "--index", "news", "--corpus", "x.parquet", "--append", "--replace")
	if code == 0 || !strings.Contains(errOut, "--append keeps") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if cmd := newIndexCmd(&app{}); cmd.Flags().Lookup("replace") == nil {
		t.Fatal("no --replace")
	}
}
