package main

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// throughputOutput is BenchmarkIndexThroughput's output as `go test -bench -v` prints it.
const throughputOutput = `BenchmarkIndexThroughput
BenchmarkIndexThroughput/en
BenchmarkIndexThroughput/en/multilingual-e5-small
BenchmarkIndexThroughput/en/multilingual-e5-small-2         	       1	151102660839 ns/op	       168.7 cpu-ms/text	         1.021 padded/real	         6.000 texts/s	       296.6 tokens/text
BenchmarkIndexThroughput/en/e5-small-v2-q
BenchmarkIndexThroughput/en/e5-small-v2-q-2                 	       1	73280177924 ns/op	       149.5 cpu-ms/text	         1.024 padded/real	         8.000 texts/s	       265.5 tokens/text
BenchmarkIndexThroughput/ru
BenchmarkIndexThroughput/ru/multilingual-e5-small
BenchmarkIndexThroughput/ru/multilingual-e5-small-2         	       1	19340648865 ns/op	        40 cpu-ms/text	         1.123 padded/real	        24 texts/s	        85.16 tokens/text
BenchmarkIndexThroughput/ru/e5-small-v2-q
    throughput_test.go:94: model e5-small-v2-q absent (run ` + "`make setup`" + `)
--- SKIP: BenchmarkIndexThroughput/ru/e5-small-v2-q
`

func TestThroughputRows(t *testing.T) {
	res := parseBench(throughputOutput)
	base := throughputRun{me5: "multilingual-e5-small", english: "e5-small-v2-q", n: 256, cpus: 2, res: res,
		py: map[string]peerNotes{"en": {wall: "; PYWALL", cpu: "; PYCPU"}}}
	type want struct {
		what        string
		asof, peer  float64 // 0: missing, with a reason containing asofWhy or peerWhy
		asofWhy     string
		peerWhy     string
		ratio       float64
		notesHaveAt []string
	}
	tests := []struct {
		name string
		run  func(throughputRun) throughputRun
		want []want
	}{
		{
			name: "measured and skipped",
			run:  func(r throughputRun) throughputRun { return r },
			want: []want{
				{what: "index throughput, English: multilingual-e5-small", asof: 6, peer: 8, ratio: 0.75,
					notesHaveAt: []string{"256 2023 realtimeqa articles", "tokens/text: multilingual-e5-small 297 (XLM-R), e5-small-v2-q 266", "PYWALL", "2 calls × 1 thread"}},
				{what: "index throughput per CPU second, English: multilingual-e5-small", asof: 1000 / 168.7, peer: 1000 / 149.5, ratio: 149.5 / 168.7,
					notesHaveAt: []string{"PYCPU"}},
				{what: "index throughput, Russian: multilingual-e5-small", asof: 24, peerWhy: "skipped: model e5-small-v2-q absent"},
				{what: "index throughput per CPU second, Russian: multilingual-e5-small", asof: 25, peerWhy: "skipped: model e5-small-v2-q absent"},
			},
		},
		{
			name: "a model that could not be pulled",
			run: func(r throughputRun) throughputRun {
				r.missing = map[string]string{"multilingual-e5-small": "model multilingual-e5-small could not be pulled: no pip"}
				return r
			},
			want: []want{
				{what: "index throughput, English: multilingual-e5-small", peer: 8, asofWhy: "could not be pulled: no pip"},
				{what: "index throughput per CPU second, English: multilingual-e5-small", peer: 1000 / 149.5, asofWhy: "could not be pulled: no pip"},
				{what: "index throughput, Russian: multilingual-e5-small", asofWhy: "could not be pulled: no pip", peerWhy: "skipped: model e5-small-v2-q absent"},
				{what: "index throughput per CPU second, Russian: multilingual-e5-small", asofWhy: "could not be pulled: no pip", peerWhy: "skipped"},
			},
		},
		{
			name: "the benchmark failed",
			run: func(r throughputRun) throughputRun {
				r.res, r.err = parseBench(""), errors.New("embed.test: exit status 1")
				return r
			},
			want: []want{
				{what: "index throughput, English: multilingual-e5-small", asofWhy: "failed: embed.test: exit status 1", peerWhy: "failed: embed.test"},
				{what: "index throughput per CPU second, English: multilingual-e5-small", asofWhy: "failed: embed.test: exit status 1", peerWhy: "failed: embed.test"},
				{what: "index throughput, Russian: multilingual-e5-small", asofWhy: "failed: embed.test: exit status 1", peerWhy: "failed: embed.test"},
				{what: "index throughput per CPU second, Russian: multilingual-e5-small", asofWhy: "failed: embed.test: exit status 1", peerWhy: "failed: embed.test"},
			},
		},
	}
	near := func(p *float64, v float64) bool { return p != nil && math.Abs(*p-v) < 1e-9 }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := throughputRows(tt.run(base))
			if len(rows) != len(tt.want) {
				t.Fatalf("%d rows, want %d", len(rows), len(tt.want))
			}
			for i, w := range tt.want {
				r := rows[i]
				if r.What != w.what || !strings.Contains(r.Peer, "e5-small-v2-q") {
					t.Errorf("row %d: %q against %q, want %q against e5-small-v2-q", i, r.What, r.Peer, w.what)
				}
				if w.asof != 0 && !near(r.Asof, w.asof) || w.asof == 0 && (r.Asof != nil || !strings.Contains(r.AsofMissing, w.asofWhy)) {
					t.Errorf("row %d: asof %v (missing %q), want %v or a reason with %q", i, r.Asof, r.AsofMissing, w.asof, w.asofWhy)
				}
				if w.peer != 0 && !near(r.PeerValue, w.peer) || w.peer == 0 && (r.PeerValue != nil || !strings.Contains(r.PeerMissing, w.peerWhy)) {
					t.Errorf("row %d: peer %v (missing %q), want %v or a reason with %q", i, r.PeerValue, r.PeerMissing, w.peer, w.peerWhy)
				}
				if w.ratio != 0 && !near(r.Ratio, w.ratio) || w.ratio == 0 && r.Ratio != nil {
					t.Errorf("row %d: ratio %v, want %v", i, r.Ratio, w.ratio)
				}
				for _, s := range w.notesHaveAt {
					if !strings.Contains(r.Notes, s) {
						t.Errorf("row %d: notes %q lack %q", i, r.Notes, s)
					}
				}
				if !strings.HasSuffix(r.Notes, "(†6)") {
					t.Errorf("row %d: notes %q do not point at †6", i, r.Notes)
				}
			}
		})
	}
}
