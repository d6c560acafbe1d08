package main

import (
	"strings"
	"testing"
)

const sampleOutput = `goos: linux
goarch: amd64
pkg: github.com/asofrag/asof/internal/vecindex
cpu: AMD EPYC
BenchmarkSearchThreads
BenchmarkSearchThreads/1thread
BenchmarkSearchThreads/1thread-2         	      50	        78.95 queries/s	        12.13 scan-GB/s
BenchmarkSearchThreads/2shards
    vecindex_bench_test.go:80: the two-shard search differs from the single scan
--- FAIL: BenchmarkSearchThreads/2shards
BenchmarkMemcpy
BenchmarkMemcpy-2                        	      20	  23489004 ns/op	11428.13 MB/s
BenchmarkAnswerRealtimeQA
    answer_bench_test.go:37: set ASOF_BENCH_STORE (a store folder) and ASOF_BENCH_INDEX
--- SKIP: BenchmarkAnswerRealtimeQA
BenchmarkIndexBuild
--- SKIP: BenchmarkIndexBuild
    index_bench_test.go:31: shared data absent: open x: no such file
{"level":"info","msg":"server log line"}
FAIL
`

func TestParseBench(t *testing.T) {
	res := parseBench(sampleOutput)
	tests := []struct {
		name, bench, unit string
		want              float64
		why               string
	}{
		{"custom metric", "BenchmarkSearchThreads/1thread", "queries/s", 78.95, ""},
		{"second custom metric", "BenchmarkSearchThreads/1thread", "scan-GB/s", 12.13, ""},
		{"built-in metric", "BenchmarkMemcpy", "MB/s", 11428.13, ""},
		{"failed sub-benchmark", "BenchmarkSearchThreads/2shards", "queries/s", 0, "failed: the two-shard search differs from the single scan"},
		{"skip message before the status line (-v)", "BenchmarkAnswerRealtimeQA", "p50-ms", 0, "skipped: set ASOF_BENCH_STORE (a store folder) and ASOF_BENCH_INDEX"},
		{"skip message after the status line", "BenchmarkIndexBuild", "docs/s", 0, "skipped: shared data absent: open x: no such file"},
		{"absent metric", "BenchmarkMemcpy", "read-GB/s", 0, "not measured (no read-GB/s in the output)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := metric(res, nil, tt.bench, tt.unit)
			if got != tt.want || why != tt.why {
				t.Fatalf("metric(%s, %s) = %v, %q; want %v, %q", tt.bench, tt.unit, got, why, tt.want, tt.why)
			}
		})
	}
}

func TestParsePeer(t *testing.T) {
	v, err := parsePeer("some warning\n{\"faiss\": \"1.15.1\", \"1thread\": {\"queries_per_s\": 101.5}}\n")
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := num(v, "1thread.queries_per_s"); !ok || q != 101.5 {
		t.Fatalf("1thread.queries_per_s = %v, %v", q, ok)
	}
	if str(v, "faiss") != "1.15.1" {
		t.Fatalf("faiss = %q", str(v, "faiss"))
	}
	if _, err := parsePeer("Traceback (most recent call last):\n  ImportError: no faiss\n"); err == nil {
		t.Fatal("a traceback parsed as a peer result")
	}
}

func TestMarkdownSaysWhatIsMissing(t *testing.T) {
	rep := report{Rows: []row{
		newRow("flat search", "queries/s", higher, 80, "", "FAISS", 100, "", "n"),
		newRow("BM25", "ms/query", lower, 5, "", "bm25s", 0, "bm25s pip install failed: no network", ""),
		newRow("answer p50", "ms", lower, 0, "skipped: no index", "", 0, noPeer, ""),
	}}
	md := markdown(rep)
	for _, want := range []string{"| flat search | 80.0 queries/s | FAISS | 100 queries/s | 0.80× | n |", "bm25s pip install failed: no network", "| answer p50 | skipped: no index | — | — | — |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
