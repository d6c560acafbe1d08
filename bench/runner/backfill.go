package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// backfill: the reindexing backfill of issue 38 — the index activities (plan, chunk, embed,
// write) over the realtimeqa articles published from -backfill-from on, with the model `asof
// index` takes for that corpus by default (-backfill-model), against ONNX Runtime from Python
// embedding the same chunk texts with the English E5-small-v2 in fp32: the peer the goal is
// stated against (≥ 2.4×). Opt-in (`-only backfill`): the 9,508 articles of 2023 take ~8 min
// for asof on 2 cores; the peer, ~2.5× slower, embeds every -backfill-peer-every-th chunk text
// (3: ~6 min) and its rate stands for all.
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
	chunksPerS := res.Results["BenchmarkIndexBuild"].Metrics["chunks/s"]
	p, pw := 0.0, "no chunk texts from the Go benchmark"
	notes := fmt.Sprintf("plan → chunk → embed → write shard (Parquet, vectors, bleve), local store, monthly shards; both sides: each text tokenized once, sorted by length, batches ≤16 texts and ≤2048 padded tokens, %d calls × 1 thread", runtime.NumCPU())
	if n, serr := everyKth(texts, r.o.BackfillPeerEvery); serr == nil {
		py, why := r.embedPeerFor(ctx, 60*time.Minute, "backfill-python", "e5-small-v2", "--texts", texts, "--batch", "16", "--batch-tokens", "2048")
		pw = why
		if py != nil {
			rate, ok := num(py, "passages_per_s")
			switch {
			case ok && a > 0 && chunksPerS > 0:
				p, pw = rate*a/chunksPerS, "" // chunks/s → docs/s, at asof's chunks a document
				notes += fmt.Sprintf("; %d articles; the peer embedded every %d-th chunk text (%d), its chunks/s taken as the rate of all", int(docs), max(1, r.o.BackfillPeerEvery), n)
			default:
				pw = "no passages_per_s in embed_peer.py's output, or no rates from the Go benchmark"
			}
		}
	} else if aw == "" {
		pw = serr.Error()
	}
	return []row{newRow(what, "docs/s", higher, a, aw, peer, p, pw, notes+" (†3)")}
}

// everyKth keeps every k-th text of the JSON list in file (all when k ≤ 1), evenly over the
// build's order, so the slower peer measures its rate on a sample of the same texts, and
// returns how many it kept.
func everyKth(file string, k int) (int, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	var texts []string
	if err := json.Unmarshal(data, &texts); err != nil {
		return 0, err
	}
	k = max(1, k)
	kept := texts[:0]
	for i := 0; i < len(texts); i += k {
		kept = append(kept, texts[i])
	}
	if data, err = json.Marshal(kept); err != nil {
		return 0, err
	}
	return len(kept), os.WriteFile(file, data, 0o644)
}
