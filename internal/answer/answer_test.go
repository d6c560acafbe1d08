package answer

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/retrieve/retrievetest"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

var (
	day  = retrievetest.Day
	unit = retrievetest.Unit
)

func TestRead(t *testing.T) {
	asOf := day("2024-05-15")
	tests := []struct {
		name           string
		query, mode    string
		from, to       time.Time
		wantMode       string
		wantFrom, wTo  string
		wantNear       bool // wantFrom..wTo are the period the search centers on (Reading.Near)
		wantText       string
		wantKind       string
		wantErr        string
		wantInterprets string
	}{
		{name: "auto plain", query: "key rate", wantMode: "recency", wantText: "key rate", wantKind: KindPlain},
		{name: "auto year: centered on the period and the news around it", query: "elections in 2015", wantMode: "recency", wantFrom: "2014-12-25", wTo: "2016-04-01", wantNear: true,
			wantText: "elections in 2015", wantKind: KindPeriod, wantInterprets: `a question about "in 2015" (2015-01-01..2015-12-31), searched around 2014-12-25..2016-04-01, the nearest reports first`},
		{name: "auto recent month: centered on it too", query: "inflation in April", wantMode: "recency", wantFrom: "2024-03-25", wTo: "2024-05-15", wantNear: true,
			wantText: "inflation in April", wantKind: KindPeriod, wantInterprets: "no preference for fresh ones"},
		{name: "auto Chinese day: centered on that day", query: "2020年3月15日湖北潜江市发生了什么事件？", wantMode: "recency", wantFrom: "2020-03-08", wTo: "2020-03-22", wantNear: true,
			wantText: "2020年3月15日湖北潜江市发生了什么事件？", wantKind: KindPeriod, wantInterprets: `a question about "2020年3月15日" (2020-03-15..2020-03-15), searched around 2020-03-08..2020-03-22`},
		{name: "auto when did: the whole past by relevance", query: "when did the key rate first reach 16 percent", wantMode: "hybrid", wantText: "the key rate first reach 16 percent",
			wantKind: KindPast, wantInterprets: `a question about the past: every date up to 2024-05-15, no preference for fresh (from "when did"), by relevance alone`},
		{name: "auto which came first, Chinese", query: "COTODAMA歌词音箱和苹果停产iPhone 6系列哪个事件更早发生？", wantMode: "hybrid", wantKind: KindPast, wantInterprets: "a question about the past"},
		{name: "auto when, Russian", query: "Когда была введена семейная ипотека?", wantMode: "hybrid", wantText: "введена семейная ипотека?", wantKind: KindPast},
		{name: "auto a dated question about the past: its dates as words", query: "约翰逊承诺英国将于2019年10月31日脱欧，这一承诺是在什么时候提出的？", wantMode: "hybrid",
			wantText: "约翰逊承诺英国将于2019年10月31日脱欧，这一承诺是在什么时候提出的？", wantKind: KindPastPeriod, wantInterprets: "the dates as words"},
		{name: "auto Chinese N years ago: about the past", query: "四年前阿盟在哪个城市举行的外长会议？", wantMode: "hybrid", wantKind: KindPast},
		{name: "auto English N years ago: named in passing", query: "after stepping down two years ago, who returns as CEO?", wantMode: "recency", wantKind: KindSoft},
		{name: "auto latest wins over when", query: "when was the latest key rate decision", wantMode: "recency", wantKind: KindFresh, wantInterprets: "fresher preferred"},
		{name: "auto change", query: "how has the key rate changed", wantMode: "evolution", wantKind: KindEvolution},
		{name: "auto this week prefers, never filters", query: "key rate this week", wantMode: "recency", wantText: "key rate", wantKind: KindFresh, wantInterprets: "fresher preferred"},
		{name: "auto with explicit dates", query: "key rate", from: day("2020-01-01"), to: day("2020-12-31"), wantMode: "window", wantFrom: "2020-01-01", wTo: "2020-12-31", wantText: "key rate", wantInterprets: "(dates given)"},
		{name: "window from the text", query: "rates in Q4 2023", mode: "window", wantMode: "window", wantFrom: "2023-10-01", wTo: "2023-12-31", wantText: "rates", wantInterprets: "read from the query"},
		{name: "window without dates", query: "rates", mode: "window", wantErr: "window mode needs"},
		{name: "explicit mode keeps the text", query: "rates in 2015", mode: "decay", wantMode: "decay", wantText: "rates in 2015", wantInterprets: "as requested"},
		{name: "empty query", query: "  ", wantErr: "empty"},
		{name: "unknown mode", query: "x", mode: "magic", wantErr: "unknown mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Read(tt.query, asOf, tt.mode, tt.from, tt.to)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrInput with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Mode != tt.wantMode || r.Interpretation == "" || !strings.Contains(r.Interpretation, tt.wantInterprets) {
				t.Fatalf("mode %q (%s), want %q (%s)", r.Mode, r.Interpretation, tt.wantMode, tt.wantInterprets)
			}
			if r.Kind != tt.wantKind {
				t.Fatalf("kind %q, want %q (%s)", r.Kind, tt.wantKind, r.Interpretation)
			}
			from, to := r.From, r.To
			if tt.wantNear {
				from, to = r.Near.From, r.Near.To
				if !r.From.IsZero() || !r.To.IsZero() {
					t.Fatalf("range %v..%v: a period centers the search, it does not filter", r.From, r.To)
				}
			} else if !r.Near.From.IsZero() {
				t.Fatalf("centered on %v..%v, want no center", r.Near.From, r.Near.To)
			}
			if r.Kind == KindSoft {
				from, to = r.From, r.To // a period named in passing is shown, and reached by the window
			}
			if tt.wantFrom != "" && (!from.Equal(day(tt.wantFrom)) || !to.Equal(day(tt.wTo))) {
				t.Fatalf("range %v..%v, want %s..%s", from, to, tt.wantFrom, tt.wTo)
			}
			if tt.wantText != "" && r.Text != tt.wantText {
				t.Fatalf("text %q, want %q", r.Text, tt.wantText)
			}
			if tt.wantFrom == "" && (!r.From.IsZero() || !r.To.IsZero()) {
				t.Fatalf("range %v..%v, want none", r.From, r.To)
			}
			if fresh := strings.Contains(tt.wantInterprets, "fresher"); r.Fresh != fresh {
				t.Fatalf("fresh %v, want %v", r.Fresh, fresh)
			}
		})
	}
	if _, err := Read("x", time.Time{}, "", time.Time{}, time.Time{}); !errors.Is(err, ErrInput) {
		t.Errorf("no anchor: %v, want ErrInput", err)
	}
}

// rateShard: four reports of a key-rate decision from one channel, a repost of the first by
// another, and an unrelated post; one in the future.
func rateShard(t *testing.T) *retrieve.Shard {
	return retrievetest.Shard(t, "rates", []retrievetest.Doc{
		{ID: "a1", Text: "key rate raised to 16 percent", Source: "cbr", PublishedAt: day("2024-05-10"), Vec: unit(1, 0, 0)},
		{ID: "a1-repost", Text: "key rate raised to 16 percent", Source: "tg", PublishedAt: day("2024-05-10"), Vec: unit(1, 0, 0)},
		{ID: "a2", Text: "key rate decision expected friday", Source: "cbr", PublishedAt: day("2024-05-08"), Vec: unit(0.9, 0.1, 0)},
		{ID: "a3", Text: "key rate held at 15 percent", Source: "cbr", PublishedAt: day("2024-04-20"), Vec: unit(0.8, 0.2, 0)},
		{ID: "b1", Text: "key rate comment by an analyst", Source: "rbc", PublishedAt: day("2024-05-01"), Vec: unit(0.7, 0.3, 0)},
		{ID: "pie", Text: "apple pie recipe", Source: "food", PublishedAt: day("2024-05-11"), Vec: unit(0, 0, 1)},
		{ID: "future", Text: "key rate cut to 7 percent", Source: "cbr", PublishedAt: day("2024-06-01"), Vec: unit(1, 0, 0)},
	})
}

func docIDs(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Chunk.DocID)
	}
	return out
}

func TestRankFoldsCapsAndCuts(t *testing.T) {
	s := []*retrieve.Shard{rateShard(t)}
	asOf := day("2024-05-15")
	read, err := Read("key rate", asOf, "recency", time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	vec := unit(1, 0, 0)
	tests := []struct {
		name      string
		k, maxPer int
		noFold    bool
		wantDocs  int // results
		maxPerSrc int // most results (and pool members) from one source
		reposts   int // results that are the repost's copy
	}{
		{name: "folded", k: 10, wantDocs: 5, maxPerSrc: 3},
		{name: "folded, first 2", k: 2, wantDocs: 2, maxPerSrc: 3},
		{name: "not folded keeps the copy", k: 10, noFold: true, wantDocs: 6, maxPerSrc: 3, reposts: 1},
		{name: "one per source", k: 10, maxPer: 1, wantDocs: 3, maxPerSrc: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := retrieve.DefaultOptions()
			o.K, o.MaxPerSource = tt.k, tt.maxPer
			r, err := Rank(s, Query{Read: read, Vec: vec, AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions(), NoFold: tt.noFold})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Results) != tt.wantDocs {
				t.Fatalf("results %v, want %d", docIDs(r.Results), tt.wantDocs)
			}
			reposts := 0
			for _, h := range r.Results {
				if h.Chunk.DocID == "future" {
					t.Fatal("a document after the anchor reached the results")
				}
				if h.Chunk.DocID == "a1-repost" {
					reposts++
				}
				if h.Chunk.DocID == "a1" && !tt.noFold && (h.Duplicates != 1 || len(h.Sources) != 2) {
					t.Errorf("a1 folded %d duplicates from %v, want 1 from 2 sources", h.Duplicates, h.Sources)
				}
			}
			if reposts != tt.reposts {
				t.Errorf("the repost's copy is in the results %d times, want %d", reposts, tt.reposts)
			}
			pool, err := Pool(r, asOf, evidence.DefaultOptions(), DefaultPool)
			if err != nil {
				t.Fatal(err)
			}
			// The cap applies where users feel it: the context's pool, not only the shown rows.
			for name, hits := range map[string][]Hit{"results": r.Results, "pool": pool} {
				per := map[string]int{}
				for _, h := range hits {
					per[h.Chunk.Source]++
					if per[h.Chunk.Source] > tt.maxPerSrc {
						t.Errorf("%s: %d from %s, want at most %d (%v)", name, per[h.Chunk.Source], h.Chunk.Source, tt.maxPerSrc, docIDs(hits))
					}
				}
			}
		})
	}
}

// TestFreshBoost: "this week" keeps last month's answer (no window), and the boost puts the
// fresher report first; without the boost, relevance decides.
func TestFreshBoost(t *testing.T) {
	s := []*retrieve.Shard{rateShard(t)}
	asOf := day("2024-05-15")
	read, err := Read("key rate held this week", asOf, "", time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	vec := unit(0.8, 0.2, 0) // a3's vector: the relevance favourite, 25 days old
	o := retrieve.DefaultOptions()
	o.Weights.Time = 0.2
	plain, err := Rank(s, Query{Read: read, Vec: vec, AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if got := docIDs(plain.Results); got[0] != "a3" {
		t.Fatalf("without a boost: %v, want a3 (older than the week, kept and first)", got)
	}
	o.FreshBoost = 10
	boosted, err := Rank(s, Query{Read: read, Vec: vec, AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	got := docIDs(boosted.Results)
	if got[0] == "a3" || !slices.Contains(got, "a3") {
		t.Fatalf("with a boost: %v, want a fresher report first and a3 still there", got)
	}
}

func TestRankSaysWhenNothingIsAllowed(t *testing.T) {
	s := []*retrieve.Shard{rateShard(t)}
	asOf := day("2024-05-15")
	// Auto reads a future year as what was said before it; nothing after the anchor comes.
	auto, err := Read("key rate in 2030", asOf, Auto, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	ra, err := Rank(s, Query{Read: auto, Vec: unit(1, 0, 0), AsOf: asOf, Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if auto.Mode != "recency" || len(ra.Results) == 0 || slices.Contains(docIDs(ra.Results), "future") {
		t.Fatalf("auto read %q (%s): %v", auto.Mode, auto.Interpretation, docIDs(ra.Results))
	}
	// A window asked for explicitly is the period itself: nothing, and says so.
	read, err := Read("key rate in 2030", asOf, "window", time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Rank(s, Query{Read: read, Vec: unit(1, 0, 0), AsOf: asOf, Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 0 || !strings.Contains(r.Message, "No documents in that period") {
		t.Fatalf("results %v, message %q", docIDs(r.Results), r.Message)
	}
	c, err := Compose(ComposeInput{Query: "key rate", AsOf: asOf, Empty: r.Message, Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions()}, Docs(r.Ranked))
	if err != nil {
		t.Fatal(err)
	}
	// The message says why (the answer carries it); the brief says there is nothing to answer
	// from, and the summary is that brief rendered.
	want := schemas.Brief{Method: "none", AsOf: day("2024-05-15"), NotEnough: true}
	if c.Brief == nil || !reflect.DeepEqual(*c.Brief, want) || c.SummaryMethod != "none" || len(c.Blocks) != 0 ||
		c.Summary != "Not enough information in the documents up to 2024-05-15 to answer.\n" {
		t.Fatalf("summary %q (%s), brief %+v, %d blocks", c.Summary, c.SummaryMethod, c.Brief, len(c.Blocks))
	}
	// With no message, the brief's note says why.
	c, err = Compose(ComposeInput{Query: "key rate", AsOf: asOf, Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions()}, nil)
	if err != nil || c.Brief == nil || c.Brief.Note != NothingLeft || !strings.HasPrefix(c.Summary, "_"+NothingLeft+"_\n\nNot enough information") {
		t.Fatalf("summary %q, brief %+v, %v", c.Summary, c.Brief, err)
	}
	if _, err := Rank(s, Query{Read: Reading{Mode: "window", Text: "key rate"}, AsOf: asOf, Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions()}); !errors.Is(err, ErrInput) {
		t.Fatalf("a window without dates: %v, want ErrInput", err)
	}
}

func TestComposeEvolution(t *testing.T) {
	s := []*retrieve.Shard{rateShard(t)}
	asOf := day("2024-05-15")
	read, err := Read("how has the key rate changed", asOf, Auto, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	o := retrieve.DefaultOptions()
	o.EvolutionK = 2
	r, err := Rank(s, Query{Read: read, Vec: unit(1, 0, 0), AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Evolution() || len(r.Results) != 4 {
		t.Fatalf("evolution %v, results %v", r.Evolution(), docIDs(r.Results))
	}
	pool, err := Pool(r, asOf, evidence.DefaultOptions(), DefaultPool)
	if err != nil || len(pool) != len(r.Ranked) {
		t.Fatalf("pool %v (%v), want every group member", docIDs(pool), err)
	}
	c, err := Compose(ComposeInput{Query: "key rate", AsOf: asOf, Evolution: true, Groups: Groups(pool),
		Context: evidence.Options{KDocs: 1, HotDays: 30, HotRatio: 0.75, SnippetChars: 800}, Summary: summarize.DefaultOptions()}, Docs(pool))
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]int{}
	for _, b := range c.Blocks {
		groups[b.Group]++
	}
	if len(c.Blocks) != 4 || groups["then"] != 2 || groups["now"] != 2 || c.Brief == nil {
		t.Fatalf("blocks %d by group %v (a context of every group member whatever KDocs)", len(c.Blocks), groups)
	}
	if want := render.Markdown(*c.Brief, c.Blocks); c.Summary != want || c.SummaryMethod != c.Brief.Method || !strings.Contains(c.Summary, "### Then\n") {
		t.Errorf("summary\n%s\nis not the brief rendered:\n%s", c.Summary, want)
	}
}

// TestRankVariants: a variant's search (here a hypothetical answer's vector pointing at the
// pie recipe) lifts what it finds in the fused ranking, the question's own evidence is kept,
// and nothing after the anchor comes in through any search.
func TestRankVariants(t *testing.T) {
	s := []*retrieve.Shard{rateShard(t)}
	asOf := day("2024-05-15")
	read, err := Read("key rate", asOf, "recency", time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	rank := func(vs []Variant) []string {
		r, err := Rank(s, Query{Read: read, Vec: unit(1, 0, 0), Variants: vs, AsOf: asOf, Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(docIDs(r.Ranked), "future") {
			t.Fatalf("a document after the anchor: %v", docIDs(r.Ranked))
		}
		return docIDs(r.Results)
	}
	plain := rank(nil)
	fused := rank([]Variant{{Kind: "hyde", Vec: unit(0, 0, 1)}, {Kind: "query", Text: "apple pie", Vec: unit(0, 0.2, 1)}})
	if slices.Index(fused, "pie") >= slices.Index(plain, "pie") {
		t.Fatalf("pie at %d with variants, %d without: %v / %v", slices.Index(fused, "pie"), slices.Index(plain, "pie"), fused, plain)
	}
	if !slices.Contains(fused, "a1") {
		t.Fatalf("the question's own best result left the ranking: %v", fused)
	}
}

// TestRankStrictIsRanksResults: RankStrict, which skips the folding, returns what Rank returns
// as results with NoFold, with and without variants.
func TestRankStrictIsRanksResults(t *testing.T) {
	s := []*retrieve.Shard{rateShard(t)}
	asOf := day("2024-05-15")
	tests := []struct {
		name     string
		mode     string
		maxPer   int
		variants []Variant
	}{
		{name: "recency", mode: "recency"},
		{name: "hybrid, one per source", mode: "hybrid", maxPer: 1},
		{name: "recency with variants", mode: "recency", variants: []Variant{{Kind: "hyde", Vec: unit(0, 0, 1)}, {Kind: "query", Text: "apple pie", Vec: unit(0, 0.2, 1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read, err := Read("key rate", asOf, tt.mode, time.Time{}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			o := retrieve.DefaultOptions()
			o.MaxPerSource = tt.maxPer
			q := Query{Read: read, Vec: unit(1, 0, 0), Variants: tt.variants, AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions(), NoFold: true}
			r, err := Rank(s, q)
			if err != nil {
				t.Fatal(err)
			}
			hits, err := RankStrict(s, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || !slices.Equal(docIDs(hits), docIDs(r.Results)) {
				t.Fatalf("strict %v, Rank's results %v", docIDs(hits), docIDs(r.Results))
			}
		})
	}
	evo, err := Read("key rate", asOf, "evolution", time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RankStrict(s, Query{Read: evo, Vec: unit(1, 0, 0), AsOf: asOf, Options: retrieve.DefaultOptions()}); !errors.Is(err, ErrInput) {
		t.Fatalf("strict evolution: err %v, want ErrInput", err)
	}
}

// metroShard: a metro line opened in 2020 (three reports and a repost), a fare change in 2024,
// and unrelated fresh news. Asked in 2024, "when did line 3 open" is about the past; "metro
// fares" about the present.
func metroShard(t *testing.T) *retrieve.Shard {
	return retrievetest.Shard(t, "metro", []retrievetest.Doc{
		{ID: "open1", Text: "metro line 3 opened to passengers", Source: "city", PublishedAt: day("2020-06-28"), Vec: unit(1, 0, 0)},
		{ID: "open2", Text: "metro line 3 opening ceremony held", Source: "news", PublishedAt: day("2020-06-28"), Vec: unit(0.95, 0.05, 0)},
		{ID: "open3", Text: "first week of metro line 3 passengers", Source: "news", PublishedAt: day("2020-07-05"), Vec: unit(0.9, 0.1, 0)},
		{ID: "plan", Text: "metro line 3 construction plan approved", Source: "city", PublishedAt: day("2018-03-01"), Vec: unit(0.85, 0.15, 0)},
		{ID: "fare", Text: "metro fares rise next month", Source: "city", PublishedAt: day("2024-04-30"), Vec: unit(0.3, 0.9, 0)},
		{ID: "fare2", Text: "metro fares rise approved by council", Source: "news", PublishedAt: day("2024-05-02"), Vec: unit(0.3, 0.85, 0.1)},
		{ID: "rain", Text: "heavy rain expected this weekend", Source: "weather", PublishedAt: day("2024-05-10"), Vec: unit(0, 0, 1)},
		{ID: "late", Text: "metro line 3 extension opened", Source: "city", PublishedAt: day("2024-06-01"), Vec: unit(1, 0, 0)},
	})
}

func TestLookBack(t *testing.T) {
	shards := []*retrieve.Shard{metroShard(t)}
	asOf := day("2024-05-15")
	for _, tc := range []struct {
		name, query string
		vec         []float32
		mode        string // the mode searched
		first       string
	}{
		{name: "a question about the past, read so", query: "when did metro line 3 open", vec: unit(1, 0.02, 0), mode: "hybrid", first: "open1"},
		{name: "a past event: its best matches are years old", query: "地铁3号线开通", vec: unit(1, 0.02, 0), mode: "hybrid", first: "open1"},
		{name: "an English question without a date or a cue is about the present", query: "metro line 3 open", vec: unit(1, 0.02, 0), mode: "recency", first: "fare2"},
		{name: "the present: its best matches are recent", query: "地铁票价", vec: unit(0.3, 0.9, 0), mode: "recency"},
		{name: "fresh news never looks back", query: "metro line 3 this week", vec: unit(1, 0.02, 0), mode: "recency"},
		{name: "a named period centers the search, not a look-back", query: "metro line 3 in 2020", vec: unit(1, 0.02, 0), mode: "recency", first: "open1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read, err := Read(tc.query, asOf, Auto, time.Time{}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Rank(shards, Query{Read: read, Vec: tc.vec, AsOf: asOf, Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions()})
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Mode) != tc.mode || r.Read.Mode != tc.mode {
				t.Fatalf("searched %s (reading %s: %s), want %s", r.Mode, r.Read.Mode, r.Read.Interpretation, tc.mode)
			}
			if tc.first != "" && (len(r.Results) == 0 || r.Results[0].Chunk.DocID != tc.first) {
				t.Errorf("results %v, want %s first", docIDs(r.Results), tc.first)
			}
			for _, h := range r.Results {
				if h.Chunk.PublishedAt.After(asOf) {
					t.Errorf("%s was published after the anchor", h.Chunk.DocID)
				}
			}
			if tc.mode == "hybrid" && !strings.Contains(r.Read.Interpretation, "about the past") {
				t.Errorf("interpretation %q does not say the question was read as about the past", r.Read.Interpretation)
			}
		})
	}
	// A period named in passing widens the window to reach it, without filtering.
	read, err := Read("the metro line opened two years ago", asOf, Auto, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if read.Mode != "recency" || read.WindowDays < 700 || read.LookBack {
		t.Errorf("reading %+v: want recency reaching back two years, no look-back (English)", read)
	}
}

// TestRankPeriodNearestFirst: a period named in a question centers the search on it. As of
// 2024-05-15, "key rate decision in 2015" ranks the 2015 report first, ahead of fresher and
// equally relevant ones, and everything up to the anchor stays reachable (nothing was cut by
// a window); nothing after the anchor comes. Without the period the fresh reports lead.
func TestRankPeriodNearestFirst(t *testing.T) {
	s := []*retrieve.Shard{retrievetest.Shard(t, "rates", []retrievetest.Doc{
		{ID: "old", Text: "key rate decision of the central bank", Source: "cbr", PublishedAt: day("2015-06-16"), Vec: unit(0.9, 0.1, 0)},
		{ID: "a1", Text: "key rate decision of the central bank: raised to 16 percent", Source: "cbr", PublishedAt: day("2024-05-10"), Vec: unit(0.9, 0.1, 0)},
		{ID: "a2", Text: "key rate decision of the central bank: held", Source: "rbc", PublishedAt: day("2024-04-26"), Vec: unit(0.9, 0.1, 0)},
		{ID: "future", Text: "key rate decision of the central bank in 2015 recalled", Source: "cbr", PublishedAt: day("2024-06-01"), Vec: unit(1, 0, 0)},
	})}
	asOf := day("2024-05-15")
	rank := func(q string) Ranking {
		read, err := Read(q, asOf, Auto, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Rank(s, Query{Read: read, Vec: unit(0.9, 0.1, 0), AsOf: asOf, Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(docIDs(r.Ranked), "future") {
			t.Fatalf("%q: a document after the anchor: %v", q, docIDs(r.Ranked))
		}
		return r
	}
	r := rank("key rate decision in 2015")
	if got := docIDs(r.Results); len(got) != 3 || got[0] != "old" || r.Message != "" {
		t.Fatalf("centered on 2015: %v (%q), want old first and the rest of the past after it", got, r.Message)
	}
	if got := docIDs(rank("key rate decision").Results); got[0] == "old" {
		t.Fatalf("no period: %v, want the fresh reports first", got)
	}
}

// TestEvolutionFoldsReposts: each group of an evolution ("then" and "now") holds a story and its
// repost by another channel under a "BREAKING:" or «Срочно:» mark, a few hours later. Each story
// is one item of its group, listing both channels, and every group is filled with other
// stories instead of the copy; the summary says each story once.
func TestEvolutionFoldsReposts(t *testing.T) {
	at := func(d string, h int) time.Time { return day(d).Add(time.Duration(h) * time.Hour) }
	docs := []retrievetest.Doc{
		{ID: "hike", Text: "Central bank raises key rate to 16% to fight inflation", Source: "cb-press", PublishedAt: at("2023-12-15", 10), Vec: unit(1, 0.10, 0)},
		{ID: "hike-rp", Text: "BREAKING: Central bank raises key rate to 16% to fight inflation", Source: "capital-daily", PublishedAt: at("2023-12-15", 23), Vec: unit(1, 0.11, 0.01)},
		{ID: "hike2", Text: "Analysts see key rate at 16% through spring", Source: "wire", PublishedAt: at("2024-01-10", 9), Vec: unit(1, 0.3, 0.1)},
		{ID: "mid", Text: "Key rate decision: hold at 16%, statement unchanged", Source: "wire", PublishedAt: at("2024-03-01", 9), Vec: unit(1, 0.25, 0.2)},
		{ID: "peak", Text: "Governor: key rate has peaked, markets bet on a cut", Source: "nordavia-wire", PublishedAt: at("2024-05-10", 8), Vec: unit(1, 0, 0.12)},
		{ID: "peak-rp", Text: "Срочно: Governor: key rate has peaked, markets bet on a cut", Source: "tg:@krona_ru", PublishedAt: at("2024-05-11", 2), Vec: unit(1, 0.01, 0.13)},
		{ID: "cut", Text: "Key rate cut expected in June as inflation slows", Source: "wire", PublishedAt: at("2024-05-08", 9), Vec: unit(1, 0.2, 0.3)},
		{ID: "after", Text: "Central bank cuts key rate to 15%", Source: "cb-press", PublishedAt: at("2024-06-01", 10), Vec: unit(1, 0, 0)},
	}
	s := []*retrieve.Shard{retrievetest.Shard(t, "evo", docs)}
	asOf := day("2024-05-15")
	read, err := Read("how has the key rate changed", asOf, Auto, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	o := retrieve.DefaultOptions()
	o.EvolutionK = 2
	r, err := Rank(s, Query{Read: read, Vec: unit(1, 0.1, 0.1), AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ group, doc, sources string }
	var got []row
	for _, h := range r.Results { // a story is shown by its best-scored copy, either one
		srcs := slices.Sorted(slices.Values(h.Sources))
		got = append(got, row{h.Group, strings.TrimSuffix(h.Chunk.DocID, "-rp"), strings.Join(srcs, ",")})
	}
	want := []row{
		{"then", "hike", "capital-daily,cb-press"},
		{"then", "hike2", "wire"},
		{"now", "peak", "nordavia-wire,tg:@krona_ru"},
		{"now", "cut", "wire"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("groups\n got %v\nwant %v", got, want)
	}
	c, err := Compose(ComposeInput{Query: "how has the key rate changed", SearchText: read.Text, AsOf: asOf, Evolution: true, Groups: Groups(r.Ranked),
		Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions()}, Docs(r.Ranked))
	if err != nil {
		t.Fatal(err)
	}
	for _, story := range []string{"raises key rate to 16%", "key rate has peaked"} {
		n := 0
		for _, cl := range slices.Concat(c.Brief.Then, c.Brief.Now) {
			n += strings.Count(cl.Text, story)
		}
		if n != 1 {
			t.Errorf("the summary says %q %d times, want once:\n%s", story, n, c.Summary)
		}
	}
}

// TestRankPeriods: a comparison of two years searches each on its own. Yearly reports are
// published in the spring after the year they are about, so the report about 2020 is read for
// 2020 (its title states the year), not for 2021 when it was published; each year's report
// holds a place in the first results, labelled by its year and grouped then/now; the report
// published after the anchor never comes. Searched as one period window instead (main before
// the comparison reading), the 2023 report's newer neighbours crowd out the 2020 one.
func TestRankPeriods(t *testing.T) {
	s := []*retrieve.Shard{retrievetest.Shard(t, "reports", []retrievetest.Doc{
		{ID: "r2019", Text: "Audi Report 2019: deliveries of cars and revenue", Source: "audi", PublishedAt: day("2020-05-14"), Vec: unit(0.9, 0.1, 0.3)},
		{ID: "r2020", Text: "Audi Report 2020: deliveries of cars and revenue", Source: "audi", PublishedAt: day("2021-03-18"), Vec: unit(0.8, 0.1, 0.2)},
		{ID: "r2021", Text: "Audi Report 2021: deliveries of cars and revenue grew", Source: "audi", PublishedAt: day("2022-03-17"), Vec: unit(0.95, 0.05, 0)},
		{ID: "r2022", Text: "Audi Report 2022: deliveries of cars and revenue grew", Source: "audi", PublishedAt: day("2023-03-16"), Vec: unit(0.95, 0.05, 0.1)},
		{ID: "r2023", Text: "Audi Report 2023: deliveries of cars and revenue", Source: "audi", PublishedAt: day("2024-03-19"), Vec: unit(0.8, 0.2, 0.1)},
		{ID: "r2024", Text: "Audi Report 2024: deliveries of cars and revenue", Source: "audi", PublishedAt: day("2025-03-18"), Vec: unit(1, 0, 0)},
	})}
	asOf := day("2024-03-20")
	read, err := Read("What were Audi's deliveries and revenue in 2020 and 2023, respectively?", asOf, Auto, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if read.Kind != KindPeriods || len(read.Periods) != 2 {
		t.Fatalf("read %+v, want a comparison of 2020 and 2023", read)
	}
	o := retrieve.DefaultOptions()
	o.MaxPerSource = 0
	r, err := Rank(s, Query{Read: read, Vec: unit(0.9, 0.1, 0), AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	got := docIDs(r.Results)
	if len(got) < 2 || !slices.Equal(got[:2], []string{"r2020", "r2023"}) || slices.Contains(got, "r2024") {
		t.Fatalf("results %v, want r2020 and r2023 first and never r2024", got)
	}
	if r.Results[0].Period != "2020" || r.Results[0].Group != "then" || r.Results[1].Period != "2023" || r.Results[1].Group != "now" {
		t.Fatalf("labels %q/%q %q/%q, want 2020/then 2023/now", r.Results[0].Period, r.Results[0].Group, r.Results[1].Period, r.Results[1].Group)
	}
	strictHits, err := RankStrict(s, Query{Read: read, Vec: unit(0.9, 0.1, 0), AsOf: asOf, Options: o})
	if err != nil || len(strictHits) < 2 || strictHits[0].Chunk.DocID != "r2020" {
		t.Fatalf("strict %v %v, want the same comparison", strictHits, err)
	}
}
