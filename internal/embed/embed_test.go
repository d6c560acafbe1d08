package embed_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

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
// backend (ONNX Runtime in binaries built with -tags ORT).
func BenchmarkEmbedPassages(b *testing.B) {
	h := testmodel.E5(b)
	b.Log(h.Describe())
	text := "The Bank of Russia raised its key interest rate by 100 basis points to 16 percent, citing persistent inflation and a weak rouble. "
	for len(text) < 800 {
		text += text
	}
	batch := make([]string, 8)
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
