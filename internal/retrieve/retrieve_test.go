package retrieve

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/lexical"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

func d(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// fixture is one chunk of a test shard.
type fixture struct {
	id, text, source, date string
	vec                    []float32
	sw                     *float64
}

func unit(v ...float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x / float32(math.Sqrt(n))
	}
	return out
}

// makeShard builds a real shard (flat vectors + bleve BM25) from fixtures.
func makeShard(t testing.TB, id string, fx []fixture) *Shard {
	t.Helper()
	chunks := make([]schemas.Chunk, len(fx))
	vecs := make([][]float32, len(fx))
	for i, f := range fx {
		lang := cmp.Or(textnorm.Lang(f.text), "en")
		chunks[i] = schemas.Chunk{ChunkID: f.id + "#0", DocID: f.id, PublishedAt: d(f.date), Text: f.text, Source: f.source, Lang: lang, SourceWeight: f.sw}
		vecs[i] = f.vec
	}
	return chunkShard(t, id, chunks, vecs)
}

// chunkShard builds a real shard (flat vectors + bleve BM25 over each chunk's text) of chunks
// and their vectors; its index lives in t's temp folder and is closed when t ends.
func chunkShard(t testing.TB, id string, chunks []schemas.Chunk, vecs [][]float32) *Shard {
	t.Helper()
	s := &Shard{ID: id, Vectors: vecindex.New(len(vecs[0]), "test"), Chunks: chunks}
	var docs []lexical.Doc
	for i, c := range chunks {
		if err := s.Vectors.Add(vecs[i]); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, lexical.Doc{Row: i, Text: c.Text, Lang: c.Lang, PublishedAt: c.PublishedAt})
		if i == 0 || c.PublishedAt.Before(s.MinDate) {
			s.MinDate = c.PublishedAt
		}
		if c.PublishedAt.After(s.MaxDate) {
			s.MaxDate = c.PublishedAt
		}
	}
	dir := filepath.Join(t.TempDir(), id)
	if err := lexical.Build(dir, docs); err != nil {
		t.Fatal(err)
	}
	x, err := lexical.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	s.Lexical = x
	return s
}

func ids(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Chunk.DocID)
	}
	return out
}

func opts(mut func(*Options)) Options {
	o := DefaultOptions()
	mut(&o)
	return o
}

func TestBounds(t *testing.T) {
	a := time.Date(2024, 5, 15, 13, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		o      Options
		lo, hi string // "" = zero
		empty  bool
	}{
		{"recency 365 days", opts(func(o *Options) {}), "2023-05-16", "2024-05-15", false},
		{"unbounded", opts(func(o *Options) { o.WindowDays = 0 }), "", "2024-05-15", false},
		{"window ignores recency window", opts(func(o *Options) { o.Mode = Window; o.From, o.To = d("2015-01-01"), d("2015-12-31") }), "2015-01-01", "2015-12-31", false},
		{"window clamped at A", opts(func(o *Options) { o.Mode = Window; o.From, o.To = d("2024-05-01"), d("2024-06-30") }), "2024-05-01", "2024-05-15", false},
		{"window after A is empty", opts(func(o *Options) { o.Mode = Window; o.From, o.To = d("2030-01-01"), d("2030-12-31") }), "2030-01-01", "2024-05-15", true},
		{"evolution unbounded", opts(func(o *Options) { o.Mode = Evolution }), "", "2024-05-15", false},
		{"filter narrows recency", opts(func(o *Options) { o.From = d("2024-01-01") }), "2024-01-01", "2024-05-15", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := BoundsOf(a, tc.o)
			if b.Empty != tc.empty {
				t.Fatalf("empty %v, want %v (%+v)", b.Empty, tc.empty, b)
			}
			wantLo := time.Time{}
			if tc.lo != "" {
				wantLo = d(tc.lo)
			}
			if !b.Lo.Equal(wantLo) {
				t.Errorf("lo %v, want %v", b.Lo, wantLo)
			}
			if want := d(tc.hi).AddDate(0, 0, 1).Add(-time.Nanosecond); !b.Hi.Equal(want) { // asofday.Last
				t.Errorf("hi %v, want %v", b.Hi, want)
			}
		})
	}
	b := BoundsOf(a, DefaultOptions())
	if !b.Allows(time.Date(2024, 5, 15, 23, 59, 59, 999e6, time.UTC)) || b.Allows(d("2024-05-16")) {
		t.Fatal("the end of A's day is allowed, the next day is not")
	}
	if b.Overlaps(d("2024-05-16"), d("2024-06-30")) || !b.Overlaps(d("2024-05-01"), d("2024-06-30")) {
		t.Fatal("shard overlap")
	}
}

func TestTimeRanksShareSameDay(t *testing.T) {
	mk := func(ts ...string) []Candidate {
		var out []Candidate
		for i, s := range ts {
			at, _ := time.Parse(time.DateTime, s)
			out = append(out, Candidate{Row: i, Chunk: &schemas.Chunk{PublishedAt: at}})
		}
		return out
	}
	tests := []struct {
		name, style string
		in          []Candidate
		want        []int
	}{
		{"distinct days", "", mk("2024-01-01 00:00:00", "2024-01-03 00:00:00", "2024-01-02 00:00:00"), []int{3, 1, 2}},
		{"same day at different hours shares a rank", "", mk("2024-01-03 09:00:00", "2024-01-03 18:00:00", "2024-01-01 00:00:00"), []int{1, 1, 3}},
		{"competition ranking after a tie", TimeRankCompetition, mk("2024-01-02 00:00:00", "2024-01-03 00:00:00", "2024-01-03 01:00:00", "2024-01-01 00:00:00"), []int{3, 1, 1, 4}},
		{"days: the next day after a tie is the next rank", TimeRankDays, mk("2024-01-02 00:00:00", "2024-01-03 00:00:00", "2024-01-03 01:00:00", "2024-01-01 00:00:00"), []int{2, 1, 1, 3}},
		{"days: a busy day does not push the next one down", TimeRankDays, mk("2024-01-03 00:00:00", "2024-01-03 01:00:00", "2024-01-03 02:00:00", "2024-01-02 00:00:00"), []int{1, 1, 1, 2}},
		{"order of input does not matter", "", mk("2024-01-01 00:00:00", "2024-01-01 12:00:00"), []int{1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			timeRanks(tc.in, time.Time{}, tc.style, Span{}, Span{})
			var got []int
			for _, c := range tc.in {
				got = append(got, c.RankTime)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("time ranks %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTimeRanksAmong(t *testing.T) {
	mk := func(rd, rb int, date string) Candidate {
		return Candidate{RankDense: rd, RankBM25: rb, Chunk: &schemas.Chunk{PublishedAt: d(date)}}
	}
	tests := []struct {
		name string
		pool int
		in   []Candidate
		want []int
	}{
		{"every candidate when the pool holds them all", 10,
			[]Candidate{mk(1, 1, "2024-05-01"), mk(2, 0, "2024-05-10"), mk(0, 2, "2024-05-05")}, []int{3, 1, 2}},
		{"a fresh candidate only a deep rank reached gets no time rank", 2,
			[]Candidate{mk(1, 1, "2024-05-01"), mk(400, 0, "2024-05-14"), mk(2, 3, "2024-05-05")}, []int{2, 0, 1}},
		{"ties in relevance keep candidate order", 1,
			[]Candidate{mk(5, 0, "2024-05-01"), mk(5, 0, "2024-05-10")}, []int{1, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := timeRanksAmong(tc.in, time.Time{}, opts(func(o *Options) { o.TimePool = tc.pool; o.TimeRank = TimeRankDays })); err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, c := range tc.in {
				got = append(got, c.RankTime)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("time ranks %v, want %v", got, tc.want)
			}
		})
	}
}

func TestScore(t *testing.T) {
	a := d("2024-05-15")
	c := func(rd, rb, rt int, cos float32, date string) Candidate {
		return Candidate{RankDense: rd, RankBM25: rb, RankTime: rt, Cos: cos, Chunk: &schemas.Chunk{PublishedAt: d(date)}}
	}
	tests := []struct {
		name string
		mode Mode
		in   Candidate
		want float64
	}{
		// The defaults: k 30, weights dense 1, BM25 0.75, time 1.2.
		{"recency all branches", Recency, c(1, 2, 3, 0.9, "2024-05-15"), 1.0/31 + 0.75/32 + 1.2/33},
		{"recency missing branch adds nothing", Recency, c(0, 5, 1, 0.9, "2024-05-15"), 0.75/35 + 1.2/31},
		{"hybrid has no time", Hybrid, c(1, 2, 3, 0.9, "2024-05-15"), 1.0/31 + 0.75/32},
		// Δt runs to the end of A's day: a day minus 1 ms for a same-day item.
		{"decay same day", Decay, c(0, 0, 0, 0.8, "2024-05-15"), 0.4 + 0.5/(1+(1-1e-3/86400)/365.25)},
		{"decay 366 days (leap year)", Decay, c(0, 0, 0, 0.8, "2023-05-16"), 0.4 + 0.5/(1+(366-1e-3/86400)/365.25)},
		{"dense is cosine", Dense, c(4, 0, 0, 0.75, "2020-01-01"), 0.75},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := []Candidate{tc.in}
			if err := score(cs, a, opts(func(o *Options) { o.Mode = tc.mode })); err != nil {
				t.Fatal(err)
			}
			if math.Abs(cs[0].Score-tc.want) > 1e-6 {
				t.Fatalf("score %.9f, want %.9f", cs[0].Score, tc.want)
			}
		})
	}
}

func TestEvolutionSplit(t *testing.T) {
	var cands []Candidate
	for i, date := range []string{"2020-01-01", "2024-01-01", "2021-06-01", "2023-03-01", "2022-01-01", "2019-05-05", "2024-04-04"} {
		cands = append(cands, Candidate{Score: float64(10 - i), Chunk: &schemas.Chunk{DocID: fmt.Sprint("d", i), PublishedAt: d(date)}})
	}
	cands = append(cands, Candidate{Score: 0.5, Chunk: &schemas.Chunk{DocID: "d1", PublishedAt: d("2024-01-01")}}) // second chunk of d1
	tests := []struct {
		name      string
		k, pool   int
		floor     float64
		then, now []string
	}{
		{"k 3 of 7", 3, 50, 0, []string{"d5", "d0", "d2"}, []string{"d6", "d1", "d3"}},
		{"pool limits to the 4 most relevant", 3, 4, 0, []string{"d0", "d2"}, []string{"d1", "d3"}},
		{"odd pool gives now the extra", 3, 3, 0, []string{"d0"}, []string{"d1", "d2"}},
		{"k 1", 1, 50, 0, []string{"d5"}, []string{"d6"}},
		{"floor 0.5 leaves out the newest, which scores 4 of 10", 3, 50, 0.5, []string{"d5", "d0", "d2"}, []string{"d1", "d3", "d4"}},
		{"floor 0.75 keeps the scores 10, 9, 8", 3, 50, 0.75, []string{"d0"}, []string{"d1", "d2"}},
		{"floor 1 keeps the best alone, as now", 3, 50, 1, nil, []string{"d0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := evolution(cands, opts(func(o *Options) { o.Mode = Evolution; o.EvolutionK = tc.k; o.Pool = tc.pool; o.PoolFloor = tc.floor }))
			var then, now []string
			for _, c := range out {
				if c.Group == "then" {
					then = append(then, c.Chunk.DocID)
				} else {
					now = append(now, c.Chunk.DocID)
				}
			}
			if !slices.Equal(then, tc.then) || !slices.Equal(now, tc.now) {
				t.Fatalf("then %v now %v, want %v %v", then, now, tc.then, tc.now)
			}
		})
	}
}

func TestCapPerSource(t *testing.T) {
	var cs []Candidate
	for i, s := range []string{"a", "a", "b", "a", "c", "b"} {
		cs = append(cs, Candidate{Row: i, Chunk: &schemas.Chunk{Source: s}})
	}
	rows := func(cs []Candidate) (r []int) {
		for _, c := range cs {
			r = append(r, c.Row)
		}
		return r
	}
	if got := rows(capPerSource(cs, 4, 1)); !slices.Equal(got, []int{0, 2, 4}) {
		t.Fatalf("cap 1: %v", got)
	}
	if got := rows(capPerSource(cs, 4, 0)); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Fatalf("no cap: %v", got)
	}
}

// newsShards is a small two-shard corpus about a key rate that changes over time; r4 reposts
// r1's text (same words, same vector) eight months later from another source.
func newsShards(t testing.TB) []*Shard {
	rate := unit(1, 0.1, 0)
	rate2 := unit(1, 0.2, 0)
	sport := unit(0, 0, 1)
	a := makeShard(t, "2023", []fixture{
		{"r1", "central bank raises key rate to 12 percent", "cbr", "2023-08-15", rate, nil},
		{"s1", "football derby ends in a draw", "sport", "2023-08-16", sport, nil},
		{"r2", "key rate raised again to 15 percent", "cbr", "2023-10-27", rate2, nil},
	})
	b := makeShard(t, "2024", []fixture{
		{"r3", "key rate held at 16 percent", "cbr", "2024-02-16", rate2, nil},
		{"r4", "central bank raises key rate to 12 percent", "news", "2024-04-26", rate, nil},
		{"r5", "key rate raised to 18 percent", "cbr", "2024-07-26", rate, nil}, // after A below
	})
	return []*Shard{a, b}
}

func TestSearchModes(t *testing.T) {
	shards := newsShards(t)
	q := unit(1, 0.1, 0)
	a := d("2024-05-15")
	pos := func(got []string, id string) int { return slices.Index(got, id) }
	tests := []struct {
		name  string
		o     Options
		check func(got []string) bool
	}{
		{"recency puts the repost above its older twin", opts(func(o *Options) { o.K = 5 }),
			func(g []string) bool { return pos(g, "r4") >= 0 && pos(g, "r4") < pos(g, "r1") }},
		{"hybrid ranks the twins by row order, older first", opts(func(o *Options) { o.Mode = Hybrid; o.K = 5; o.TopNEach = 5 }),
			func(g []string) bool { return pos(g, "r1") >= 0 && pos(g, "r1") < pos(g, "r4") }},
		{"window 2023 only", opts(func(o *Options) { o.Mode = Window; o.From, o.To = d("2023-01-01"), d("2023-12-31") }),
			func(g []string) bool {
				return len(g) == 3 && pos(g, "r1") >= 0 && pos(g, "r2") >= 0 && pos(g, "s1") >= 0
			}},
		{"window after A is empty", opts(func(o *Options) { o.Mode = Window; o.From, o.To = d("2025-01-01"), d("2025-12-31") }),
			func(g []string) bool { return len(g) == 0 }},
		{"evolution: oldest then, newest allowed now", opts(func(o *Options) { o.Mode = Evolution; o.EvolutionK = 1 }),
			func(g []string) bool { return slices.Equal(g, []string{"r1", "r4"}) }},
		{"30-day window", opts(func(o *Options) { o.WindowDays = 30 }),
			func(g []string) bool { return slices.Equal(g, []string{"r4"}) }},
		{"source filter", opts(func(o *Options) { o.Sources = []string{"news"} }),
			func(g []string) bool { return slices.Equal(g, []string{"r4"}) }},
		{"source filter ignores case", opts(func(o *Options) { o.Sources = []string{"NeWs"} }),
			func(g []string) bool { return slices.Equal(g, []string{"r4"}) }},
		{"one per source", opts(func(o *Options) { o.MaxPerSource = 1; o.K = 5 }),
			func(g []string) bool { return len(g) == 3 && pos(g, "s1") >= 0 && pos(g, "r4") >= 0 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			query := "central bank key rate"
			if tc.o.Mode == Hybrid {
				query = "" // dense only: the twins tie on cosine, and nothing but time could part them
			}
			res, err := Search(shards, query, q, a, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range res.Candidates {
				if c.Chunk.PublishedAt.After(a) {
					t.Fatalf("%s published %s, after A", c.Chunk.DocID, c.Chunk.PublishedAt)
				}
			}
			if got := ids(res.Results); !tc.check(got) {
				t.Fatalf("results %v", got)
			}
		})
	}
}

// TestBM25WithinTheQueryLanguage: in fused modes a BM25 hit counts only when the chunk is in
// the query's language (an English query matches Russian text on names and numbers alone);
// the bm25 mode keeps every hit, and a query without letters keeps every hit.
func TestBM25WithinTheQueryLanguage(t *testing.T) {
	shard := makeShard(t, "x", []fixture{
		{"ru-names", "Nordavia Bank 2024: курс рубля и нефть", "tg", "2024-05-01", unit(0, 1, 0), nil},
		{"ru-answer", "Центробанк Nordavia повысил ключевую ставку до 16%", "tg", "2024-05-01", unit(1, 0.2, 0), nil},
		{"en-answer", "Nordavia Bank raised its key rate to 16% in 2024", "wire", "2024-05-01", unit(1, 0, 0.3), nil},
	})
	a := d("2024-05-15")
	for _, tc := range []struct {
		name, query string
		mode        Mode
		want        map[string]bool // doc -> has a BM25 rank
	}{
		{"hybrid, English query", "Nordavia Bank 2024 key rate", Hybrid, map[string]bool{"en-answer": true, "ru-names": false, "ru-answer": false}},
		{"recency, English query", "Nordavia Bank 2024 key rate", Recency, map[string]bool{"en-answer": true, "ru-names": false, "ru-answer": false}},
		{"hybrid, Russian query", "Nordavia ключевая ставка", Hybrid, map[string]bool{"en-answer": false, "ru-answer": true}},
		{"bm25 keeps every language", "Nordavia Bank 2024 key rate", BM25, map[string]bool{"en-answer": true, "ru-names": true, "ru-answer": true}},
		{"no letters: no language", "2024", Hybrid, map[string]bool{"en-answer": true, "ru-names": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Search([]*Shard{shard}, tc.query, unit(1, 0.1, 0.1), a, opts(func(o *Options) { o.Mode = tc.mode }))
			if err != nil {
				t.Fatal(err)
			}
			ranked := map[string]bool{}
			for _, c := range res.Candidates {
				ranked[c.Chunk.DocID] = c.RankBM25 > 0
			}
			for id, want := range tc.want {
				if ranked[id] != want {
					t.Errorf("%s: BM25-ranked %v, want %v (candidates %v)", id, ranked[id], want, ranked)
				}
			}
		})
	}
}

// TestBM25SearchesShardsAsOne: the BM25 branch scores the live shards (those holding chunks
// the mask allows) as the one index of their chunks: the same BM25 scores and ranks as one
// shard holding those chunks, whether the corpus is cut into months or not ("inflation" is
// common in January and rare in the other months; searched shard by shard, it would weigh
// more there).
func TestBM25SearchesShardsAsOne(t *testing.T) {
	v := unit(1, 0, 0)
	months := [][]fixture{
		{
			{"m1-a", "inflation report for the quarter", "x", "2024-01-10", v, nil},
			{"m1-b", "inflation again and again", "x", "2024-01-11", v, nil},
			{"m1-c", "inflation expectations rise", "y", "2024-01-12", v, nil},
		},
		{
			{"m2-a", "inflation report for the quarter", "x", "2024-02-10", v, nil},
			{"m2-b", "football results", "y", "2024-02-11", v, nil},
			{"m2-c", "quarterly report of the bank", "x", "2024-02-12", v, nil},
		},
		{
			{"m3-a", "inflation report published", "y", "2024-03-10", v, nil},
			{"m3-b", "weather today", "x", "2024-03-11", v, nil},
		},
	}
	var cut []*Shard
	for i, m := range months {
		cut = append(cut, makeShard(t, fmt.Sprint("month", i), m))
	}
	a := d("2024-03-31")
	for _, tc := range []struct {
		name string
		o    Options
		live []int // the months the window leaves chunks in
	}{
		{"every month in the window", opts(func(o *Options) { o.Mode = BM25 }), []int{0, 1, 2}},
		{"the window leaves two months", opts(func(o *Options) { o.Mode = BM25; o.WindowDays = 60 }), []int{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var all []fixture
			for _, i := range tc.live {
				all = append(all, months[i]...)
			}
			one := makeShard(t, "one", all)
			want, err := Search([]*Shard{one}, "inflation report", nil, a, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Search(cut, "inflation report", nil, a, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			scores := func(res Result) map[string][2]float64 {
				m := map[string][2]float64{}
				for _, c := range res.Candidates {
					m[c.Chunk.DocID] = [2]float64{float64(c.RankBM25), c.BM25}
				}
				return m
			}
			g, w := scores(got), scores(want)
			if len(g) != len(w) || len(w) == 0 {
				t.Fatalf("%d BM25 candidates over the months, %d over one shard", len(g), len(w))
			}
			for id, x := range w {
				y := g[id]
				if x[0] != y[0] || math.Abs(x[1]-y[1]) > 1e-9*x[1] {
					t.Errorf("%s: months rank %v score %v, one shard rank %v score %v", id, y[0], y[1], x[0], x[1])
				}
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	shards := newsShards(t)
	if _, err := Search(shards, "rate", []float32{1, 0}, d("2024-05-15"), DefaultOptions()); err == nil {
		t.Fatal("a 2-d query over 3-d shards was accepted")
	}
	if _, err := Search(shards, "rate", nil, time.Time{}, DefaultOptions()); err == nil {
		t.Fatal("no anchor was accepted")
	}
	if _, err := Search(shards, "rate", nil, d("2024-05-15"), opts(func(o *Options) { o.Mode = Window })); err == nil {
		t.Fatal("window mode without a range was accepted")
	}
	if _, err := Search(shards, "rate", nil, d("2024-05-15"), opts(func(o *Options) { o.Mode = "magic" })); err == nil {
		t.Fatal("unknown mode accepted")
	}
}

// TestNoLeakageAndExactBranches is the property test: over random corpora, anchors, windows,
// modes and source filters, no candidate is ever outside the mask, the dense branch equals a
// brute-force exact top-N over the allowed rows, and the BM25 branch finds every allowed chunk
// holding a query word (when there are at most TopNEach of them).
func TestNoLeakageAndExactBranches(t *testing.T) {
	words := []string{"zork", "quix", "blat", "frob", "gnar", "plov", "trel", "vosk"}
	sources := []string{"a", "b", "c"}
	modes := []Mode{Recency, Decay, Hybrid, Window, Evolution, Dense, BM25}
	for trial := range 25 {
		rng := rand.New(rand.NewPCG(uint64(trial), 7))
		dim := 8
		var shards []*Shard
		for s := range 1 + rng.IntN(3) {
			var fx []fixture
			for i := range 5 + rng.IntN(40) {
				var text []string
				for range 1 + rng.IntN(4) {
					text = append(text, words[rng.IntN(len(words))])
				}
				v := make([]float32, dim)
				for j := range v {
					v[j] = float32(rng.NormFloat64())
				}
				date := d("2021-01-01").AddDate(0, 0, rng.IntN(3*365)).Format(time.DateOnly)
				fx = append(fx, fixture{fmt.Sprintf("s%d-%d", s, i), strings.Join(text, " "), sources[rng.IntN(3)], date, unit(v...), nil})
			}
			shards = append(shards, makeShard(t, fmt.Sprint("shard", s), fx))
			if trial%2 == 1 { // int8 codes; TopNEach·Int8Rerank covers every row: still exact
				shards[s].Int8 = vecindex.QuantizeInt8(shards[s].Vectors)
			}
		}
		for q := range 8 {
			a := d("2021-01-01").AddDate(0, 0, rng.IntN(4*365))
			o := DefaultOptions()
			o.Mode = modes[rng.IntN(len(modes))]
			o.WindowDays = []int{0, 30, 365}[rng.IntN(3)]
			o.TopNEach = 1 + rng.IntN(60)
			o.K = 1 + rng.IntN(10)
			o.Int8Rerank = 45 // TopNEach·45 ≥ the 44 rows of a shard
			if o.Mode == Window || rng.IntN(3) == 0 {
				o.From = d("2021-01-01").AddDate(0, 0, rng.IntN(3*365))
				o.To = o.From.AddDate(0, 0, rng.IntN(400))
			}
			if rng.IntN(4) == 0 {
				o.Sources = []string{sources[rng.IntN(3)]}
			}
			query := words[rng.IntN(len(words))]
			qv := make([]float32, dim)
			for j := range qv {
				qv[j] = float32(rng.NormFloat64())
			}
			qv = unit(qv...)
			name := fmt.Sprintf("trial %d query %d (%s, A %s, %+v)", trial, q, o.Mode, a.Format(time.DateOnly), o)
			res, err := Search(shards, query, qv, a, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			b := BoundsOf(a, o)
			allowed := func(c *schemas.Chunk) bool {
				return b.Allows(c.PublishedAt) && (len(o.Sources) == 0 || slices.Contains(o.Sources, c.Source))
			}
			endA := a.AddDate(0, 0, 1)
			for _, c := range append(slices.Clone(res.Candidates), res.Results...) {
				if !c.Chunk.PublishedAt.Before(endA) || !allowed(c.Chunk) {
					t.Fatalf("%s: %s (%s, %s) is outside the mask", name, c.Chunk.ChunkID, c.Chunk.PublishedAt, c.Chunk.Source)
				}
			}
			// Brute force over every allowed row.
			type row struct {
				shard, row int
				cos        float32
				hasWord    bool
			}
			var all []row
			for si, s := range shards {
				for i := range s.Chunks {
					if allowed(&s.Chunks[i]) {
						all = append(all, row{si, i, vecindex.Dot(qv, s.Vectors.Row(i)), slices.Contains(strings.Fields(s.Chunks[i].Text), query)})
					}
				}
			}
			if res.Allowed != len(all) {
				t.Fatalf("%s: %d allowed, brute force %d", name, res.Allowed, len(all))
			}
			if o.Mode != BM25 {
				slices.SortFunc(all, func(x, y row) int {
					return cmp.Or(cmp.Compare(y.cos, x.cos), cmp.Compare(x.shard, y.shard), cmp.Compare(x.row, y.row))
				})
				want := map[[2]int]int{}
				for r, x := range all[:min(o.TopNEach, len(all))] {
					want[[2]int{x.shard, x.row}] = r + 1
				}
				got := map[[2]int]int{}
				for _, c := range res.Candidates {
					if c.RankDense > 0 {
						got[[2]int{c.Shard, c.Row}] = c.RankDense
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s: dense ranks %v, brute force %v", name, got, want)
				}
			}
			if o.Mode != Dense {
				n := 0
				for _, x := range all {
					if x.hasWord {
						n++
					}
				}
				got := 0
				for _, c := range res.Candidates {
					if c.RankBM25 > 0 {
						got++
					}
				}
				if want := min(n, o.TopNEach); got != want {
					t.Fatalf("%s: BM25 ranked %d chunks, %d allowed hold %q (top-N %d)", name, got, n, query, o.TopNEach)
				}
			}
		}
	}
}

// TestDenseInt8: the dense branch scans a shard's int8 codes when it has them, re-scoring
// TopNEach·Int8Rerank rows in float32. The codes of the best row are zeroed here, so that only
// the float32 scan, or re-scoring every row, finds it: a shard without codes and
// Int8Rerank < 0 scan float32; re-scoring every row ranks exactly as float32 does.
func TestDenseInt8(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var fx []fixture
	for i := range 100 {
		v := make([]float32, 32)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		fx = append(fx, fixture{fmt.Sprint("c", i), "word", "src", d("2024-01-01").AddDate(0, 0, i).Format(time.DateOnly), unit(v...), nil})
	}
	s := makeShard(t, "s", fx)
	q := unit(s.Vectors.Row(42)...)
	codes := vecindex.QuantizeInt8(s.Vectors)
	clear(codes.Codes[42*32 : 43*32]) // int8 score 0: ranked below about half the rows
	dense := func(x *vecindex.Int8, rerank, topN int) []string {
		t.Helper()
		s.Int8 = x
		o := opts(func(o *Options) { o.Mode, o.WindowDays, o.TopNEach, o.K, o.Int8Rerank = Dense, 0, topN, topN, rerank })
		res, err := Search([]*Shard{s}, "", q, d("2024-12-31"), o)
		if err != nil {
			t.Fatal(err)
		}
		return ids(res.Results)
	}
	float := dense(nil, 0, 10)
	if float[0] != "c42" {
		t.Fatalf("float32 scan: %v, want c42 first", float)
	}
	tests := []struct {
		name   string
		codes  *vecindex.Int8
		rerank int
		want   []string // nil: c42 must be missing
	}{
		{name: "shard without codes", codes: nil, rerank: 1, want: float},
		{name: "float32 chosen", codes: codes, rerank: -1, want: float},
		{name: "int8 candidates miss the zeroed row", codes: codes, rerank: 1, want: nil},
		{name: "re-scoring every row is exact", codes: codes, rerank: 10, want: float},
		{name: "default rerank, true codes", codes: vecindex.QuantizeInt8(s.Vectors), rerank: 0, want: float},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dense(tc.codes, tc.rerank, 10)
			if tc.want == nil {
				if slices.Contains(got, "c42") {
					t.Fatalf("got %v: the int8 codes were not scanned", got)
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	other := vecindex.QuantizeInt8(makeShard(t, "t", fx).Vectors)
	s.Int8 = other
	if _, err := Search([]*Shard{s}, "", q, d("2024-12-31"), opts(func(o *Options) { o.Mode = Dense })); err == nil {
		t.Fatal("codes of another shard's vectors were accepted")
	}
}

func BenchmarkSearch(b *testing.B) {
	shards := benchShards(b)
	q := shards[0].Vectors.Row(7)
	a := d("2023-12-31")
	for b.Loop() {
		if _, err := Search(shards, "inflation rate", q, a, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFuse is one fusion of gathered candidates (the default 500 per branch): what
// evaluation's parameter sweep repeats hundreds of times per question (Cache).
func BenchmarkFuse(b *testing.B) {
	shards := benchShards(b)
	g, err := Gather(shards, "inflation rate", shards[0].Vectors.Row(7), d("2023-12-31"), DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := g.Fuse(DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// benchShards is four shards of 2,500 random 384-dimensional chunks over a year.
func benchShards(b *testing.B) []*Shard {
	rng := rand.New(rand.NewPCG(1, 2))
	dim := 384
	words := strings.Fields("bank rate inflation rouble budget oil gas export import tax bond yield market")
	var shards []*Shard
	for s := range 4 {
		var fx []fixture
		for i := range 2500 {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
			var text []string
			for range 30 {
				text = append(text, words[rng.IntN(len(words))])
			}
			fx = append(fx, fixture{fmt.Sprintf("%d-%d", s, i), strings.Join(text, " "), "src", d("2023-01-01").AddDate(0, 0, s*90+i%90).Format(time.DateOnly), unit(v...), nil})
		}
		shards = append(shards, makeShard(b, fmt.Sprint("s", s), fx))
	}
	return shards
}

// TestCacheEqualsSearch: a search answered from gathered candidates (another weighting, rank
// constant, time-rank style or a shallower branch depth of the same question) equals Search.
func TestCacheEqualsSearch(t *testing.T) {
	words := []string{"zork", "quix", "blat", "frob"}
	rng := rand.New(rand.NewPCG(11, 5))
	var shards []*Shard
	for s := range 2 {
		var fx []fixture
		for i := range 60 {
			v := make([]float32, 8)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
			text := words[rng.IntN(4)] + " " + words[rng.IntN(4)]
			date := d("2022-01-01").AddDate(0, 0, rng.IntN(400)).Format(time.DateOnly)
			fx = append(fx, fixture{fmt.Sprintf("s%d-%d", s, i), text, "src", date, unit(v...), nil})
		}
		shards = append(shards, makeShard(t, fmt.Sprint("shard", s), fx))
	}
	for q := range 6 {
		qv := make([]float32, 8)
		for j := range qv {
			qv[j] = float32(rng.NormFloat64())
		}
		qv = unit(qv...)
		a := d("2022-06-01").AddDate(0, 0, rng.IntN(200))
		query := words[rng.IntN(4)]
		c := &Cache{MinTopN: 40}
		for v := range 12 {
			o := DefaultOptions()
			o.Mode = []Mode{Recency, Hybrid, Decay}[v%3]
			o.TopNEach = []int{5, 20, 40}[rng.IntN(3)]
			o.KRRF = []float64{10, 60}[rng.IntN(2)]
			o.Weights.Time = []float64{0, 0.6, 2}[rng.IntN(3)]
			o.TimeRank = []string{TimeRankCompetition, TimeRankDays}[rng.IntN(2)]
			o.K = 15
			want, err := Search(shards, query, qv, a, o)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Search(shards, query, qv, a, o)
			if err != nil {
				t.Fatal(err)
			}
			ids := func(cs []Candidate) (out []string) {
				for _, c := range cs {
					out = append(out, fmt.Sprintf("%s r%d/%d/%d %.6f", c.Chunk.ChunkID, c.RankDense, c.RankBM25, c.RankTime, c.Score))
				}
				return out
			}
			if !slices.Equal(ids(got.Candidates), ids(want.Candidates)) || !slices.Equal(ids(got.Results), ids(want.Results)) {
				t.Fatalf("question %d, variant %d (%+v): cached search differs:\n got %v\nwant %v", q, v, o, ids(got.Results), ids(want.Results))
			}
		}
		if len(c.m) != 1 {
			t.Fatalf("question %d: %d gathers, want 1 (every variant shares the mask and branches)", q, len(c.m))
		}
	}
}
