package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// backfill: the reindexing backfill of issue 38 — the index activities (plan, chunk, embed,
// write) over the realtimeqa articles published from -backfill-from on, with the model `asof
// index` takes for that corpus by default (-backfill-model), against ONNX Runtime from Python
// embedding the same chunk texts with the English E5-small-v2 in fp32: the peer the goal is
// stated against (≥ 2.4×). Opt-in (`-only backfill`): the 9,508 articles of 2023 take ~10 min
// for asof and ~20 for the peer on 2 cores.
func (r *runner) backfill(ctx context.Context) []row {
	model := r.o.BackfillModel
	done := r.step(fmt.Sprintf("backfill, realtimeqa from %s, up to %d articles, %s (asof) vs e5-small-v2 fp32 (Python)", r.o.BackfillFrom, r.o.BackfillDocs, model))
	defer done()
	texts, _ := filepath.Abs(filepath.Join(r.o.Out, "backfill-texts.json"))
	os.Remove(texts)
	defer os.Remove(texts)
	what := fmt.Sprintf("backfill: index build, realtimeqa articles from %s (%s)", r.o.BackfillFrom, model)
	peer := "embedding alone: the same chunk texts, E5-small-v2 fp32, ONNX Runtime from Python"
	for _, id := range []string{model, "e5-small-v2"} {
		if why := r.pull(ctx, id); why != "" {
			return []row{newRow(what, "docs/s", higher, 0, why, peer, 0, why, "")}
		}
	}
	res, err := r.goBench(ctx, "backfill", "./activities", false, "^BenchmarkIndexBuild$", "1x",
		"ASOF_BENCH_DOCS="+strconv.Itoa(r.o.BackfillDocs), "ASOF_BENCH_FROM="+r.o.BackfillFrom, "ASOF_BENCH_TEXTS="+texts, "ASOF_BENCH_MODEL="+model)
	a, aw := metric(res, err, "BenchmarkIndexBuild", "docs/s")
	docs := res.Results["BenchmarkIndexBuild"].Metrics["docs"]
	p, pw := 0.0, "no chunk texts from the Go benchmark"
	notes := fmt.Sprintf("plan → chunk → embed → write shard (Parquet, vectors, bleve), local store, monthly shards; both sides: each text tokenized once, sorted by length, batches ≤16 texts and ≤2048 padded tokens, %d calls × 1 thread", runtime.NumCPU())
	if _, serr := os.Stat(texts); serr == nil {
		py, why := r.embedPeer(ctx, "backfill-python", "e5-small-v2", "--texts", texts, "--batch", "16", "--batch-tokens", "2048")
		pw = why
		if py != nil {
			rate, ok1 := num(py, "passages_per_s")
			n, ok2 := num(py, "texts")
			switch {
			case ok1 && ok2 && n > 0 && docs > 0:
				p, pw = rate*docs/n, "" // chunks/s → docs/s
				notes += fmt.Sprintf("; %d articles, %d chunks", int(docs), int(n))
			default:
				pw = "no passages_per_s in embed_peer.py's output, or no document count from the Go benchmark"
			}
		}
	}
	return []row{newRow(what, "docs/s", higher, a, aw, peer, p, pw, notes+" (†3)")}
}
