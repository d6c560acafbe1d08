package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/internal/vecindex"
)

func e5(t testing.TB) *embed.Hugot { return testmodel.E5(t) }

func TestRanksByMeaningWithModel(t *testing.T) {
	h := e5(t)
	ctx := context.Background()
	began := time.Now()
	passages := []string{
		"The Bank of Russia raised its key interest rate to 16 percent on Friday.",
		"Manchester United won the derby 2-1 after a late goal.",
		"Банк России повысил ключевую ставку до 16% годовых.",
		"A new recipe for apple pie with cinnamon.",
	}
	pv, err := h.EmbedPassages(ctx, passages)
	if err != nil {
		t.Fatal(err)
	}
	qv, err := h.EmbedQueries(ctx, []string{"central bank interest rate hike"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("5 texts in %s: %s", time.Since(began).Round(time.Millisecond), h.Describe())
	for i, v := range append(pv, qv...) {
		if len(v) != 384 {
			t.Fatalf("vector %d has %d values", i, len(v))
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if math.Abs(math.Sqrt(n)-1) > 1e-3 {
			t.Fatalf("vector %d has norm %f, want 1", i, math.Sqrt(n))
		}
	}
	s := make([]float32, len(pv))
	for i := range pv {
		s[i] = vecindex.Dot(qv[0], pv[i])
	}
	t.Logf("cosines: %v", s)
	if !(s[0] > s[1] && s[0] > s[3]) {
		t.Fatalf("the rate passage should beat football and pie: %v", s)
	}
	// Deterministic: the same text gives the same vector.
	again, err := h.EmbedPassages(ctx, passages[:1])
	if err != nil {
		t.Fatal(err)
	}
	if d := vecindex.Dot(again[0], pv[0]); d < 0.9999 {
		t.Fatalf("same passage, cosine %f", d)
	}
}

// TestLongTextIsTruncatedWithModel feeds a text far past 512 tokens (Cyrillic through E5's
// English vocabulary): it must be cut to the model's limit, not overflow it.
func TestLongTextIsTruncatedWithModel(t *testing.T) {
	h := e5(t)
	long := strings.Repeat("Банк России повысил ключевую ставку, инфляционные ожидания растут. ", 60)
	v, err := h.EmbedPassages(context.Background(), []string{long, "short"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 2 || len(v[0]) != 384 {
		t.Fatalf("got %d vectors", len(v))
	}
}

// TestBatchingKeepsVectorsWithModel: texts embedded together (sorted by length, padded within
// their call) get the vectors they get alone, in input order. The second run copies the model
// folder with a config.json naming an eos_token_id, as XLM-RoBERTa models' do: hugot then
// left-pads input_ids under a right-aligned attention mask unless asof stops it.
func TestBatchingKeepsVectorsWithModel(t *testing.T) {
	cfg := testmodel.Config(t)
	texts := []string{
		"short",
		"The Bank of Russia raised its key interest rate to 16 percent on Friday, citing inflation.",
		strings.Repeat("Rates, inflation and the rouble. ", 40), // past 512 tokens: truncated
		"Банк России повысил ключевую ставку до 16% годовых.",
		"",
		"Rishi Sunak unveiled the Windsor Framework.",
	}
	xlmr := t.TempDir()
	for _, f := range []string{"model.onnx", "tokenizer.json"} {
		if err := os.Symlink(filepath.Join(cfg.Dir, f), filepath.Join(xlmr, f)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(xlmr, "config.json"), []byte(`{"max_position_embeddings": 512, "pad_token_id": 0, "eos_token_id": 102}`), 0o644)
	for _, dir := range []string{cfg.Dir, xlmr} {
		c := cfg
		c.Dir, c.BatchSize, c.BatchTokens = dir, 4, 600
		h, err := embed.NewHugot(c)
		if err != nil {
			t.Fatal(err)
		}
		together, err := h.EmbedPassages(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			alone, err := h.EmbedPassages(context.Background(), []string{text})
			if err != nil {
				t.Fatal(err)
			}
			if c := vecindex.Dot(alone[0], together[i]); c < 0.9999 {
				t.Errorf("%s: text %d embedded with others: cosine %.6f to itself alone, want ≥ 0.9999", filepath.Base(dir), i, c)
			}
		}
		h.Close()
	}
}

// TestQueriesAloneOrTogetherWithModel: a query's vector is the same, to the bit, embedded
// alone (as ask does) or among others (as eval does), on the default int8 model with the
// default batching: queries are one model call each.
func TestQueriesAloneOrTogetherWithModel(t *testing.T) {
	cfg := testmodel.ConfigOf(t, "e5-small-v2-q")
	h, err := embed.NewHugot(cfg)
	if err != nil {
		t.Skipf("int8 model: %v", err) // the pure-Go backend refuses it (TestQuantizedModelOnPureGoWithModel)
	}
	defer h.Close()
	texts := []string{
		"Who won the 2023 NBA Finals?",
		"What is the name of Rishi Sunak's new Brexit deal with the European Union?",
		"ключевая ставка",
		"Who was voted No. 1 in the “Top 100 players of 2022” by his peers in the NFL?",
		strings.Repeat("a long question about rates and inflation ", 30),
	}
	together, err := h.EmbedQueries(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		alone, err := h.EmbedQueries(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(alone[0], together[i]) {
			t.Errorf("query %d embedded with others differs from itself alone (cosine %.9f)", i, vecindex.Dot(alone[0], together[i]))
		}
	}
}

// TestQuantizedModelOnPureGoWithModel: the pure-Go backend refuses the int8 model with a clear
// error (run, gomlx v0.26 panics inside its matrix kernels and takes the worker down).
func TestQuantizedModelOnPureGoWithModel(t *testing.T) {
	cfg := testmodel.ConfigOf(t, "e5-small-v2-q")
	cfg.Backend = embed.BackendGo
	_, err := embed.NewHugot(cfg)
	if !errors.Is(err, embed.ErrQuantizedOnGo) || !strings.Contains(err.Error(), "DynamicQuantizeLinear") || !strings.Contains(err.Error(), "make setup-ort") {
		t.Fatalf("int8 model on pure Go: err = %v, want ErrQuantizedOnGo naming the operator and the fix", err)
	}
}

// TestUnigramModelOnPureGoWithModel: the pure-Go backend refuses a SentencePiece Unigram
// (XLM-R) model, even in fp32, with a clear error: its tokenizer splits such vocabularies
// unlike the model was trained (run, the multilingual model's vectors for texts with long
// pieces, runs of spaces or decomposed accents drift far from the reference, or it panics).
func TestUnigramModelOnPureGoWithModel(t *testing.T) {
	cfg := testmodel.ConfigOf(t, "multilingual-e5-small-f32")
	cfg.Backend = embed.BackendGo
	_, err := embed.NewHugot(cfg)
	if !errors.Is(err, embed.ErrUnigramOnGo) || !strings.Contains(err.Error(), "multilingual-e5-small-f32") || !strings.Contains(err.Error(), "make setup-ort") {
		t.Fatalf("XLM-R model on pure Go: err = %v, want ErrUnigramOnGo naming the model and the fix", err)
	}
}

func TestCancelledContextWithModel(t *testing.T) {
	h := e5(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.EmbedPassages(ctx, []string{"x"}); err == nil {
		t.Fatal("embedding with a cancelled context succeeded")
	}
}

func TestBackendChoice(t *testing.T) {
	if err := embed.ValidBackend("tpu"); err == nil {
		t.Fatal("accepted backend tpu")
	}
	_, err := embed.NewHugot(embed.Config{Dir: t.TempDir(), Backend: "tpu"})
	if err == nil || !strings.Contains(err.Error(), "unknown backend") {
		t.Fatalf("backend tpu: %v", err)
	}
	_, err = embed.NewHugot(embed.Config{Dir: t.TempDir(), Backend: embed.BackendGo, Device: "cuda"})
	if err == nil || !strings.Contains(err.Error(), "ONNX Runtime") {
		t.Fatalf("cuda on pure Go: %v", err)
	}
	if !embed.ORTBuilt {
		_, err = embed.NewHugot(embed.Config{Dir: t.TempDir(), Backend: embed.BackendORT})
		if !errors.Is(err, embed.ErrORTNotBuilt) {
			t.Fatalf("ort without the build tag: %v", err)
		}
	}
	if embed.ORTBuilt {
		_, err = embed.NewHugot(embed.Config{Dir: t.TempDir(), Backend: embed.BackendORT, ORTDir: "/nonexistent"})
		if !errors.Is(err, embed.ErrORTDir) {
			t.Fatalf("ort with a missing library: %v", err)
		}
	}
}

func TestStripAccents(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"ascii untouched", "Bank of England", "Bank of England"},
		{"german umlaut", "Europäische Zentralbank", "Europaische Zentralbank"},
		{"french", "Élysée café", "Elysee cafe"},
		{"russian short i", "рублей", "рублеи"},
		{"russian yo", "ещё", "еще"},
		{"precomposed and combining agree", "e\u0301", "e"},
		{"cyrillic without marks", "Банк России", "Банк России"},
		{"emoji kept", "rate 😀", "rate 😀"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := embed.StripAccents(c.in); got != c.want {
				t.Fatalf("StripAccents(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestMissingModel(t *testing.T) {
	if _, err := embed.NewHugot(embed.Config{Dir: t.TempDir()}); err == nil {
		t.Fatal("loaded a model from an empty folder")
	}
}

// BenchmarkEmbedPassages measures passages/s for 800-character news snippets on the default
// backend (ONNX Runtime in binaries built with -tags ORT): calls of 8 passages per core, in
// batches of 8, which run on the cores at once (bench/embed_peer.py --seconds does the same).
// ASOF_EMBED_THREADS=N runs cores/N calls × N threads instead of 1 thread per call.
func BenchmarkEmbedPassages(b *testing.B) {
	cfg := testmodel.Config(b)
	cfg.BatchSize = 8
	if v := os.Getenv("ASOF_EMBED_THREADS"); v != "" { // the layout: cores/N calls × N threads
		fmt.Sscan(v, &cfg.Threads)
	}
	h, err := embed.NewHugot(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	b.Log(h.Describe())
	text := "The Bank of Russia raised its key interest rate by 100 basis points to 16 percent, citing persistent inflation and a weak rouble. "
	for len(text) < 800 {
		text += text
	}
	batch := make([]string, 8*runtime.NumCPU())
	for i := range batch {
		batch[i] = text[:800]
	}
	n := 0
	for b.Loop() {
		if _, err := h.EmbedPassages(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
		n += len(batch)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "passages/s")
}

// rtqaTexts returns the embedding texts (title. body) of the first n realtimeqa articles
// published in 2023, or skips b without ../shared/data.
func rtqaTexts(b testing.TB, n int) []string {
	type doc struct {
		PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
		Title       string    `parquet:"title"`
		Text        string    `parquet:"text"`
	}
	rows, err := parquet.ReadFile[doc]("../../../shared/data/realtimeqa/docs.parquet")
	if err != nil {
		b.Skipf("realtimeqa absent: %v", err)
	}
	var out []string
	for _, r := range rows {
		if r.PublishedAt.Year() == 2023 && len(out) < n {
			out = append(out, r.Title+". "+r.Text)
		}
	}
	return out
}

// BenchmarkEmbedRealtimeQA embeds 2023 realtimeqa articles as an index build does: two
// callers at once (IndexBuild builds two shards at a time), each embedding calls of `part`
// texts (EmbedShard's part size), sorted and batched by the bounds. part=16/batch=16 without a
// token bound is the batching before sorting existed (fixed batches of 16 in input order).
// The ONNX Runtime thread layout is per process: ASOF_EMBED_THREADS=N gives cores/N calls ×
// N threads (default 1 thread per call). Reports passages/s and padded/real tokens.
// ASOF_BENCH_GRID=part/batch/tokens,… picks grid points, ASOF_BENCH_MODELS=id,… the models;
// ASOF_BENCH_TEXTS=FILE writes the texts as JSON for the Python peer.
func BenchmarkEmbedRealtimeQA(b *testing.B) {
	texts := rtqaTexts(b, 512)
	if p := os.Getenv("ASOF_BENCH_TEXTS"); p != "" { // for bench/embed_peer.py --texts
		data, _ := json.Marshal(texts)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	threads := 0
	if v := os.Getenv("ASOF_EMBED_THREADS"); v != "" {
		fmt.Sscan(v, &threads)
	}
	ids := []string{"e5-small-v2", "e5-small-v2-q"}
	if v := os.Getenv("ASOF_BENCH_MODELS"); v != "" {
		ids = strings.Split(v, ",")
	}
	for _, id := range ids {
		for _, g := range []struct{ part, batch, tokens int }{
			{16, 16, 0}, {32, 8, 0}, {32, 32, 4096}, {64, 16, 0}, {64, 32, 4096}, {64, 64, 8192}, {128, 32, 4096}, {128, 16, 2048},
		} {
			if f := os.Getenv("ASOF_BENCH_GRID"); f != "" && !strings.Contains(","+f+",", fmt.Sprintf(",%d/%d/%d,", g.part, g.batch, g.tokens)) {
				continue
			}
			b.Run(fmt.Sprintf("%s/part=%d/batch=%d/tokens=%d", id, g.part, g.batch, g.tokens), func(b *testing.B) {
				cfg := testmodel.ConfigOf(b, id)
				cfg.BatchSize, cfg.BatchTokens, cfg.Threads = g.batch, g.tokens, threads
				if g.tokens == 0 {
					cfg.BatchTokens = 1 << 30
				}
				h, err := embed.NewHugot(cfg)
				if err != nil {
					b.Fatal(err)
				}
				defer h.Close()
				n := 0
				for b.Loop() {
					var wg sync.WaitGroup
					errs := make(chan error, 2)
					for w := 0; w < 2; w++ {
						wg.Add(1)
						go func(w int) {
							defer wg.Done()
							for s := w * g.part; s < len(texts); s += 2 * g.part {
								if _, err := h.EmbedPassages(context.Background(), texts[s:min(s+g.part, len(texts))]); err != nil {
									errs <- err
									return
								}
							}
						}(w)
					}
					wg.Wait()
					close(errs)
					if err := <-errs; err != nil {
						b.Fatal(err)
					}
					n += len(texts)
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "passages/s")
				st := h.Stats()
				b.ReportMetric(float64(st.PaddedTokens)/float64(st.Tokens), "padded/real")
				b.ReportMetric(float64(st.Tokens)/float64(st.Texts), "tokens/text")
			})
		}
	}
}

// TestCloseWaitsForCallsInFlightWithModel: a worker stopped by Ctrl-C closes its embedder while
// an activity may still be inside ONNX Runtime; freeing the model under that call crashed the
// process (SIGSEGV during cgo execution, after `asof index` had printed that it stopped). Close
// must wait for the call, and a call after Close must fail with ErrClosed, not crash.
func TestCloseWaitsForCallsInFlightWithModel(t *testing.T) {
	h, err := embed.NewHugot(testmodel.Config(t))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("The central bank raised its key rate again to fight inflation. ", 20)
	n := 64 // ~4 s of ONNX Runtime on 2 cores
	if h.Backend() == embed.BackendGo {
		n = 4 // the pure-Go backend is ~20× slower: a few texts keep it busy as long
	}
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("%d. %s", i, text)
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		close(started)
		vecs, err := h.EmbedPassages(context.Background(), texts)
		if err == nil && len(vecs) != len(texts) {
			err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
		}
		done <- err
	}()
	<-started
	time.Sleep(50 * time.Millisecond) // the call is tokenizing or inside the model by now
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, embed.ErrClosed) {
			t.Errorf("the call in flight: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the call in flight never returned")
	}
	if _, err := h.EmbedQueries(context.Background(), []string{"key rate"}); !errors.Is(err, embed.ErrClosed) {
		t.Errorf("a call after Close: err = %v, want ErrClosed", err)
	}
}
