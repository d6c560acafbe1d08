package evidence

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// asOf is the anchor used by most tests: its day is 2024-06-30 (UTC), so with HotDays 30 the
// hot window is [2024-06-01, 2024-07-01).
var asOf = time.Date(2024, 6, 30, 12, 0, 0, 0, time.UTC)

// ago is noon UTC, days before asOf's day.
func ago(days int) time.Time { return asOf.AddDate(0, 0, -days) }

// doc is a ranked document named id, published days before asOf.
func doc(id string, days int) Doc {
	return Doc{DocID: id, ChunkID: id + "#0", PublishedAt: ago(days), Text: "text of " + id}
}

func ids(c Context) []string {
	out := make([]string, len(c.Blocks))
	for i, b := range c.Blocks {
		out[i] = b.Doc.DocID
	}
	return out
}

func TestBuildSelection(t *testing.T) {
	half := Options{KDocs: 4, HotDays: 30, HotRatio: 0.5, SnippetChars: 100}
	tests := []struct {
		name         string
		ranked       []Doc
		opts         Options
		want         []string // selected DocIDs: hot in ranked order, then history in ranked order
		hot, history int
	}{
		{"empty", nil, half, []string{}, 0, 0},
		{
			"all hot: the first KDocs in ranked order",
			[]Doc{doc("h5", 5), doc("h1", 1), doc("h3", 3), doc("h0", 0), doc("h2", 2), doc("h4", 4)},
			half, []string{"h5", "h1", "h3", "h0"}, 4, 0,
		},
		{
			"all old: the first KDocs in ranked order",
			[]Doc{doc("o45", 45), doc("o41", 41), doc("o40", 40), doc("o43", 43), doc("o44", 44)},
			half, []string{"o45", "o41", "o40", "o43"}, 0, 4,
		},
		{
			"mixed: quota from each pool",
			[]Doc{doc("h1", 1), doc("o40", 40), doc("h2", 2), doc("h3", 3), doc("o41", 41), doc("o42", 42)},
			half, []string{"h1", "h2", "o40", "o41"}, 2, 2,
		},
		{
			"short hot pool: history fills",
			[]Doc{doc("o40", 40), doc("o41", 41), doc("h1", 1), doc("o42", 42), doc("o43", 43), doc("o44", 44)},
			half, []string{"h1", "o40", "o41", "o42"}, 1, 3,
		},
		{
			"short history pool: hot fills",
			[]Doc{doc("h1", 1), doc("h2", 2), doc("o40", 40), doc("h3", 3), doc("h4", 4), doc("h5", 5)},
			half, []string{"h1", "h2", "h3", "o40"}, 3, 1,
		},
		{
			"KDocs larger than the input",
			[]Doc{doc("o40", 40), doc("h1", 1), doc("h2", 2)},
			Options{KDocs: 10, HotDays: 30, HotRatio: 0.5, SnippetChars: 100}, []string{"h1", "h2", "o40"}, 2, 1,
		},
		{
			"KDocs smaller than the input",
			[]Doc{doc("h1", 1), doc("o40", 40), doc("h2", 2), doc("o41", 41)},
			Options{KDocs: 1, HotDays: 30, HotRatio: 0.75, SnippetChars: 100}, []string{"h1"}, 1, 0,
		},
		{
			"quota rounds half away from zero",
			[]Doc{doc("o40", 40), doc("h1", 1), doc("h2", 2), doc("h3", 3), doc("o41", 41)},
			Options{KDocs: 3, HotDays: 30, HotRatio: 0.5, SnippetChars: 100}, []string{"h1", "h2", "o40"}, 2, 1, // round(1.5) = 2
		},
		{
			"hot ratio 0 takes history first",
			[]Doc{doc("h1", 1), doc("o40", 40), doc("h2", 2), doc("o41", 41)},
			Options{KDocs: 2, HotDays: 30, HotRatio: 0, SnippetChars: 100}, []string{"o40", "o41"}, 0, 2,
		},
		{
			"hot days 0: nothing is hot",
			[]Doc{doc("a", 0), doc("b", 1), doc("c", 2)},
			Options{KDocs: 2, HotDays: 0, HotRatio: 1, SnippetChars: 100}, []string{"a", "b"}, 0, 2,
		},
		{
			"hot window edges",
			[]Doc{
				{DocID: "first-hot", PublishedAt: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)},
				{DocID: "last-old", PublishedAt: time.Date(2024, 5, 31, 23, 59, 59, 999999999, time.UTC)},
				{DocID: "last-instant", PublishedAt: time.Date(2024, 6, 30, 23, 59, 59, 999999999, time.UTC)},
				{DocID: "old", PublishedAt: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)},
			},
			Options{KDocs: 3, HotDays: 30, HotRatio: 0.67, SnippetChars: 100}, []string{"first-hot", "last-instant", "last-old"}, 2, 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Build(tt.ranked, asOf, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(c); !reflect.DeepEqual(got, tt.want) || c.HotCount != tt.hot || c.HistoryCount != tt.history {
				t.Fatalf("Build = %q (hot %d, history %d)\nwant    %q (hot %d, history %d)", got, c.HotCount, c.HistoryCount, tt.want, tt.hot, tt.history)
			}
			for k, b := range c.Blocks {
				if b.N != k+1 {
					t.Fatalf("block %d numbered %d", k, b.N)
				}
			}
		})
	}
}

// TestBuildOrder numbers the most relevant fresh evidence first: hot documents in ranked
// order, whatever their dates and scores, then history documents in ranked order.
func TestBuildOrder(t *testing.T) {
	same := ago(2)
	ranked := []Doc{
		{DocID: "old-best", ChunkID: "old-best#0", PublishedAt: ago(60), Score: 9},
		{DocID: "b", ChunkID: "b#1", PublishedAt: same, Score: 1},
		{DocID: "z", ChunkID: "z#0", PublishedAt: same, Score: 2},
		{DocID: "newest", ChunkID: "newest#0", PublishedAt: same.Add(time.Second), Score: 0},
		{DocID: "old", ChunkID: "old#0", PublishedAt: ago(40), Score: 9},
		{DocID: "b", ChunkID: "b#0", PublishedAt: same, Score: 1},
	}
	c, err := Build(ranked, asOf, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range c.Blocks {
		got = append(got, b.Doc.ChunkID)
	}
	want := []string{"b#1", "z#0", "newest#0", "b#0", "old-best#0", "old#0"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
}

func TestBuildAsOfIsAUTCDay(t *testing.T) {
	msk := time.FixedZone("MSK", 3*3600)
	a := time.Date(2024, 7, 1, 1, 0, 0, 0, msk) // 2024-06-30 22:00 UTC: the as-of day is 30 June
	late := Doc{DocID: "late", PublishedAt: time.Date(2024, 6, 30, 23, 30, 0, 0, time.UTC)}
	if _, err := Build([]Doc{late}, a, DefaultOptions()); err != nil {
		t.Fatalf("a document of the as-of UTC day was refused: %v", err)
	}
	next := Doc{DocID: "next", PublishedAt: time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := Build([]Doc{next}, a, DefaultOptions()); !errors.Is(err, ErrFuture) {
		t.Fatalf("a document of the next UTC day: error %v, want ErrFuture", err)
	}
}

func TestBuildErrors(t *testing.T) {
	future := Doc{DocID: "tass/99", ChunkID: "tass/99#2", PublishedAt: asOf.AddDate(0, 0, 1)}
	tests := []struct {
		name    string
		ranked  []Doc
		asOf    time.Time
		opts    Options
		is      error  // nil: any error
		mention string // the error names this
	}{
		{"future doc", []Doc{doc("a", 1), future}, asOf, DefaultOptions(), ErrFuture, `"tass/99"`},
		{"future doc beyond KDocs", []Doc{doc("a", 1), doc("b", 2), future}, asOf, Options{KDocs: 1, HotDays: 30, HotRatio: 0.75, SnippetChars: 10}, ErrFuture, "#3"},
		{"zero as-of", []Doc{doc("a", 1)}, time.Time{}, DefaultOptions(), ErrNoAsOf, ""},
		{"k docs 0", nil, asOf, Options{KDocs: 0, HotDays: 30, HotRatio: 0.75, SnippetChars: 800}, nil, "k docs"},
		{"negative hot days", nil, asOf, Options{KDocs: 30, HotDays: -1, HotRatio: 0.75, SnippetChars: 800}, nil, "hot days"},
		{"hot ratio above 1", nil, asOf, Options{KDocs: 30, HotDays: 30, HotRatio: 1.5, SnippetChars: 800}, nil, "hot ratio"},
		{"snippet chars 0", nil, asOf, Options{KDocs: 30, HotDays: 30, HotRatio: 0.75, SnippetChars: 0}, nil, "snippet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(tt.ranked, tt.asOf, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("error %v is not %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("error %q does not mention %q", err, tt.mention)
			}
		})
	}
}

func TestSnippet(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		limit int
		want  string
	}{
		{"empty", "", 10, ""},
		{"whitespace collapsed", "  Ставка \n\n\t16%\u00a0 годовых  ", 100, "Ставка 16% годовых"},
		{"exactly the limit", "Банк", 4, "Банк"},
		{"Cyrillic cut at a word", "Банк России повысил ключевую ставку", 15, "Банк России…"},
		{"space right at the cut keeps the word", "Банк России повысил", 12, "Банк России…"},
		{"one rune over", "Банк России", 10, "Банк…"},
		{"no spaces: hard cut", strings.Repeat("ж", 10), 5, "жжжж…"},
		{"long first word: hard cut", "Сверхдлинноеслово и ещё", 8, "Сверхдл…"},
		{"limit 1", "abc def", 1, "…"},
		{"ASCII", "The central bank raised the key rate", 20, "The central bank…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Snippet(tt.text, tt.limit)
			if got != tt.want {
				t.Fatalf("Snippet(%q, %d) = %q, want %q", tt.text, tt.limit, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > tt.limit {
				t.Fatalf("snippet has %d runes, limit %d", n, tt.limit)
			}
		})
	}
}

func TestText(t *testing.T) {
	ranked := []Doc{
		{
			DocID: "cbr/1", Title: "  Банк России  повысил\nставку ", Text: "Совет директоров\n\nповысил ключевую ставку до 16% годовых.",
			Sources: []string{"@cbr_official", "@rbc", "@tass"}, PublishedAt: time.Date(2024, 6, 28, 13, 30, 0, 0, time.UTC),
		},
		{DocID: "tg/7", Text: "Инфляция замедлилась", Sources: []string{"@markettwits"}, PublishedAt: time.Date(2024, 6, 29, 23, 0, 0, 0, time.FixedZone("MSK", 3*3600))},
		{DocID: "old/3", Title: "Archive", PublishedAt: time.Date(2023, 12, 15, 9, 0, 0, 0, time.UTC)},
	}
	c, err := Build(ranked, asOf, Options{KDocs: 3, HotDays: 30, HotRatio: 0.75, SnippetChars: 41})
	if err != nil {
		t.Fatal(err)
	}
	want := `[1] date=2024-06-28 sources=@cbr_official, @rbc, @tass
Банк России повысил ставку
Совет директоров повысил ключевую ставку…

[2] date=2024-06-29 source=@markettwits
Инфляция замедлилась

[3] date=2023-12-15
Archive`
	if got := c.Text(); got != want {
		t.Fatalf("Text:\n%s\nwant:\n%s", got, want)
	}
	if (Context{}).Text() != "" {
		t.Fatal("empty context renders text")
	}
}

// TestBuildProperties checks on random inputs: len(Blocks) = min(KDocs, len(ranked)); every
// block is published by the end of the as-of day; blocks are numbered 1..n, hot ones first,
// each part in ranked order; Hot agrees with the window and with the counts; each pool contributes a prefix of
// itself in ranked order, of the size the quota and the other pool's shortfall allow; and
// snippets respect the limit.
func TestBuildProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	words := []string{"ставка", "ЦБ", "rate", "инфляция", "2024", "—", "\n", "рост,", "bank."}
	for iter := range 500 {
		a := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(1500 * 24 * time.Hour))))
		y, m, d := a.Date()
		end := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
		o := Options{KDocs: 1 + rng.IntN(40), HotDays: rng.IntN(60), HotRatio: rng.Float64(), SnippetChars: 1 + rng.IntN(60)}
		ranked := make([]Doc, rng.IntN(80))
		for i := range ranked {
			var text strings.Builder
			for range rng.IntN(30) {
				text.WriteString(words[rng.IntN(len(words))] + " ")
			}
			ranked[i] = Doc{
				DocID:       fmt.Sprint("d", rng.IntN(50)),
				ChunkID:     fmt.Sprint("c", i),
				Text:        text.String(),
				PublishedAt: end.Add(-time.Duration(1 + rng.Int64N(int64(120*24*time.Hour)))),
				Score:       float64(rng.IntN(5)),
			}
		}
		c, err := Build(ranked, a, o)
		if err != nil {
			t.Fatal(err)
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("iter %d (%+v, %d docs): %s", iter, o, len(ranked), fmt.Sprintf(format, args...))
		}
		if len(c.Blocks) != min(o.KDocs, len(ranked)) {
			fail("%d blocks", len(c.Blocks))
		}
		hotFrom := end.AddDate(0, 0, -o.HotDays)
		hotCount := 0
		chosen := map[string]bool{}
		for k, b := range c.Blocks {
			chosen[b.Doc.ChunkID] = true
			if b.N != k+1 {
				fail("block %d numbered %d", k, b.N)
			}
			if !b.Doc.PublishedAt.Before(end) {
				fail("block %d published %v, after the as-of day", k, b.Doc.PublishedAt)
			}
			if b.Hot != !b.Doc.PublishedAt.Before(hotFrom) {
				fail("block %d hot=%v, published %v, window from %v", k, b.Hot, b.Doc.PublishedAt, hotFrom)
			}
			if b.Hot {
				hotCount++
			}
			if n := utf8.RuneCountInString(b.Snippet); n > o.SnippetChars {
				fail("block %d snippet has %d runes", k, n)
			}
			if k > 0 && !c.Blocks[k-1].Hot && b.Hot {
				fail("history block %d before hot block %d", k-1, k)
			}
		}
		if c.HotCount != hotCount || c.HistoryCount != len(c.Blocks)-hotCount {
			fail("counts %d/%d, blocks say %d hot", c.HotCount, c.HistoryCount, hotCount)
		}
		var hot, history []string
		for _, r := range ranked {
			if r.PublishedAt.Before(hotFrom) {
				history = append(history, r.ChunkID)
			} else {
				hot = append(hot, r.ChunkID)
			}
		}
		wantHot := min(len(hot), max(roundHalfUp(o.KDocs, o.HotRatio), o.KDocs-len(history)))
		if c.HotCount != wantHot {
			fail("%d hot, want %d (pools %d/%d)", c.HotCount, wantHot, len(hot), len(history))
		}
		var order []string // the blocks must be the hot prefix, then the history prefix, each in ranked order
		for _, pool := range [][]string{hot, history} {
			for _, id := range pool {
				if chosen[id] {
					order = append(order, id)
				}
			}
		}
		for k, b := range c.Blocks {
			if b.Doc.ChunkID != order[k] {
				fail("block %d is %q, want %q (hot, then history, each in ranked order)", k, b.Doc.ChunkID, order[k])
			}
		}
		for _, pool := range [][]string{hot, history} {
			taken := 0
			for _, id := range pool {
				if chosen[id] {
					taken++
				}
			}
			for i, id := range pool {
				if chosen[id] != (i < taken) {
					fail("pool %q: selection %d is not a ranked prefix", pool, taken)
				}
			}
		}
	}
}

// roundHalfUp is round(k·ratio) for k ≥ 0, ratio in [0, 1], as the spec defines the hot quota.
func roundHalfUp(k int, ratio float64) int {
	x := float64(k) * ratio
	n := int(x)
	if x-float64(n) >= 0.5 {
		n++
	}
	return n
}

func TestSelectionDoesNotModifyInput(t *testing.T) {
	ranked := []Doc{doc("o40", 40), doc("h1", 1), doc("h2", 2)}
	before := slices.Clone(ranked)
	if _, err := Build(ranked, asOf, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ranked, before) {
		t.Fatal("Build modified its input")
	}
}

func ExampleBuild() {
	asOf := time.Date(2024, 6, 30, 0, 0, 0, 0, time.UTC)
	ranked := []Doc{ // best first
		{DocID: "archive/1", Text: "Ключевая ставка снижена до 7,5%.", Sources: []string{"@cbr"}, PublishedAt: time.Date(2023, 1, 10, 9, 0, 0, 0, time.UTC)},
		{DocID: "news/2", Text: "ЦБ сохранил ставку 16%.", Sources: []string{"@rbc", "@tass"}, PublishedAt: time.Date(2024, 6, 7, 13, 30, 0, 0, time.UTC)},
	}
	c, err := Build(ranked, asOf, DefaultOptions())
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Text())
	fmt.Printf("hot %d, history %d\n", c.HotCount, c.HistoryCount)
	// Output:
	// [1] date=2024-06-07 sources=@rbc, @tass
	// ЦБ сохранил ставку 16%.
	//
	// [2] date=2023-01-10 source=@cbr
	// Ключевая ставка снижена до 7,5%.
	// hot 1, history 1
}

func TestCheckBlocks(t *testing.T) {
	asOf := time.Date(2024, 6, 30, 0, 0, 0, 0, time.UTC)
	blk := func(n int, at time.Time) Block { return Block{N: n, Doc: Doc{DocID: "d", PublishedAt: at}} }
	ok := blk(1, asOf)
	tests := []struct {
		name   string
		groups [][]Block
		want   error
	}{
		{"last instant of the day", [][]Block{{ok, blk(2, asOf.Add(24*time.Hour-time.Nanosecond))}}, nil},
		{"next midnight", [][]Block{{ok, blk(2, asOf.AddDate(0, 0, 1))}}, ErrFuture},
		{"zero number", [][]Block{{blk(0, asOf)}}, ErrBlockNumber},
		{"a number twice across groups", [][]Block{{ok}, {blk(1, asOf)}}, ErrBlockNumber},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckBlocks(asOf, tt.groups...); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("CheckBlocks = %v, want %v", err, tt.want)
			}
		})
	}
}
