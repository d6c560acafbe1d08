package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/vecindex"
)

// dense: flat search at 1 and 2 threads and the int8 scan with float32 re-scoring at top 10
// and 500 vs FAISS IndexFlatIP (float32) on the same vectors, and the bytes scanned per second
// vs the read bound (a read-only kernel) and a copy. asof's benchmarks and FAISS take turns,
// -dense-rounds times (pairedRow): a row's ratio is the median of its rounds' ratios, so a
// swing in the machine's load between the two programs moves one round, not the table.
func (r *runner) dense(ctx context.Context) []row {
	done := r.step(fmt.Sprintf("flat dense search (asof, FAISS, %d rounds), read bound and memcpy", r.o.DenseRounds))
	defer done()
	vec, _ := filepath.Abs(filepath.Join(r.o.Out, "vectors.f32"))
	defer os.Remove(vec) // 154 MB
	type round struct {
		res benchOutput
		err error
		fs  map[string]any
		why string
	}
	rounds := make([]round, max(r.o.DenseRounds, 1))
	for i := range rounds {
		log := fmt.Sprintf("dense-%d", i+1)
		rd := &rounds[i]
		rd.res, rd.err = r.goBench(ctx, log, "./internal/vecindex", false,
			"^(BenchmarkSearchThreads|BenchmarkSearchMany|BenchmarkSearchInt8100k|BenchmarkReadBandwidth|BenchmarkReadBandwidthParallel|BenchmarkReadBandwidthShared|BenchmarkMemcpy|BenchmarkMemcpyParallel)$", "30x", "ASOF_BENCH_VECTORS="+vec)
		rd.why = "no vectors from the Go benchmark"
		if _, serr := os.Stat(vec); serr == nil {
			rd.fs, rd.why = r.peer(ctx, "faiss", log+"-faiss", "search_peer.py", vec, "384", "--calls", "30")
		}
	}
	faiss := version(rounds[0].fs, "faiss", "faiss-cpu") + " IndexFlatIP"
	// Each of these reads one figure from every round.
	goMetric := func(name, unit string) []measure {
		ms := make([]measure, len(rounds))
		for i, rd := range rounds {
			ms[i].v, ms[i].why = metric(rd.res, rd.err, name, unit)
		}
		return ms
	}
	search := func(sub, unit string) []measure { return goMetric("BenchmarkSearchThreads/"+sub, unit) }
	peerNum := func(path string) []measure {
		ms := make([]measure, len(rounds))
		for i, rd := range rounds {
			switch v, ok := num(rd.fs, path); {
			case rd.fs == nil:
				ms[i].why = rd.why
			case ok:
				ms[i].v = v
			default:
				ms[i].why = "no " + path + " in search_peer.py's output"
			}
		}
		return ms
	}
	gbps := func(path string) string {
		if v, ok := median(peerNum(path)); ok {
			return fmt.Sprintf("; FAISS scans %s GB/s", trimFloat(v))
		}
		return ""
	}
	var rows []row
	rows = append(rows, pairedRow("flat search, 1 thread", "queries/s", higher, search("1thread", "queries/s"), faiss+", 1 thread", peerNum("1thread.queries_per_s"),
		"100,000 × 384 float32, exact top 500, same vectors and query"+gbps("1thread.scan_gb_per_s")))
	rows = append(rows, pairedRow("flat search, 2 threads, aggregate", "queries/s", higher, search("2goroutines", "queries/s"), faiss+", 2 OpenMP threads, 2 queries per call", peerNum("2threads_2queries.queries_per_s"),
		"asof: 2 goroutines, each scanning every row for its own query (†1)"+gbps("2threads_2queries.scan_gb_per_s")))
	rows = append(rows, pairedRow("flat search, 2 threads, one query", "queries/s", higher, search("2shards", "queries/s"), faiss+", 2 OpenMP threads, 1 query per call", peerNum("2threads_1query.queries_per_s"),
		"asof: shard-parallel (2 halves, 2 goroutines, top-500 lists merged); FAISS parallelises over queries only (†1)"))
	for _, k := range []string{"10", "500"} {
		peerPath := map[string]string{"10": "1thread_k10", "500": "1thread"}[k]
		notes := fmt.Sprintf("same vectors and query as the float32 rows; int8 codes scanned, the best %s·%d re-scored in float32 (†1)", k, vecindex.DefaultRerank)
		if v, ok := median(goMetric("BenchmarkSearchInt8100k/k"+k, "recall")); ok {
			notes += fmt.Sprintf("; recall@%s vs the exact float32 scan %.3f (100 queries)", k, v)
		}
		rows = append(rows, pairedRow("int8 scan + float32 re-scoring, 1 thread, top "+k, "queries/s", higher, goMetric("BenchmarkSearchInt8100k/k"+k, "queries/s"), faiss+" float32, 1 thread, top "+k, peerNum(peerPath+".queries_per_s"), notes))
	}
	for _, q := range []string{"8", "32"} {
		for _, t := range [][3]string{{"1thread", "1thread", "1 thread"}, {"2thread", "2threads", "2 threads"}} {
			rows = append(rows, pairedRow("flat search, multi-query, "+t[2]+", "+q+" queries per call", "queries/s", higher, goMetric("BenchmarkSearchMany/"+t[0]+"/B"+q, "queries/s"), faiss+", "+t[2]+", "+q+" queries per call", peerNum(t[1]+"_"+q+"queries.queries_per_s"),
				"asof: Flat.SearchMany, blocks of 8 queries scored per pass over the rows (2 threads: 2 halves of the rows, lists merged); FAISS uses BLAS from 20 queries; same queries (†1)"))
		}
	}
	rows = append(rows, r.kernels(ctx)...)
	// The read bound: a kernel that only loads (vecindex's readXOR, the widest loads the CPU
	// has), so the ratio is the fraction of the machine's read bandwidth the scan reaches.
	read := fmt.Sprintf("read bound: read-only kernel (%s loads, XOR, no stores) over 256 MiB", vecindex.Kernel())
	rows = append(rows, pairedRow("bytes scanned/s, 1 thread, vs the read bound", "GB/s", higher, search("1thread", "scan-GB/s"), read+", 1 goroutine", goMetric("BenchmarkReadBandwidth", "read-GB/s"),
		"the scan's memory bound: ratio = the fraction of the machine's read bandwidth the float32 scan reaches"))
	rows = append(rows, pairedRow("bytes scanned/s, 2 threads (aggregate), vs the read bound", "GB/s", higher, search("2goroutines", "scan-GB/s"), read+" each, 2 goroutines", goMetric("BenchmarkReadBandwidthParallel", "read-GB/s"),
		"two goroutines each scanning every row, against two each reading their own buffer"))
	rows = append(rows, pairedRow("bytes scanned/s, 2 threads (aggregate), vs the shared read bound", "GB/s", higher, search("2goroutines", "scan-GB/s"), read+", 2 goroutines reading the same buffer at once", goMetric("BenchmarkReadBandwidthShared", "read-GB/s"),
		"two scans of the same rows can pass the two-buffer bound where one reads what the other just brought into the caches; this is that envelope"))
	copies := goMetric("BenchmarkMemcpy", "MB/s")
	for i := range copies {
		copies[i].v /= 1000
	}
	rows = append(rows, pairedRow("bytes scanned/s, 1 thread, vs a copy", "GB/s", higher, search("1thread", "scan-GB/s"), "copy: Go copy of 256 MiB, 1 goroutine (bytes read/s; it writes as many)", copies,
		"a copy reads and writes, so it understates the read bound; kept for comparison with earlier tables"))
	rows = append(rows, pairedRow("bytes scanned/s, 2 threads (aggregate), vs a copy", "GB/s", higher, search("2goroutines", "scan-GB/s"), "copy: 2 goroutines × 256 MiB (bytes read/s)", goMetric("BenchmarkMemcpyParallel", "read-GB/s"),
		"two goroutines each scanning every row"))
	return rows
}

// kernels: each inner-product kernel level against the portable Go loop, one row per level the
// code has (a level this CPU lacks is a row that says so). The search rows above run the level
// vecindex chose at start-up (vecindex.Kernel).
func (r *runner) kernels(ctx context.Context) []row {
	res, err := r.goBench(ctx, "kernels", "./internal/vecindex", false, "^BenchmarkKernels$", "200000x")
	var rows []row
	for _, k := range []struct{ bench, what string }{
		{"dot384", "float32 dot, 384 values"},
		{"dotsInt8-384x64", "int8 dots, 64 rows × 384 codes"},
	} {
		p, pw := metric(res, err, "BenchmarkKernels/"+k.bench+"/generic", "ns/op")
		for _, level := range []string{"avx2", "avx512", "avx512vnni"} {
			if level == "avx512vnni" && k.bench == "dot384" {
				continue // VNNI is an integer instruction: the float kernel is avx512's
			}
			a, aw := metric(res, err, "BenchmarkKernels/"+k.bench+"/"+level, "ns/op")
			rows = append(rows, newRow("kernel "+level+": "+k.what, "ns", lower, a, aw, "portable Go loop", p, pw,
				"one call; the search rows use "+vecindex.Kernel()+" on this CPU (ASOF_KERNEL can only choose a lower level)"))
		}
	}
	return rows
}

// bm25: asof's bleve shard search vs bm25s on the same documents and queries.
func (r *runner) bm25(ctx context.Context) []row {
	done := r.step("BM25 top 10 (asof/bleve, bm25s)")
	defer done()
	data, _ := filepath.Abs(filepath.Join(r.o.Out, "bm25.json"))
	res, err := r.goBench(ctx, "bm25", "./internal/lexical", false, "^BenchmarkSearchTop10$", "600x", "ASOF_BENCH_BM25="+data)
	a, aw := metric(res, err, "BenchmarkSearchTop10", "ms/query")
	var bs map[string]any
	why := "no documents from the Go benchmark"
	if _, serr := os.Stat(data); serr == nil {
		bs, why = r.peer(ctx, "bm25s", "bm25-bm25s", "bm25_peer.py", data, "--passes", "3")
	}
	os.Remove(data)
	p, pw := 0.0, why
	var builds []string
	if v, ok := res.Results["BenchmarkSearchTop10"].Metrics["build-docs/s"]; ok {
		builds = append(builds, "asof (bleve) "+trimFloat(v)+" docs/s")
	}
	if bs != nil {
		pw = ""
		if v, ok := num(bs, "ms_per_query"); ok {
			p = v
		} else {
			pw = "no ms_per_query in bm25_peer.py's output"
		}
		if v, ok := num(bs, "index_docs_per_s"); ok {
			builds = append(builds, "bm25s "+trimFloat(v)+" docs/s")
		}
	}
	notes := "first 10,000 realtimeqa articles (title + text), first 200 questions, no date window, 1 thread"
	// CPU time per query (all threads) moves far less than wall time on a shared machine.
	var cpus []string
	if v, ok := res.Results["BenchmarkSearchTop10"].Metrics["cpu-ms/query"]; ok {
		cpus = append(cpus, "asof "+trimFloat(v))
	}
	if v, ok := num(bs, "cpu_ms_per_query"); ok {
		cpus = append(cpus, "bm25s "+trimFloat(v))
	}
	if cpus != nil {
		notes += "; CPU ms/query: " + strings.Join(cpus, ", ")
	}
	if builds != nil {
		notes += "; index build: " + strings.Join(builds, ", ")
	}
	notes += " (†2)"
	return []row{newRow("BM25 query, top 10", "ms/query", lower, a, aw, version(bs, "bm25s", "bm25s")+" (numpy backend): tokenize + retrieve", p, pw, notes)}
}

// modelDir is the folder of model id as the Go tests find it (internal/testmodel):
// ASOF_MODEL_DIR, else .asof/models, else the shared model cache (config.SharedModelsDir, where
// `make setup` pulls) when the model is there and not in .asof/models.
func (r *runner) modelDir(id string) string {
	if dir := os.Getenv("ASOF_MODEL_DIR"); dir != "" {
		return filepath.Join(dir, id)
	}
	repo := filepath.Join(r.root, ".asof", "models", id)
	if _, err := os.Stat(repo); err != nil {
		if shared := config.SharedModelsDir(); shared != "" {
			if _, err := os.Stat(filepath.Join(shared, id)); err == nil {
				return filepath.Join(shared, id)
			}
		}
	}
	return repo
}

// indexModel is the model the index build is measured with: asof's default for new indexes,
// multilingual int8 on ONNX Runtime (English fp32 on pure Go, which runs neither int8 nor
// XLM-R), as the Go benchmark's testmodel.BenchID.
func (r *runner) indexModel() string {
	if r.ort {
		return models.DefaultID
	}
	return models.FloatDefaultID
}

// embedPeer runs the Python ONNX Runtime embedder (bench/embed_peer.py) on model id, laid out
// as asof runs it: one thread per call, as many calls at once as cores.
func (r *runner) embedPeer(ctx context.Context, log, id string, args ...string) (map[string]any, string) {
	return r.embedPeerFor(ctx, peerTimeout, log, id, args...)
}

// embedPeerFor is embedPeer with a time limit of its own (a backfill's peer runs longer).
func (r *runner) embedPeerFor(ctx context.Context, limit time.Duration, log, id string, args ...string) (map[string]any, string) {
	dir := r.modelDir(id)
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		return nil, "model " + id + " absent (asof models pull " + id + ")"
	}
	args = append([]string{dir, "--threads", "1", "--workers", strconv.Itoa(runtime.NumCPU())}, args...)
	return r.peerFor(ctx, limit, "onnxruntime", log, "embed_peer.py", args...)
}

// embedding: passages/s of asof's backends vs ONNX Runtime from Python, same model and texts.
func (r *runner) embedding(ctx context.Context) []row {
	done := r.step("embedding (asof ORT, Python ORT, asof pure Go)")
	defer done()
	pattern := "^BenchmarkEmbedPassages$"
	// Both sides embed with the English fp32 model, which `make setup` does not pull (it pulls
	// the int8 default): pull it here, so the rows are measured rather than skipped.
	if why := r.pull(ctx, models.FloatDefaultID); why != "" {
		return []row{
			newRow("embedding, ONNX Runtime (Go, -tags ORT)", "passages/s", higher, 0, why, "ONNX Runtime from Python", 0, why, ""),
			newRow("embedding, pure Go (hugot/gomlx)", "passages/s", higher, 0, why, "ONNX Runtime from Python", 0, why, ""),
		}
	}
	ortV, ortW := 0.0, "not built with ONNX Runtime (make setup-ort)"
	if r.ort {
		res, err := r.goBench(ctx, "embed-ort", "./internal/embed", false, pattern, fmt.Sprintf("%ds", r.o.EmbedSeconds))
		ortV, ortW = metric(res, err, "BenchmarkEmbedPassages", "passages/s")
	}
	py, pyW := r.embedPeer(ctx, "embed-python", "e5-small-v2", "--seconds", strconv.Itoa(r.o.EmbedSeconds))
	res, err := r.goBench(ctx, "embed-purego", "./internal/embed", true, pattern, fmt.Sprintf("%dx", r.o.PureGoBatches))
	pureV, pureW := metric(res, err, "BenchmarkEmbedPassages", "passages/s")
	p, pw := 0.0, pyW
	if py != nil {
		if v, ok := num(py, "passages_per_s"); ok {
			p, pw = v, ""
		} else {
			pw = "no passages_per_s in embed_peer.py's output"
		}
	}
	peer := version(py, "onnxruntime", "onnxruntime") + " from Python (+ HF tokenizers)"
	threads := fmt.Sprintf("E5-small-v2 (fp32), 800-char passages, batches of 8, %d calls × 1 thread", runtime.NumCPU())
	return []row{
		newRow("embedding, ONNX Runtime (Go, -tags ORT)", "passages/s", higher, ortV, ortW, peer, p, pw,
			fmt.Sprintf("%s; %d s each (†3)", threads, r.o.EmbedSeconds)),
		newRow("embedding, pure Go (hugot/gomlx)", "passages/s", higher, pureV, pureW, peer, p, pw,
			fmt.Sprintf("%s; asof: a fixed %d passages (†3)", threads, 8*r.o.PureGoBatches)),
	}
}

// indexAndAnswer: index-build documents/s vs embedding the same chunks with ONNX Runtime
// from Python, then answer latency on the index just built (or on ASOF_BENCH_STORE).
func (r *runner) indexAndAnswer(ctx context.Context) []row {
	done := r.step(fmt.Sprintf("index build, %d documents (asof, Python ORT)", r.o.Docs))
	store, _ := filepath.Abs(filepath.Join(r.o.Out, "store"))
	texts, _ := filepath.Abs(filepath.Join(r.o.Out, "index-texts.json"))
	os.Remove(texts)
	defer os.Remove(texts)
	model := r.indexModel()
	res, err := r.goBench(ctx, "index-build", "./activities", false, "^BenchmarkIndexBuild$", "1x",
		"ASOF_BENCH_DOCS="+strconv.Itoa(r.o.Docs), "ASOF_BENCH_FROM="+r.o.From, "ASOF_BENCH_KEEP="+store, "ASOF_BENCH_TEXTS="+texts, "ASOF_BENCH_MODEL="+model)
	a, aw := metric(res, err, "BenchmarkIndexBuild", "docs/s")
	chunksPerS := res.Results["BenchmarkIndexBuild"].Metrics["chunks/s"]
	p, pw := 0.0, "no chunk texts from the Go benchmark"
	notes := fmt.Sprintf("%s; the first %d realtimeqa articles from %s; plan → chunk → embed → write shard (Parquet, vectors, bleve), local store; "+
		"both sides: each text tokenized once, sorted by length, batches ≤16 texts and ≤2048 padded tokens, %d calls × 1 thread", model, r.o.Docs, r.o.From, runtime.NumCPU())
	if _, serr := os.Stat(texts); serr == nil {
		var py map[string]any
		py, pw = r.embedPeer(ctx, "index-python", model, "--texts", texts, "--batch", "16", "--batch-tokens", "2048")
		if py != nil {
			rate, ok1 := num(py, "passages_per_s")
			n, ok2 := num(py, "texts")
			if ok1 && ok2 && n > 0 {
				p = rate * float64(r.o.Docs) / n // chunks/s → docs/s
				notes += fmt.Sprintf("; %d chunks", int(n))
			} else {
				pw = "no passages_per_s in embed_peer.py's output"
			}
		}
	}
	if chunksPerS > 0 && aw == "" {
		notes += "; asof " + trimFloat(chunksPerS) + " chunks/s"
	}
	if !r.ort {
		notes += "; pure-Go embedder"
	}
	rows := []row{newRow("index build", "docs/s", higher, a, aw, "embedding alone: the same chunk texts through ONNX Runtime from Python", p, pw, notes+" (†3)")}
	done()

	done = r.step("answer latency (retrieve → dedup → context)") // ended before the API step
	aStore, aIndex := os.Getenv("ASOF_BENCH_STORE"), os.Getenv("ASOF_BENCH_INDEX")
	where := fmt.Sprintf("index built above (%d articles)", r.o.Docs)
	if aStore != "" && aIndex != "" {
		where = fmt.Sprintf("index %q in %s (ASOF_BENCH_STORE)", aIndex, aStore)
	} else {
		aStore, aIndex = store, "bench"
	}
	var p50, p95 float64
	var p50w, p95w string
	if _, serr := os.Stat(filepath.Join(aStore, "indexes", aIndex, "manifests", "000001.json")); serr != nil && aw != "" {
		p50w = "no index: the index build " + strings.TrimPrefix(aw, "failed: ")
		p95w = p50w
	} else {
		res, err := r.goBench(ctx, "answer", "./activities", false, "^BenchmarkAnswerRealtimeQA$", "80x", "ASOF_BENCH_STORE="+aStore, "ASOF_BENCH_INDEX="+aIndex, "ASOF_BENCH_MODEL="+r.indexModel())
		p50, p50w = metric(res, err, "BenchmarkAnswerRealtimeQA", "p50-ms")
		p95, p95w = metric(res, err, "BenchmarkAnswerRealtimeQA", "p95-ms")
		m := res.Results["BenchmarkAnswerRealtimeQA"].Metrics
		if c, ok := m["index-chunks"]; ok {
			where += fmt.Sprintf(", %d chunks", int(c))
		}
		if n, ok := m["results/answer"]; ok {
			where += fmt.Sprintf("; %s results per answer", trimFloat(n))
		}
	}
	answerNotes := "40 realtimeqa questions × 2, warm shard cache; " + where + " (†5)"
	rows = append(rows,
		newRow("answer latency p50", "ms", lower, p50, p50w, "", 0, noPeer, answerNotes),
		newRow("answer latency p95", "ms", lower, p95, p95w, "", 0, noPeer, "same run"))
	done()
	return append(rows, r.serveAsk(ctx, aStore, aIndex, where, p50w)...)
}

// serveAsk: warm POST /v1/ask through asof serve (HTTP → embedded Temporal → the Ask workflow
// on an in-process worker) on the same index as the answer rows.
func (r *runner) serveAsk(ctx context.Context, store, index, where, noIndex string) []row {
	done := r.step("API ask latency (asof serve, POST /v1/ask)")
	defer done()
	var p50, p95 float64
	p50w, p95w := noIndex, noIndex
	notes := "40 realtimeqa questions dated 2023 × 2, one at a time, warm; " + where + "; target p50 ≤ 150 ms, p95 ≤ 300 ms"
	if noIndex == "" {
		res, err := r.goBench(ctx, "serve-ask", "./cmd/asof", false, "^BenchmarkServeAsk$", "1x",
			"ASOF_BENCH_STORE="+store, "ASOF_BENCH_INDEX="+index, "ASOF_BENCH_MODEL="+r.indexModel())
		p50, p50w = metric(res, err, "BenchmarkServeAsk", "p50-ms")
		p95, p95w = metric(res, err, "BenchmarkServeAsk", "p95-ms")
		var acts, locals []string
		m := res.Results["BenchmarkServeAsk"].Metrics
		for k, v := range m {
			name, ok := strings.CutSuffix(k, "-ms")
			switch {
			case !ok || name == "p50" || name == "p95" || name == "workflow" || name == "wft":
			case strings.HasPrefix(name, "local-"):
				locals = append(locals, fmt.Sprintf("%s %s", strings.TrimPrefix(name, "local-"), trimFloat(v)))
			default:
				acts = append(acts, fmt.Sprintf("%s %s", name, trimFloat(v)))
			}
		}
		if w, ok := m["workflow-ms"]; ok {
			notes += fmt.Sprintf("; workflow start → close %s ms, %s ms of it in workflow tasks", trimFloat(w), trimFloat(m["wft-ms"]))
		}
		if len(locals) > 0 {
			sort.Strings(locals)
			notes += "; mean ms per ask of each local activity (its share of the workflow task): " + strings.Join(locals, ", ")
		}
		if len(acts) > 0 {
			sort.Strings(acts)
			notes += "; mean ms per activity on a task queue: " + strings.Join(acts, ", ")
		}
	}
	return []row{
		newRow("API ask latency p50 (POST /v1/ask)", "ms", lower, p50, p50w, "", 0, noPeer, notes),
		newRow("API ask latency p95 (POST /v1/ask)", "ms", lower, p95, p95w, "", 0, noPeer, "same run"),
	}
}

// overhead: a stage as a Temporal activity vs the same function called directly.
func (r *runner) overhead(ctx context.Context) []row {
	done := r.step("Temporal activity overhead (real server and S3 gateway)")
	defer done()
	res, err := r.goBench(ctx, "temporal-overhead", "./worker", false, "^BenchmarkActivityOverhead$", "50x")
	var rows []row
	for _, c := range []struct{ name, what string }{
		{"ReadQuery", "stage as a Temporal activity: ReadQuery (CPU only)"},
		{"WriteProbe", "stage as a Temporal activity: WriteProbe (one S3 write)"},
	} {
		base := "BenchmarkActivityOverhead/" + c.name + "/"
		a, aw := metric(res, err, base+"activity", "ms/op")
		p, pw := metric(res, err, base+"direct", "ms/op")
		notes := ""
		if aw == "" && pw == "" {
			notes = fmt.Sprintf("+%s ms per activity", trimFloat(a-p))
		}
		if wf, ok := res.Results[base+"workflow"].Metrics["ms/op"]; ok {
			notes += fmt.Sprintf("; a one-activity workflow, start to result: %s ms", trimFloat(wf))
		}
		rows = append(rows, newRow(c.what, "ms/op", lower, a, aw, "the same method called directly", p, pw, notes+" (†4)"))
	}
	return rows
}
