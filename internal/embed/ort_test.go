//go:build ORT

package embed_test

import (
	"context"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/internal/vecindex"
)

// equivalenceSet is the fixed multilingual set on which the two backends must agree.
var equivalenceSet = []string{
	"The Bank of Russia raised its key interest rate to 16 percent on Friday.",
	"Rishi Sunak unveiled the Windsor Framework, a new Brexit deal for Northern Ireland.",
	"Банк России повысил ключевую ставку до 16% годовых.",
	"Минфин разместил ОФЗ на 50 млрд рублей; спрос превысил предложение вдвое.",
	"Die Europäische Zentralbank hat die Zinsen erneut angehoben.",
	"short",
	"",
	"😀 emoji, URLs https://t.me/example and @handles",
}

// TestBackendsAgreeWithModel: the pure-Go and ONNX Runtime backends give the same vectors
// (cosine ≥ 0.999 per text), so an index built with one can be queried with the other.
func TestBackendsAgreeWithModel(t *testing.T) {
	cfg := testmodel.Config(t)
	ctx := context.Background()
	vectors := map[string][][]float32{}
	for _, backend := range []string{embed.BackendGo, embed.BackendORT} {
		c := cfg
		c.Backend = backend
		h, err := embed.NewHugot(c)
		if err != nil {
			t.Fatal(err)
		}
		if h.Backend() != backend {
			t.Fatalf("asked for %s, got %s", backend, h.Backend())
		}
		began := time.Now()
		v, err := h.EmbedPassages(ctx, equivalenceSet)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d texts in %s: %s", len(v), time.Since(began).Round(time.Millisecond), h.Describe())
		vectors[backend] = v
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
	}
	worst := float32(1)
	for i, text := range equivalenceSet {
		c := vecindex.Dot(vectors[embed.BackendGo][i], vectors[embed.BackendORT][i])
		worst = min(worst, c)
		if c < 0.999 {
			t.Errorf("text %d %q: cosine %.5f between backends, want ≥ 0.999", i, text, c)
		}
	}
	t.Logf("lowest cosine between backends: %.6f", worst)
}

// TestORTSessionIsSharedWithModel: ONNX Runtime allows one environment per process; two
// embedders share it, and closing one leaves the other working.
func TestORTSessionIsSharedWithModel(t *testing.T) {
	cfg := testmodel.Config(t)
	cfg.Backend = embed.BackendORT
	a, err := embed.NewHugot(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := embed.NewHugot(cfg)
	if err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Threads = 3 // the default is 1
	if _, err := embed.NewHugot(other); err == nil {
		t.Fatal("started a second ONNX Runtime configuration in one process")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.EmbedQueries(context.Background(), []string{"still alive"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}
