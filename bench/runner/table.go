package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Which way a row's unit is better.
const (
	higher = "higher"
	lower  = "lower"
)

// noPeer marks a row that has no peer by design.
const noPeer = "none"

// row is one line of the table. Asof and PeerValue are nil when not measured, with the reason
// in AsofMissing or PeerMissing.
type row struct {
	What        string   `json:"what"`
	Unit        string   `json:"unit"`
	Better      string   `json:"better"`
	Asof        *float64 `json:"asof"`
	AsofMissing string   `json:"asof_missing,omitempty"`
	Peer        string   `json:"peer"`
	PeerValue   *float64 `json:"peer_value"`
	PeerMissing string   `json:"peer_missing,omitempty"`
	// Ratio is asof ÷ peer: for a row measured in rounds, the median of the rounds' ratios.
	Ratio *float64 `json:"ratio"`
	// RatioRounds is each round's ratio, in order, for a row measured in rounds (pairedRow).
	RatioRounds []float64 `json:"ratio_rounds,omitempty"`
	Notes       string    `json:"notes"`
}

func newRow(what, unit, better string, asof float64, asofWhy, peer string, peerV float64, peerWhy, notes string) row {
	r := row{What: what, Unit: unit, Better: better, Peer: peer, Notes: notes, AsofMissing: asofWhy, PeerMissing: peerWhy}
	if asofWhy == "" {
		r.Asof = &asof
	}
	if peerWhy == "" {
		r.PeerValue = &peerV
	}
	if r.Asof != nil && r.PeerValue != nil && peerV != 0 {
		ratio := asof / peerV
		r.Ratio = &ratio
	}
	return r
}

// measure is one round's figure, or why there is none.
type measure struct {
	v   float64
	why string
}

// median is the median of the figures that were measured (the mean of the middle two for an
// even count), or false when none was.
func median(ms []measure) (float64, bool) {
	var vs []float64
	for _, m := range ms {
		if m.why == "" {
			vs = append(vs, m.v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2], true
	}
	return (vs[n/2-1] + vs[n/2]) / 2, true
}

// pairedRow is a row measured in rounds, asof and its peer taking turns: asof's and the peer's
// figures are their medians over the rounds, and the ratio is the median of the per-round
// ratios of the rounds where both were measured (a round's ratio compares two figures taken
// minutes apart at most, so a change in the machine's load between rounds cancels out).
// The notes end with every round's ratio when there was more than one.
func pairedRow(what, unit, better string, asof []measure, peer string, peers []measure, notes string) row {
	a, aw := pick(asof)
	p, pw := pick(peers)
	r := newRow(what, unit, better, a, aw, peer, p, pw, notes)
	var ratios []measure
	for i := range min(len(asof), len(peers)) {
		if asof[i].why == "" && peers[i].why == "" && peers[i].v != 0 {
			ratios = append(ratios, measure{v: asof[i].v / peers[i].v})
			r.RatioRounds = append(r.RatioRounds, asof[i].v/peers[i].v)
		}
	}
	if m, ok := median(ratios); ok {
		r.Ratio = &m
	}
	if len(r.RatioRounds) > 1 {
		parts := make([]string, len(r.RatioRounds))
		for i, x := range r.RatioRounds {
			parts[i] = fmt.Sprintf("%.2f", x)
		}
		r.Notes += fmt.Sprintf("; ratio by round %s (median %s)", strings.Join(parts, " / "), fmt.Sprintf("%.2f", *r.Ratio))
	}
	return r
}

// pick is the median of the rounds' figures, or the first round's reason when none was measured.
func pick(ms []measure) (float64, string) {
	if v, ok := median(ms); ok {
		return v, ""
	}
	if len(ms) == 0 {
		return 0, "not measured"
	}
	return 0, ms[0].why
}

// footnotes explain the table; rows point at them with (†n).
var footnotes = []string{
	"Ratio = asof ÷ peer. Rows in /s: higher is better; rows in ms: lower is better (a ratio below 1 means asof is faster). Each peer ran right after its asof benchmark, on the same data, in the same `make bench` run; the dense rows (†1) take turns with FAISS in rounds (`-dense-rounds`, 3 by default), each figure the median of its rounds and the ratio the median of the rounds' ratios.",
	"†1 Dense search: 100,000 random unit vectors × 384 float32 (154 MB), written by the Go benchmark and read by FAISS; exact inner product, top 500, no mask. Bytes scanned/s = queries/s × 154 MB. \"Aggregate\": asof runs two goroutines, each searching every row for its own query; FAISS gets both queries in one call on 2 OpenMP threads (it parallelises a flat search over queries). \"One query\": asof splits the rows into two shards searched by two goroutines and merges the two top-500 lists (what retrieve does across shards); FAISS, given one query, scans on one thread whatever the thread count. The read bound is vecindex's read-only kernel (readXOR: the widest vector loads the CPU has, folded with XOR, nothing stored) over 256 MiB per goroutine, far larger than the caches: the rate this machine reads memory; the shared read bound has both goroutines read the same 256 MiB at once, as two scans of one shard do, so one may find in the caches what the other just read. The copy is Go's copy of 256 MiB per goroutine, counted as bytes read (it writes as many, so it understates the read bound). int8: vecindex.Int8.Search over per-vector symmetric int8 codes of the same vectors (38 MB, on the best int8 kernel the CPU has: the kernel rows name it), the best k·rerank rows re-scored in float32; its peer is FAISS's float32 scan at the same k, and its recall is against asof's exact float32 scan.",
	"†2 BM25 tokenization differs, so the result lists differ. asof indexes and searches with bleve's \"en\" analyzer: Unicode word segmentation, English possessive removal, lowercasing, English stop words, Porter stemming; the query is a bleve match query over text_en OR text_ru (empty here). bm25s uses its own tokenizer: the regex (?u)\\b\\w\\w+\\b (words of 2+ characters), lowercasing, its English stop-word list, no stemming (PyStemmer is not installed). Both score Lucene-style BM25 with k1 1.2, b 0.75. Timed per query from its text to its top 10 (analysis or tokenization included), one query at a time, after one warm-up pass over the 200 queries.",
	"†3 Embedding: the same ONNX model files and the same texts; asof through hugot (ONNX Runtime via cgo, or the pure-Go gomlx backend), the peer through onnxruntime and HF tokenizers in Python with mean pooling, each text tokenized once and the batches laid out as asof lays them (bench/embed_peer.py). Index build: plan → chunk → embed → write shard, as activities in Temporal's test activity environment on a local-folder store; its peer is the embedding alone of the same chunk texts with the same model, the bound a build can approach.",
	"†4 Temporal overhead: asof's activities registered as the worker registers them, on a real Temporal server (temporaltest, in process) and the embedded S3 gateway. \"As an activity\": one workflow runs 50 of them in sequence (ms per activity); \"directly\": the same method called in a loop.",
	"†5 Answer latency: the Answer activity (retrieve BM25 + dense over the shards in the as-of mask → fuse → fold duplicates → context → extractive summary), query vectors embedded beforehand; no external peer. Set ASOF_BENCH_STORE and ASOF_BENCH_INDEX to measure it on a full index.",
	"†6 Index throughput: the embedding step of an index build (activities.EmbedShard: EmbedPassages on parts of 128 chunks, each part sorted by token length and cut into calls of ≤16 texts and ≤2048 padded tokens, the calls on cores ÷ 1 single-threaded ONNX Runtime sessions at once), timed in BenchmarkIndexThroughput (internal/embed) on the same texts for both models, one model after the other; the peer is the English default, so the ratio is multilingual ÷ English. Tokens/text counts each model's own tokenizer after truncation at 512 tokens: XLM-R's 250,002-piece vocabulary splits Cyrillic into far fewer tokens than E5's 30,522 BERT WordPieces, so Russian texts are shorter for the multilingual model. The Python figures are bench/embed_peer.py --texts on the same texts with the same batching.",
}

// markdown renders the report.
func markdown(rep report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## asof vs peers, %s\n\n", rep.Started.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "Machine: %s. Build tags: %q. Runtime: %s.\n\n", rep.Machine, rep.Tags, time.Duration(rep.DurationS*float64(time.Second)).Round(time.Second))
	b.WriteString("| what | asof | peer | peer value | ratio | notes |\n")
	b.WriteString("| --- | ---: | --- | ---: | ---: | --- |\n")
	for _, r := range rep.Rows {
		asof := "—"
		if r.Asof != nil {
			asof = trimFloat(*r.Asof) + " " + r.Unit
		} else if r.AsofMissing != "" {
			asof = r.AsofMissing
		}
		peer, pv := r.Peer, "—"
		switch {
		case r.PeerMissing == noPeer:
			peer = "—"
		case r.PeerValue != nil:
			pv = trimFloat(*r.PeerValue) + " " + r.Unit
		default:
			pv = r.PeerMissing
		}
		ratio := "—"
		if r.Ratio != nil {
			ratio = fmt.Sprintf("%.2f×", *r.Ratio)
			if *r.Ratio >= 10 {
				ratio = trimFloat(*r.Ratio) + "×"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", cell(r.What), cell(asof), cell(peer), cell(pv), ratio, cell(r.Notes))
	}
	b.WriteString("\n")
	for _, f := range rep.Footnotes {
		b.WriteString("- " + f + "\n")
	}
	return b.String()
}

// cell keeps a table cell on one line and its pipes escaped.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`)
}
