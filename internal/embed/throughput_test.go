package embed_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/testmodel"
)

// shardPartSize is how many chunks EmbedShard hands EmbedPassages at a time
// (activities.DefaultEmbedPartSize).
const shardPartSize = 128

// tgTexts returns the embedding texts of n tg-finance-ru posts taken evenly over the corpus, or
// skips b without ../shared/data.
func tgTexts(b testing.TB, n int) []string {
	type doc struct {
		Title string `parquet:"title"`
		Text  string `parquet:"text"`
	}
	rows, err := parquet.ReadFile[doc]("../../../shared/data/tg-finance-ru/docs.parquet")
	if err != nil {
		b.Skipf("tg-finance-ru absent: %v", err)
	}
	var out []string
	for _, r := range evenly(rows, n) {
		if r.Title != "" {
			out = append(out, r.Title+". "+r.Text)
		} else {
			out = append(out, r.Text)
		}
	}
	return out
}

// throughputModels are the models BenchmarkIndexThroughput compares: ASOF_BENCH_MODELS, else
// the default model this test binary runs and the English model of the same kind (int8 on ONNX
// Runtime, fp32 on pure Go).
func throughputModels() []string {
	if v := os.Getenv("ASOF_BENCH_MODELS"); v != "" {
		return strings.Split(v, ",")
	}
	if id := testmodel.BenchID(); id != models.FloatDefaultID {
		return []string{id, "e5-small-v2-q"}
	}
	return []string{"multilingual-e5-small-f32", "e5-small-v2"}
}

// BenchmarkIndexThroughput is the embedding step of an index build on English and Russian
// text: the same n texts per language (ASOF_BENCH_N, default 256: 2023 realtimeqa articles,
// tg-finance-ru posts taken evenly over the corpus, each "title. text" as shard.EmbedText makes
// it, one chunk each) through each model, in parts of 128 as EmbedShard hands them to
// EmbedPassages, with the default batching and threads. It reports texts/s (wall), process CPU
// ms per text, tokens per text (each model's own tokenizer, after truncation at 512) and padded
// over real tokens. ASOF_BENCH_TEXTS_DIR=DIR writes DIR/en.json and DIR/ru.json for
// bench/embed_peer.py --texts. Skipped without ../shared/data or the models.
func BenchmarkIndexThroughput(b *testing.B) {
	n := 256
	if v := os.Getenv("ASOF_BENCH_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("ASOF_BENCH_N=%q: want a positive number of texts", v)
		}
	}
	for _, lang := range []struct {
		name  string
		texts func(testing.TB, int) []string
	}{{"en", rtqaTexts}, {"ru", tgTexts}} {
		b.Run(lang.name, func(b *testing.B) {
			texts := lang.texts(b, n)
			if dir := os.Getenv("ASOF_BENCH_TEXTS_DIR"); dir != "" {
				data, _ := json.Marshal(texts)
				if err := os.WriteFile(filepath.Join(dir, lang.name+".json"), data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			for _, id := range throughputModels() {
				b.Run(id, func(b *testing.B) { embedLikeShard(b, id, texts) })
			}
		})
	}
}

// embedLikeShard embeds texts with model id as one EmbedShard does and reports the rates.
func embedLikeShard(b *testing.B, id string, texts []string) {
	h, err := embed.NewHugot(testmodel.ConfigOf(b, id))
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	if _, err := h.EmbedPassages(ctx, texts[:min(16, len(texts))]); err != nil { // warm-up
		b.Fatal(err)
	}
	before := h.Stats()
	b.Log(h.Describe())
	n := 0
	var cpu time.Duration
	for b.Loop() {
		cpu0 := processCPU(b)
		for s := 0; s < len(texts); s += shardPartSize {
			if _, err := h.EmbedPassages(ctx, texts[s:min(s+shardPartSize, len(texts))]); err != nil {
				b.Fatal(err)
			}
		}
		cpu += processCPU(b) - cpu0
		n += len(texts)
	}
	st := h.Stats()
	tokens, padded, done := st.Tokens-before.Tokens, st.PaddedTokens-before.PaddedTokens, st.Texts-before.Texts
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
	b.ReportMetric(cpu.Seconds()*1e3/float64(n), "cpu-ms/text")
	b.ReportMetric(float64(tokens)/float64(done), "tokens/text")
	b.ReportMetric(float64(padded)/float64(tokens), "padded/real")
}

// processCPU is the process's user and system CPU time so far (every thread, ONNX Runtime's
// included).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
