package summarize

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// asOf is the anchor of the tests: its day is 2024-06-30 (UTC), so with NewDays 7 the "new"
// window is [2024-06-24 00:00, 2024-07-01 00:00).
var asOf = time.Date(2024, 6, 30, 15, 0, 0, 0, time.UTC)

// ago is noon UTC, days before asOf's day.
func ago(days int) time.Time { return time.Date(2024, 6, 30-days, 12, 0, 0, 0, time.UTC) }

// blk is block n published at, with a title, text and sources.
func blk(n int, at time.Time, title, text string, sources ...string) evidence.Block {
	id := fmt.Sprintf("d%d", n)
	return evidence.Block{N: n, Snippet: evidence.Snippet(text, 800), Doc: evidence.Doc{
		DocID: id, ChunkID: id + "#0", Title: title, Text: text, Sources: sources, PublishedAt: at,
	}}
}

// scored is b with Doc.Score set.
func scored(b evidence.Block, s float64) evidence.Block { b.Doc.Score = s; return b }

// lines renders claims as "[N] text", N the one block a sentence cites.
func lines(cs []schemas.Claim) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, fmt.Sprintf("[%d] %s", n(c), c.Text))
	}
	return out
}

// n is the block an extractive claim cites: it cites exactly one.
func n(c schemas.Claim) int {
	if len(c.Cites) != 1 {
		return -1
	}
	return c.Cites[0]
}

// with returns the default options changed by f.
func with(f func(*Options)) Options {
	o := DefaultOptions()
	if f != nil {
		f(&o)
	}
	return o
}

func TestDigestSelection(t *testing.T) {
	tests := []struct {
		name           string
		query          string
		blocks         []evidence.Block
		opts           Options
		wantNew        []string
		wantEarlier    []string
		wantTimeline   []string // nil: not checked
		notEnough, low bool     // low: Fallback
	}{
		{
			name:  "relevant beats irrelevant; the best covering one leads",
			query: "key rate inflation",
			blocks: []evidence.Block{blk(1, ago(1), "",
				"The key rate was left unchanged this month. Inflation pushed the key rate to a record high. The weather in the capital was sunny and warm.")},
			opts:        with(nil),
			wantNew:     []string{"[1] Inflation pushed the key rate to a record high.", "[1] The key rate was left unchanged this month."},
			wantEarlier: []string{},
		},
		{
			name:  "higher coverage wins the only slot",
			query: "key rate inflation",
			blocks: []evidence.Block{blk(1, ago(1), "",
				"The key rate was left unchanged this month. Inflation pushed the key rate to a record high. The weather in the capital was sunny and warm.")},
			opts:        with(func(o *Options) { o.MaxSentences = 1 }),
			wantNew:     []string{"[1] Inflation pushed the key rate to a record high."},
			wantEarlier: []string{},
		},
		{
			name:  "rank bonus breaks a coverage tie",
			query: "oil prices",
			blocks: []evidence.Block{
				scored(blk(1, ago(1), "", "Oil prices climbed in early trading on Monday."), 0.2),
				scored(blk(2, ago(2), "", "Oil prices slipped after the OPEC meeting ended."), 0.9),
			},
			opts:        with(func(o *Options) { o.MaxSentences = 1 }),
			wantNew:     []string{"[2] Oil prices slipped after the OPEC meeting ended."},
			wantEarlier: []string{},
		},
		{
			name:  "equal scores: the newer block wins",
			query: "oil prices",
			blocks: []evidence.Block{
				blk(1, ago(1), "", "Oil prices climbed in early trading on Monday."),
				blk(2, ago(2), "", "Oil prices slipped after the OPEC meeting ended."),
			},
			opts:        with(func(o *Options) { o.MaxSentences = 1 }),
			wantNew:     []string{"[1] Oil prices climbed in early trading on Monday."},
			wantEarlier: []string{},
		},
		{
			name:  "equal scores and dates: the lower N wins, whatever the input order",
			query: "oil prices",
			blocks: []evidence.Block{
				blk(2, ago(1), "", "Oil prices slipped after the OPEC meeting ended."),
				blk(1, ago(1), "", "Oil prices climbed in early trading on Monday."),
			},
			opts:        with(func(o *Options) { o.MaxSentences = 1 }),
			wantNew:     []string{"[1] Oil prices climbed in early trading on Monday."},
			wantEarlier: []string{},
		},
		{
			name:  "novelty drops a near-repeat reposted by a second channel",
			query: "ключевая ставка",
			blocks: []evidence.Block{
				blk(1, ago(1).Add(time.Hour), "", "ЦБ повысил ключевую ставку до 18% годовых, сообщает регулятор.", "tg:fast"),
				blk(2, ago(1), "", "ЦБ повысил ключевую ставку до 18% годовых, сообщил регулятор.", "tg:slow"),
				blk(3, ago(2), "", "Аналитики ждали, что ставку сохранят на уровне 16%.", "tg:other"),
			},
			opts:        with(nil),
			wantNew:     []string{"[1] ЦБ повысил ключевую ставку до 18% годовых, сообщает регулятор.", "[3] Аналитики ждали, что ставку сохранят на уровне 16%."},
			wantEarlier: []string{},
		},
		{
			// The same sentence is said once whatever NoveltyMax is (TestNeverSaysASentenceTwice).
			name:  "novelty off keeps a reworded repost",
			query: "ключевая ставка",
			blocks: []evidence.Block{
				blk(1, ago(1).Add(time.Hour), "", "ЦБ повысил ключевую ставку до 18% годовых, сообщает регулятор.", "tg:fast"),
				blk(2, ago(1), "", "Банк России поднял ключевую ставку до 18% годовых.", "tg:slow"),
			},
			opts:        with(func(o *Options) { o.NoveltyMax = 1 }),
			wantNew:     []string{"[1] ЦБ повысил ключевую ставку до 18% годовых, сообщает регулятор.", "[2] Банк России поднял ключевую ставку до 18% годовых."},
			wantEarlier: []string{},
		},
		{
			name:  "MaxPerDoc 2 keeps the first two of equal sentences",
			query: "sanctions",
			blocks: []evidence.Block{blk(1, ago(1), "",
				"New sanctions hit the banking sector first. Sanctions on oil exports follow in July. Metals sanctions were postponed again. Sanctions relief is not on the table.")},
			opts:        with(nil),
			wantNew:     []string{"[1] New sanctions hit the banking sector first.", "[1] Sanctions on oil exports follow in July."},
			wantEarlier: []string{},
		},
		{
			name:  "MaxPerDoc 3",
			query: "sanctions",
			blocks: []evidence.Block{blk(1, ago(1), "",
				"New sanctions hit the banking sector first. Sanctions on oil exports follow in July. Metals sanctions were postponed again. Sanctions relief is not on the table.")},
			opts:        with(func(o *Options) { o.MaxPerDoc = 3 }),
			wantNew:     []string{"[1] New sanctions hit the banking sector first.", "[1] Sanctions on oil exports follow in July.", "[1] Metals sanctions were postponed again."},
			wantEarlier: []string{},
		},
		{
			name:  "MaxSentences caps the total",
			query: "sanctions",
			blocks: []evidence.Block{
				blk(1, ago(1), "", "New sanctions hit the banking sector first."),
				blk(2, ago(2), "", "Sanctions on oil exports follow in July."),
				blk(3, ago(3), "", "Metals sanctions were postponed again."),
			},
			opts:        with(func(o *Options) { o.MaxSentences = 2 }),
			wantNew:     []string{"[1] New sanctions hit the banking sector first.", "[2] Sanctions on oil exports follow in July."},
			wantEarlier: []string{},
		},
		{
			name:  "7-day boundary: from 00:00 six days before A's day is new, a second earlier is not",
			query: "wheat exports",
			blocks: []evidence.Block{
				blk(1, time.Date(2024, 6, 30, 23, 59, 59, 0, time.UTC), "", "Wheat exports reached a seasonal peak on Sunday."),
				blk(2, time.Date(2024, 6, 24, 0, 0, 0, 0, time.UTC), "", "Wheat exports slowed as the port closed for repairs."),
				blk(3, time.Date(2024, 6, 23, 23, 59, 59, 0, time.UTC), "", "Wheat exports quotas were set for the next season."),
				blk(4, ago(40), "", "Wheat exports fell by a fifth after the drought."),
			},
			opts: with(func(o *Options) { o.MaxSentences = 10 }),
			wantNew: []string{
				"[1] Wheat exports reached a seasonal peak on Sunday.",
				"[2] Wheat exports slowed as the port closed for repairs.",
			},
			wantEarlier: []string{
				"[3] Wheat exports quotas were set for the next season.",
				"[4] Wheat exports fell by a fifth after the drought.",
			},
			wantTimeline: []string{
				"[4] Wheat exports fell by a fifth after the drought.",
				"[3] Wheat exports quotas were set for the next season.",
				"[2] Wheat exports slowed as the port closed for repairs.",
				"[1] Wheat exports reached a seasonal peak on Sunday.",
			},
		},
		{
			name:  "NewDays 1: only A's day is new",
			query: "wheat exports",
			blocks: []evidence.Block{
				blk(1, ago(0), "", "Wheat exports reached a seasonal peak on Sunday."),
				blk(2, ago(1), "", "Wheat exports slowed as the port closed for repairs."),
			},
			opts:        with(func(o *Options) { o.NewDays = 1 }),
			wantNew:     []string{"[1] Wheat exports reached a seasonal peak on Sunday."},
			wantEarlier: []string{"[2] Wheat exports slowed as the port closed for repairs."},
		},
		{
			name:  "timeline ascending, sentences of one block in text order",
			query: "gas transit",
			blocks: []evidence.Block{
				blk(1, ago(2), "", "Gas transit talks resumed in Vienna. Gas transit volumes were unchanged."),
				blk(2, ago(30), "", "Gas transit fees were raised by ten percent."),
				blk(3, ago(9), "", "Gas transit through the pipeline stopped overnight."),
			},
			opts: with(nil),
			wantNew: []string{
				"[1] Gas transit talks resumed in Vienna.",
				"[1] Gas transit volumes were unchanged.",
			},
			wantEarlier: []string{
				"[3] Gas transit through the pipeline stopped overnight.",
				"[2] Gas transit fees were raised by ten percent.",
			},
			wantTimeline: []string{
				"[2] Gas transit fees were raised by ten percent.",
				"[3] Gas transit through the pipeline stopped overnight.",
				"[1] Gas transit talks resumed in Vienna.",
				"[1] Gas transit volumes were unchanged.",
			},
		},
		{
			name:  "NotEnough when no sentence shares a query term",
			query: "semiconductor tariffs",
			blocks: []evidence.Block{
				blk(1, ago(1), "Weather", "Sunny skies are expected over the capital all week."),
			},
			opts:        with(nil),
			wantNew:     []string{},
			wantEarlier: []string{},
			notEnough:   true,
		},
		{
			name:        "NotEnough with no blocks",
			query:       "anything at all",
			opts:        with(nil),
			wantNew:     []string{},
			wantEarlier: []string{},
			notEnough:   true,
		},
		{
			name:        "fallback when nothing reaches MinOverlap",
			query:       "copper nickel zinc aluminium cobalt lithium tin lead iron silver gold",
			blocks:      []evidence.Block{blk(1, ago(10), "", "Gold hit a record as investors sought safety.")},
			opts:        with(nil),
			wantNew:     []string{},
			wantEarlier: []string{"[1] Gold hit a record as investors sought safety."},
			low:         true,
		},
		{
			name:        "MinOverlap 0.05 makes the same sentence relevant",
			query:       "copper nickel zinc aluminium cobalt lithium tin lead iron silver gold",
			blocks:      []evidence.Block{blk(1, ago(10), "", "Gold hit a record as investors sought safety.")},
			opts:        with(func(o *Options) { o.MinOverlap = 0.05 }),
			wantNew:     []string{},
			wantEarlier: []string{"[1] Gold hit a record as investors sought safety."},
		},
		{
			name:  "title is a candidate, short fragments are not",
			query: "Fed rates",
			blocks: []evidence.Block{blk(1, ago(1), "Fed holds rates",
				"Rates: flat. Officials in Washington signalled patience on Wednesday.")},
			opts:        with(nil),
			wantNew:     []string{"[1] Fed holds rates"},
			wantEarlier: []string{},
		},
		{
			name:  "what is new is not crowded out by older sentences that cover more of the query",
			query: "central bank key rate decision",
			blocks: []evidence.Block{
				blk(1, ago(1), "", "The governor said the key rate has probably peaked."),
				blk(2, ago(20), "", "The central bank key rate decision: raised to 8 percent."),
				blk(3, ago(40), "", "The central bank key rate decision: raised to 7.25 percent after inflation rose."),
			},
			opts:        with(func(o *Options) { o.MaxSentences = 2 }),
			wantNew:     []string{"[1] The governor said the key rate has probably peaked."},
			wantEarlier: []string{"[2] The central bank key rate decision: raised to 8 percent."},
		},
		{
			name:  "a title its lead sentence says again gives way to it",
			query: "Fed rates",
			blocks: []evidence.Block{blk(1, ago(1), "Fed holds rates steady",
				"Fed holds rates steady\nThe Fed kept rates steady for a seventh meeting.")},
			opts:        with(func(o *Options) { o.NoveltyMax = 1 }),
			wantNew:     []string{"[1] The Fed kept rates steady for a seventh meeting."},
			wantEarlier: []string{},
		},
		{
			name:  "a chunk starting mid-sentence loses its first piece",
			query: "rates",
			blocks: []evidence.Block{blk(1, ago(1), "",
				"raise rates in June, the governor said. Markets now price two rate cuts this year.")},
			opts:        with(nil),
			wantNew:     []string{"[1] Markets now price two rate cuts this year."},
			wantEarlier: []string{},
		},
		{
			name:        "footnote marks are removed",
			query:       "GDP growth",
			blocks:      []evidence.Block{blk(3, ago(1), "", "GDP growth slowed to 1.2% in the quarter.[12] [4]")},
			opts:        with(nil),
			wantNew:     []string{"[3] GDP growth slowed to 1.2% in the quarter."},
			wantEarlier: []string{},
		},
		{
			name:        "snippet used when the text is empty",
			query:       "GDP growth",
			blocks:      []evidence.Block{{N: 1, Snippet: "GDP growth slowed in the first quarter.", Doc: evidence.Doc{PublishedAt: ago(1)}}},
			opts:        with(nil),
			wantNew:     []string{"[1] GDP growth slowed in the first quarter."},
			wantEarlier: []string{},
		},
		{
			name:  "long sentences are cut at a word with …",
			query: "budget",
			blocks: []evidence.Block{blk(1, ago(1), "",
				"The budget deficit widened sharply in May as spending on defence rose.")},
			opts:        with(func(o *Options) { o.MaxSentenceChars = 30 }),
			wantNew:     []string{"[1] The budget deficit widened…"},
			wantEarlier: []string{},
		},
		{
			name:  "a query of only stop and cue words takes every sentence",
			query: "what are the latest news?",
			blocks: []evidence.Block{
				blk(1, ago(1), "", "Oil prices climbed in early trading on Monday."),
				blk(2, ago(20), "", "The parliament passed the budget in a second reading."),
			},
			opts:        with(nil),
			wantNew:     []string{"[1] Oil prices climbed in early trading on Monday."},
			wantEarlier: []string{"[2] The parliament passed the budget in a second reading."},
		},
		{
			name:  "Russian: ключевая ставка across inflections",
			query: "Какая сейчас ключевая ставка ЦБ?",
			blocks: []evidence.Block{
				blk(1, ago(2), "Банк России сохранил ключевую ставку",
					"Совет директоров Банка России сохранил ключевую ставку на уровне 16% годовых. Следующее заседание пройдёт 26 июля."),
				blk(2, ago(12), "", "Рубль укрепился к доллару на торгах Мосбиржи. Ставки по вкладам растут второй месяц."),
				blk(3, ago(45), "", "В декабре ЦБ повысил ключевую ставку до 16%, т.е. сразу на 100 базисных пунктов. Инфляция ускорилась."),
			},
			opts: with(nil),
			wantNew: []string{
				"[1] Совет директоров Банка России сохранил ключевую ставку на уровне 16% годовых.",
			},
			wantEarlier: []string{
				"[2] Ставки по вкладам растут второй месяц.",
				"[3] В декабре ЦБ повысил ключевую ставку до 16%, т.е. сразу на 100 базисных пунктов.",
			},
		},
		{
			name:  "English: the Fed's rate decision",
			query: "How did the Fed change interest rates?",
			blocks: []evidence.Block{
				blk(1, ago(3), "Fed leaves interest rates unchanged",
					"The U.S. Federal Reserve left interest rates at 5.25-5.5% on Wednesday. Mr. Powell said cuts were not yet warranted. Stocks closed higher."),
				blk(2, ago(100), "", "The Fed raised interest rates by a quarter point in July. It was the eleventh hike."),
				blk(3, ago(4), "", "The match was played in heavy rain on Tuesday."),
			},
			opts: with(nil),
			wantNew: []string{
				"[1] Fed leaves interest rates unchanged",
				"[1] The U.S. Federal Reserve left interest rates at 5.25-5.5% on Wednesday.",
			},
			wantEarlier: []string{"[2] The Fed raised interest rates by a quarter point in July."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Brief(tt.query, tt.blocks, asOf, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(s.New); !reflect.DeepEqual(got, tt.wantNew) {
				t.Errorf("New\n got %q\nwant %q", got, tt.wantNew)
			}
			if got := lines(s.Earlier); !reflect.DeepEqual(got, tt.wantEarlier) {
				t.Errorf("Earlier\n got %q\nwant %q", got, tt.wantEarlier)
			}
			if tt.wantTimeline != nil {
				if got := lines(s.Timeline); !reflect.DeepEqual(got, tt.wantTimeline) {
					t.Errorf("Timeline\n got %q\nwant %q", got, tt.wantTimeline)
				}
			}
			if len(s.Timeline) != len(s.New)+len(s.Earlier) {
				t.Errorf("Timeline has %d sentences, New+Earlier %d", len(s.Timeline), len(s.New)+len(s.Earlier))
			}
			if fallback := s.Note == FallbackNote; s.NotEnough != tt.notEnough || fallback != tt.low {
				t.Errorf("NotEnough, Fallback = %v, %v (note %q); want %v, %v", s.NotEnough, fallback, s.Note, tt.notEnough, tt.low)
			}
			if tt.notEnough && len(tt.blocks) > 0 && s.Note != NothingSaidNote {
				t.Errorf("Note = %q, want %q", s.Note, NothingSaidNote)
			}
			if !tt.low && !tt.notEnough && s.Note != "" {
				t.Errorf("Note = %q, want none", s.Note)
			}
			if s.Method != "extractive" {
				t.Errorf("Method = %q", s.Method)
			}
		})
	}
}

func TestDigestClaimFields(t *testing.T) {
	b := scored(blk(4, ago(2), "", "Copper output rose at the largest mine.", "tg:a", "tg:b"), 3)
	s, err := Brief("copper", []evidence.Block{b}, asOf, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := schemas.Claim{Date: ago(2), Text: "Copper output rose at the largest mine.", Cites: []int{4}}
	if len(s.New) != 1 || !reflect.DeepEqual(s.New[0], want) {
		t.Fatalf("New = %+v, want [%+v]", s.New, want)
	}
	if day := time.Date(2024, 6, 30, 0, 0, 0, 0, time.UTC); !s.AsOf.Equal(day) || s.NewDays != 7 || s.Method != Method {
		t.Errorf("AsOf, NewDays, Method = %v, %d, %q; want %v, 7, %q", s.AsOf, s.NewDays, s.Method, day, Method)
	}
	e, err := Evolve("copper", nil, []evidence.Block{b}, asOf, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Now) != 1 || !reflect.DeepEqual(e.Now[0], want) || e.NewDays != 0 || len(e.New)+len(e.Earlier)+len(e.Timeline) != 0 {
		t.Errorf("Evolve: %+v", e)
	}
}

func TestErrors(t *testing.T) {
	ok := blk(1, time.Date(2024, 6, 30, 23, 59, 59, 0, time.UTC), "", "Anything at all goes here today.")
	tests := []struct {
		name   string
		blocks []evidence.Block
		asOf   time.Time
		opts   Options
		want   error // nil: no error; errAny: any error
	}{
		{"last second of A's day is fine", []evidence.Block{ok}, asOf, DefaultOptions(), nil},
		{"next day is a leak", []evidence.Block{ok, blk(2, time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC), "", "x")}, asOf, DefaultOptions(), ErrFuture},
		{"leak in another zone", []evidence.Block{blk(1, time.Date(2024, 7, 1, 2, 0, 0, 0, time.FixedZone("MSK", 3*3600)), "", "x")},
			asOf, DefaultOptions(), nil}, // 2024-06-30 23:00 UTC
		{"zero as-of", []evidence.Block{ok}, time.Time{}, DefaultOptions(), ErrNoAsOf},
		{"duplicate N", []evidence.Block{ok, blk(1, ago(3), "", "x")}, asOf, DefaultOptions(), ErrBlockNumber},
		{"N zero", []evidence.Block{blk(0, ago(3), "", "x")}, asOf, DefaultOptions(), ErrBlockNumber},
		{"bad options", nil, asOf, with(func(o *Options) { o.MaxSentences = 0 }), errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Brief("q", tt.blocks, tt.asOf, tt.opts)
			checkErr(t, "Brief", err, tt.want)
			_, err = Evolve("q", tt.blocks, nil, tt.asOf, tt.opts)
			checkErr(t, "Evolve", err, tt.want)
		})
	}
}

var errAny = errors.New("any error")

func checkErr(t *testing.T, what string, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Errorf("%s: unexpected error %v", what, err)
	case want == errAny && err == nil, want != nil && want != errAny && !errors.Is(err, want):
		t.Errorf("%s: error %v, want %v", what, err, want)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		f    func(*Options)
		ok   bool
	}{
		{"default", nil, true},
		{"max sentences 0", func(o *Options) { o.MaxSentences = 0 }, false},
		{"new days 0", func(o *Options) { o.NewDays = 0 }, true},
		{"new days -1", func(o *Options) { o.NewDays = -1 }, false},
		{"max per doc 0", func(o *Options) { o.MaxPerDoc = 0 }, false},
		{"min overlap 0", func(o *Options) { o.MinOverlap = 0 }, true},
		{"min overlap 1.5", func(o *Options) { o.MinOverlap = 1.5 }, false},
		{"min overlap NaN", func(o *Options) { o.MinOverlap = math.NaN() }, false},
		{"novelty 1", func(o *Options) { o.NoveltyMax = 1 }, true},
		{"novelty -0.1", func(o *Options) { o.NoveltyMax = -0.1 }, false},
		{"chars 0", func(o *Options) { o.MaxSentenceChars = 0 }, false},
		{"rank weight 0", func(o *Options) { o.RankWeight = 0 }, true},
		{"rank weight -1", func(o *Options) { o.RankWeight = -1 }, false},
		{"rank weight NaN", func(o *Options) { o.RankWeight = math.NaN() }, false},
		{"rank weight +Inf", func(o *Options) { o.RankWeight = math.Inf(1) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := with(tt.f).Validate(); (err == nil) != tt.ok {
				t.Errorf("Validate() = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestEvolve(t *testing.T) {
	old := []evidence.Block{
		blk(5, ago(400), "", "The key rate was cut to 7.5% to support lending."),
		blk(4, ago(380), "", "The key rate stayed at 7.5% through the spring."),
		blk(6, ago(420), "", "Football season opened with a derby in the capital."),
	}
	recent := []evidence.Block{
		blk(2, ago(10), "", "The key rate was raised to 16% to fight inflation."),
		blk(1, ago(2), "", "The key rate is expected to stay at 16% until autumn."),
	}
	tests := []struct {
		name            string
		then, now       []evidence.Block
		opts            Options
		wantThen        []string
		wantNow         []string
		notEnough, weak bool
	}{
		{
			name: "then oldest first, now freshest first", then: old, now: recent, opts: with(nil),
			wantThen: []string{"[5] The key rate was cut to 7.5% to support lending.", "[4] The key rate stayed at 7.5% through the spring."},
			wantNow:  []string{"[1] The key rate is expected to stay at 16% until autumn.", "[2] The key rate was raised to 16% to fight inflation."},
		},
		{
			name: "each group gets half of MaxSentences rounded up", then: old, now: recent,
			opts:     with(func(o *Options) { o.MaxSentences = 1 }),
			wantThen: []string{"[4] The key rate stayed at 7.5% through the spring."},
			wantNow:  []string{"[1] The key rate is expected to stay at 16% until autumn."},
		},
		{
			name: "empty then", then: nil, now: recent, opts: with(nil),
			wantThen: []string{},
			wantNow:  []string{"[1] The key rate is expected to stay at 16% until autumn.", "[2] The key rate was raised to 16% to fight inflation."},
		},
		{
			name: "empty now", then: old, now: nil, opts: with(nil),
			wantThen: []string{"[5] The key rate was cut to 7.5% to support lending.", "[4] The key rate stayed at 7.5% through the spring."},
			wantNow:  []string{},
		},
		{
			name: "nothing relevant then", then: old[2:], now: recent, opts: with(nil),
			wantThen: []string{},
			wantNow:  []string{"[1] The key rate is expected to stay at 16% until autumn.", "[2] The key rate was raised to 16% to fight inflation."},
		},
		{
			name: "both empty", opts: with(nil), wantThen: []string{}, wantNow: []string{}, notEnough: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Evolve("how has the key rate changed", tt.then, tt.now, asOf, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(e.Then); !reflect.DeepEqual(got, tt.wantThen) {
				t.Errorf("Then\n got %q\nwant %q", got, tt.wantThen)
			}
			if got := lines(e.Now); !reflect.DeepEqual(got, tt.wantNow) {
				t.Errorf("Now\n got %q\nwant %q", got, tt.wantNow)
			}
			if fallback := e.Note == FallbackNote; e.NotEnough != tt.notEnough || fallback != tt.weak || e.Method != Method {
				t.Errorf("NotEnough, Fallback, Method = %v, %v, %q", e.NotEnough, fallback, e.Method)
			}
		})
	}
	if _, err := Evolve("q", old, []evidence.Block{blk(5, ago(1), "", "x")}, asOf, DefaultOptions()); !errors.Is(err, ErrBlockNumber) {
		t.Errorf("a number in both groups: error %v, want ErrBlockNumber", err)
	}
}

// goldenBlocks is a small context: a decision, its repost, a follow-up, an older preview and
// noise.
var goldenBlocks = []evidence.Block{
	scored(blk(1, ago(2), "Central bank holds key rate at 16%",
		"Analysts had expected a hold. Inflation slowed to 8.3% in May, the bank said.", "tg:cb_news"), 0.9),
	scored(blk(2, ago(2).Add(-time.Hour), "", "Central bank holds key rate at 16% — via @cb_news", "tg:repost"), 0.85),
	scored(blk(3, ago(5), "", "Banks raised deposit rates after the key rate decision.", "tg:banks"), 0.5),
	scored(blk(4, ago(20), "Key rate decision due next week",
		"Mr. Ivanov expects the key rate to stay at 16%. The U.S. dollar fell 1.5% against the rouble.",
		"https://example.com/preview"), 0.6),
	scored(blk(5, ago(58), "", "Weather: sunny skies over the capital all week long."), 0.1),
}

// goldenBrief is goldenBlocks summarized for "key rate decision": each section's claims as
// "YYYY-MM-DD [N] text". The best ranked block's title leads "new" (coverage 2/3 + rank 1
// beats the deposit-rate sentence's 3/3 + rank 0.5).
var goldenBrief = map[string][]string{
	"new": {
		"2024-06-28 [1] Central bank holds key rate at 16%",
		"2024-06-25 [3] Banks raised deposit rates after the key rate decision.",
	},
	"earlier": {
		"2024-06-10 [4] Key rate decision due next week",
		"2024-06-10 [4] Mr. Ivanov expects the key rate to stay at 16%.",
	},
	"timeline": {
		"2024-06-10 [4] Key rate decision due next week",
		"2024-06-10 [4] Mr. Ivanov expects the key rate to stay at 16%.",
		"2024-06-25 [3] Banks raised deposit rates after the key rate decision.",
		"2024-06-28 [1] Central bank holds key rate at 16%",
	},
}

func TestGoldenBrief(t *testing.T) {
	s, err := Brief("key rate decision", goldenBlocks, asOf, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	dated := func(cs []schemas.Claim) []string {
		out := []string{}
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s [%d] %s", c.Date.UTC().Format(evidence.DateLayout), n(c), c.Text))
		}
		return out
	}
	got := map[string][]string{"new": dated(s.New), "earlier": dated(s.Earlier), "timeline": dated(s.Timeline)}
	if !reflect.DeepEqual(got, goldenBrief) {
		t.Errorf("Brief:\n%q\nwant:\n%q", got, goldenBrief)
	}
	if s.NotEnough || s.Note != "" || s.Then != nil || s.Now != nil {
		t.Errorf("NotEnough %v, Note %q, Then %v, Now %v", s.NotEnough, s.Note, s.Then, s.Now)
	}
}

// randomBlocks makes up to 12 blocks of random English and Russian sentences, with
// abbreviations, decimals, quotes, footnote marks and line breaks, published in the 60 days up
// to A's day, numbered 1..n in a random order.
func randomBlocks(r *rand.Rand) []evidence.Block {
	words := strings.Fields(`key rate rates inflation bank banks central Fed oil prices sanctions wheat
		U.S. Mr. Dr. J. 3.5% 16% 1.2 "quoted" «цитата» [7] e.g. т.е. г. ключевая ставка ставку
		ставки ЦБ банк инфляция цены рубль нефть санкции экспорт пшеница the a of и в на 2024 📈 —`)
	sentence := func() string {
		n := 1 + r.IntN(14)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		if c := ws[0][0]; r.IntN(2) == 0 && c >= 'a' && c <= 'z' {
			ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
		}
		return strings.Join(ws, " ") + []string{".", "!", "?", "…", "", ".\n"}[r.IntN(6)]
	}
	n := r.IntN(13)
	nums := r.Perm(n)
	out := make([]evidence.Block, n)
	for i := range out {
		var text []string
		for range r.IntN(8) {
			text = append(text, sentence())
		}
		title := ""
		if r.IntN(2) == 0 {
			title = strings.TrimSuffix(sentence(), "\n")
		}
		at := asOf.Truncate(24 * time.Hour).Add(24*time.Hour - time.Second).Add(-time.Duration(r.Int64N(int64(60 * 24 * time.Hour))))
		out[i] = scored(blk(nums[i]+1, at, title, strings.Join(text, " "), fmt.Sprintf("src%d", r.IntN(3))), r.Float64())
	}
	return out
}

// citeRe is a bracketed number, which a reader would take for a citation.
var citeRe = regexp.MustCompile(`\[\s*\d+\s*\]`)

// checkOutput checks the claims against the blocks: each cites one block and is dated with
// its publication time, no bracketed number is left in a text to read as a citation, and
// sentences are no longer than o allows.
func checkOutput(t *testing.T, cs []schemas.Claim, blocks []evidence.Block, o Options) {
	t.Helper()
	byN := map[int]evidence.Block{}
	for _, b := range blocks {
		byN[b.N] = b
	}
	for _, c := range cs {
		if utf8.RuneCountInString(c.Text) > o.MaxSentenceChars {
			t.Errorf("sentence of %d runes > %d: %q", utf8.RuneCountInString(c.Text), o.MaxSentenceChars, c.Text)
		}
		if b, ok := byN[n(c)]; !ok || !b.Doc.PublishedAt.Equal(c.Date) {
			t.Errorf("claim citing %v dated %v: no such block", c.Cites, c.Date)
		}
		if m := citeRe.FindString(c.Text); m != "" {
			t.Errorf("claim text has %s, which would read as a citation: %q", m, c.Text)
		}
	}
}

func TestProperties(t *testing.T) {
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 7))
		blocks := randomBlocks(r)
		o := Options{
			MaxSentences: 1 + r.IntN(10), NewDays: r.IntN(15), MaxPerDoc: 1 + r.IntN(3),
			MinOverlap: r.Float64() / 2, NoveltyMax: r.Float64(), MaxSentenceChars: 5 + r.IntN(80),
			RankWeight: r.Float64() / 5,
		}
		query := []string{"key rate", "ключевая ставка", "oil prices inflation", "", "nothing matches this", "Fed"}[r.IntN(6)]
		name := fmt.Sprintf("seed %d", seed)

		s, err := Brief(query, blocks, asOf, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		md := fmt.Sprintf("%+v", s)
		checkOutput(t, s.Timeline, blocks, o)

		// Same input, same brief, whatever the order of the blocks.
		shuffled := slices.Clone(blocks)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		s2, err := Brief(query, shuffled, asOf, o)
		if err != nil || !reflect.DeepEqual(s2, s) {
			t.Fatalf("%s: not deterministic (err %v)\n%+v\n----\n%+v", name, err, s, s2)
		}

		if len(s.Timeline) > o.MaxSentences || len(s.Timeline) != len(s.New)+len(s.Earlier) {
			t.Errorf("%s: %d in timeline, %d new, %d earlier, max %d", name, len(s.Timeline), len(s.New), len(s.Earlier), o.MaxSentences)
		}
		perDoc := map[int]int{}
		for _, x := range s.Timeline {
			if perDoc[n(x)]++; perDoc[n(x)] > o.MaxPerDoc {
				t.Errorf("%s: %d sentences from [%d], max %d", name, perDoc[n(x)], n(x), o.MaxPerDoc)
			}
		}
		byDate := func(asc bool) func(a, b schemas.Claim) int {
			return func(a, b schemas.Claim) int {
				if asc {
					return a.Date.Compare(b.Date)
				}
				return b.Date.Compare(a.Date)
			}
		}
		// The lead comes first (New[0], or Earlier[0] when nothing is new), the rest freshest first.
		rest := func(cs []schemas.Claim, led bool) []schemas.Claim {
			if led && len(cs) > 0 {
				return cs[1:]
			}
			return cs
		}
		if !slices.IsSortedFunc(s.Timeline, byDate(true)) || !slices.IsSortedFunc(rest(s.New, true), byDate(false)) ||
			!slices.IsSortedFunc(rest(s.Earlier, len(s.New) == 0), byDate(false)) {
			t.Errorf("%s: sections out of order\n%s", name, md)
		}
		newFrom := time.Date(2024, 6, 31-o.NewDays, 0, 0, 0, 0, time.UTC)
		for _, x := range s.New {
			if x.Date.Before(newFrom) {
				t.Errorf("%s: [%d] of %v is in New, window starts %v", name, n(x), x.Date, newFrom)
			}
		}
		for _, x := range s.Earlier {
			if !x.Date.Before(newFrom) {
				t.Errorf("%s: [%d] of %v is in Earlier, window starts %v", name, n(x), x.Date, newFrom)
			}
		}

		cut := r.IntN(len(blocks) + 1)
		e, err := Evolve(query, blocks[:cut], blocks[cut:], asOf, o)
		if err != nil {
			t.Fatalf("%s: Evolve: %v", name, err)
		}
		emd := fmt.Sprintf("%+v", e)
		checkOutput(t, slices.Concat(e.Then, e.Now), blocks, o)
		if e2, _ := Evolve(query, blocks[:cut], blocks[cut:], asOf, o); !reflect.DeepEqual(e2, e) {
			t.Fatalf("%s: Evolve not deterministic", name)
		}
		if !slices.IsSortedFunc(e.Then, byDate(true)) || !slices.IsSortedFunc(e.Now, byDate(false)) {
			t.Errorf("%s: Evolve sections out of order\n%s", name, emd)
		}
	}
}

func BenchmarkDigest(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var blocks []evidence.Block
	for len(blocks) < 30 {
		for _, x := range randomBlocks(r) {
			if len(blocks) < 30 {
				x.N = len(blocks) + 1
				blocks = append(blocks, x)
			}
		}
	}
	o := DefaultOptions()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Brief("key rate inflation ключевая ставка", blocks, asOf, o); err != nil {
			b.Fatal(err)
		}
	}
}

// withCos is b with the dense cosine of its document to the query.
func withCos(b evidence.Block, c float64) evidence.Block { b.Doc.Cosine = c; return b }

// TestLeadAndFloor checks what a summary leads with: the most relevant fresh sentence, never
// one below the relevance floor, and the latest on-topic one when nothing is new; and that no
// sentence is said twice.
func TestLeadAndFloor(t *testing.T) {
	decision := withCos(scored(blk(1, ago(3), "", "The central bank held the key rate at 16% on Friday."), 0.9), 0.90)
	calendar := withCos(scored(blk(2, ago(1), "", "Week ahead: key rate decisions in Chile, Poland and Turkey, CPI in the U.S."), 0.8), 0.80)
	follow := withCos(scored(blk(3, ago(2), "", "Deposit rates rose after the key rate decision, banks said."), 0.5), 0.88)
	older := withCos(scored(blk(4, ago(20), "", "The key rate was raised to 16% in a surprise move."), 0.7), 0.89)
	oldest := withCos(scored(blk(5, ago(40), "", "Analysts expect the key rate to peak at 16%."), 0.6), 0.87)
	repost := withCos(scored(blk(6, ago(3), "", "BREAKING: The central bank held the key rate at 16% on Friday, its statement said."), 0.85), 0.90)
	tests := []struct {
		name      string
		blocks    []evidence.Block
		opts      Options
		wantNew   []string
		wantEarly []string
	}{
		{"the most relevant fresh sentence leads, the others follow freshest first; a calendar post below the floor is not said",
			[]evidence.Block{calendar, follow, decision, older}, with(nil),
			[]string{"[1] The central bank held the key rate at 16% on Friday.", "[3] Deposit rates rose after the key rate decision, banks said."},
			[]string{"[4] The key rate was raised to 16% in a surprise move."}},
		{"no floor: the calendar post, which has every word of the query, leads (what the floor is for)",
			[]evidence.Block{calendar, follow, decision, older}, with(func(o *Options) { o.CosineSlack = 1 }),
			[]string{"[2] Week ahead: key rate decisions in Chile, Poland and Turkey, CPI in the U.S.", "[3] Deposit rates rose after the key rate decision, banks said.", "[1] The central bank held the key rate at 16% on Friday."},
			[]string{"[4] The key rate was raised to 16% in a surprise move."}},
		{"nothing new on topic: the latest on-topic sentence leads the earlier ones",
			[]evidence.Block{calendar, oldest, older}, with(nil),
			[]string{},
			[]string{"[4] The key rate was raised to 16% in a surprise move.", "[5] Analysts expect the key rate to peak at 16%."}},
		{"a repost that says the lead again, with more, is not said twice",
			[]evidence.Block{decision, repost}, with(nil),
			[]string{"[1] The central bank held the key rate at 16% on Friday."},
			[]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Brief("key rate decision", tt.blocks, asOf, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(s.New); !reflect.DeepEqual(got, tt.wantNew) {
				t.Errorf("New\n got %q\nwant %q", got, tt.wantNew)
			}
			if got := lines(s.Earlier); !reflect.DeepEqual(got, tt.wantEarly) {
				t.Errorf("Earlier\n got %q\nwant %q", got, tt.wantEarly)
			}
		})
	}

	// Evolution: a "now" side with nothing above the floor is empty, and the note says so.
	then := []evidence.Block{withCos(blk(7, ago(400), "", "The key rate was cut to 7.5% to support lending."), 0.9)}
	now := []evidence.Block{withCos(blk(8, ago(2), "", "Key rate decisions in Chile and Poland this week."), 0.8)}
	e, err := Evolve("how has the key rate changed", then, now, asOf, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Now) != 0 || len(e.Then) != 1 || e.Note != NothingRecentNote {
		t.Errorf("Evolve: then %d, now %d, note %q; want 1, 0, %q", len(e.Then), len(e.Now), e.Note, NothingRecentNote)
	}
}

// TestPastedPost: a post pasted as the question is found again in the corpus at a cosine near
// 1. It must not set the relevance floor, and a follow-up that holds only a few of its many
// terms still covers it (CoverageTerms), so the follow-up is said as new.
func TestPastedPost(t *testing.T) {
	const pasted = "The Northern Railway sold its freight terminal in Riga to a Dutch logistics group for 40 million euros, " +
		"the company said, citing falling transit volumes and new customs rules at the border."
	post := withCos(scored(blk(1, ago(200), "", pasted), 0.9), 0.98)
	follow := withCos(scored(blk(2, ago(2), "", "The Riga freight terminal cut 120 jobs after its sale, the Dutch owner said."), 0.5), 0.88)
	if q := len(textnorm.Terms(pasted)); q < 16 {
		t.Fatalf("the pasted post has %d terms; the test needs a long one", q)
	}
	tests := []struct {
		name    string
		opts    Options
		wantNew []string
	}{
		{"the follow-up is new", with(nil), []string{"[2] The Riga freight terminal cut 120 jobs after its sale, the Dutch owner said."}},
		{"every term counted: the follow-up covers too little to be said as new", with(func(o *Options) { o.CoverageTerms = 0 }), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Brief(pasted, []evidence.Block{post, follow}, asOf, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(s.New); !reflect.DeepEqual(got, tt.wantNew) {
				t.Errorf("New\n got %q\nwant %q", got, tt.wantNew)
			}
		})
	}
	// The copy left out, the floor is the follow-up's cosine less the slack; with the copy it
	// would be 0.98 − 0.06 and nothing but the post itself could be new.
	q := textnorm.Terms(pasted)
	if got, want := cosineFloor(DefaultOptions(), q, []evidence.Block{post, follow}), 0.88-DefaultOptions().CosineSlack; math.Abs(got-want) > 1e-9 {
		t.Errorf("cosineFloor = %v, want %v", got, want)
	}
}

// TestEvolveNowSaysTheFreshest: the "now" side says its freshest on-topic fact even when
// older recent ones score higher, as Brief says its freshest new facts.
func TestEvolveNowSaysTheFreshest(t *testing.T) {
	then := []evidence.Block{blk(1, ago(400), "", "The key rate was cut to 7.5% to support lending.")}
	now := []evidence.Block{
		scored(blk(2, ago(40), "", "The key rate was raised to 16% as the key rate decision surprised markets. The key rate decision was unanimous."), 1),
		scored(blk(3, ago(30), "", "The key rate stays at 16% after the key rate decision. The key rate decision was expected."), 0.9),
		scored(blk(4, ago(1), "", "Deposit rates followed the key rate down."), 0),
	}
	e, err := Evolve("key rate decision", then, now, asOf, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Now) == 0 || n(e.Now[0]) != 4 {
		t.Errorf("Now = %q, want the freshest on-topic fact [4] first", lines(e.Now))
	}
}

func TestDangling(t *testing.T) {
	tests := []struct {
		name string
		s    string
		want bool
	}{
		{"ru pronoun subject", "Она считает, что ставка останется высокой.", true},
		{"ru lead-in then pronoun", "Также он сообщил, что вопрос санкций будет решаться совместно.", true},
		{"ru by his words", "По его мнению, рынок достиг дна.", true},
		{"ru by the data of a named source", "По данным Росстата, инфляция замедлилась.", false},
		{"ru at the same time, then a noun", "При этом рекламодатели не спешат переносить бюджеты.", false},
		{"ru named subject", "Набиуллина заявила, что ставка останется высокой.", false},
		{"en pronoun subject", "He also said the plant would close in May.", true},
		{"en according to her", "According to her, prices will rise.", true},
		{"en this year is not a pronoun here", "This year the harvest was late.", false},
		{"en named subject", "The ministry said the plant would close.", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dangling(tt.s); got != tt.want {
				t.Errorf("dangling(%q) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}

// TestDanglingSentenceStandsWithItsAntecedent: «Она считает…» is said with the sentence that
// names who "she" is, or not at all when the two are too long together.
func TestDanglingSentenceStandsWithItsAntecedent(t *testing.T) {
	b := blk(1, ago(1), "", "Эльвира Набиуллина выступила в Госдуме в среду. Она считает, что ключевая ставка останется высокой до конца года.")
	s, err := Brief("ключевая ставка", []evidence.Block{b}, asOf, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[1] Эльвира Набиуллина выступила в Госдуме в среду. Она считает, что ключевая ставка останется высокой до конца года."}
	if got := lines(s.New); !reflect.DeepEqual(got, want) {
		t.Errorf("New\n got %q\nwant %q", got, want)
	}
	s, err = Brief("ключевая ставка", []evidence.Block{b}, asOf, with(func(o *Options) { o.MaxSentenceChars = 80 }))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.New) != 0 {
		t.Errorf("too long together: New = %q, want nothing", lines(s.New))
	}
}

// TestNeverSaysASentenceTwice: two blocks that carry the same sentence (a repost under another
// channel, with a "СРОЧНО:" mark and other punctuation) are said once, in a digest even with
// novelty off (NoveltyMax 1), and in an evolution whose "then" and "now" sides both hold it.
func TestNeverSaysASentenceTwice(t *testing.T) {
	putin := "Путин заявил, что инфляция в России замедляется и ставка ЦБ может снижаться."
	a := withCos(scored(blk(1, ago(2), "", putin, "kremlin-wire"), 0.9), 0.9)
	b := withCos(scored(blk(2, ago(1), "", "СРОЧНО: путин заявил, что инфляция в России замедляется — и ставка ЦБ может снижаться!", "fin-news"), 0.8), 0.9)
	c := withCos(scored(blk(3, ago(3), "", "Годовая инфляция в России замедлилась до 8,8%, сообщил Росстат.", "rosstat"), 0.7), 0.9)
	s, err := Brief("инфляция в России", []evidence.Block{a, b, c}, asOf, with(func(o *Options) { o.NoveltyMax = 1 }))
	if err != nil {
		t.Fatal(err)
	}
	said := 0
	for _, cl := range s.New {
		if strings.Contains(strings.ToLower(cl.Text), "путин заявил") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("Brief says the Putin line %d times, want once: %q", said, lines(s.New))
	}

	then := []evidence.Block{withCos(scored(blk(4, ago(60), "", putin, "kremlin-wire"), 0.9), 0.9),
		withCos(scored(blk(5, ago(61), "", "Инфляция в России ускорилась до 9,9% в феврале.", "rosstat"), 0.8), 0.9)}
	now := []evidence.Block{withCos(scored(blk(6, ago(1), "", "Срочно: "+putin, "fin-news"), 0.9), 0.9),
		withCos(scored(blk(7, ago(2), "", "Инфляция в России замедлилась до 8,8% в июне.", "rosstat"), 0.8), 0.9)}
	e, err := Evolve("как менялась инфляция в России", then, now, asOf, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	said = 0
	for _, cl := range slices.Concat(e.Then, e.Now) {
		if strings.Contains(strings.ToLower(cl.Text), "путин заявил") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("Evolve says the Putin line %d times, want once: then %q, now %q", said, lines(e.Then), lines(e.Now))
	}
}

// TestCalendarNeverLeads: a channel's calendar of the month's releases names the query's words
// and is the freshest post, yet the topic's decision leads: as new when it is within the "new"
// window, else as the latest earlier claim, with nothing said as new. In Russian (the
// tg-finance-ru digest as of 2025-08-01) and in English; a post that only mentions a calendar
// further in is not a calendar.
func TestCalendarNeverLeads(t *testing.T) {
	asOf := time.Date(2025, 8, 1, 12, 0, 0, 0, time.UTC)
	at := func(d string) time.Time { x, _ := time.Parse(time.DateOnly, d); return x.Add(9 * time.Hour) }
	tests := []struct {
		name, query      string
		blocks           []evidence.Block
		wantNew, wantOld []string
	}{
		{"ru: the decision is 7 days old, nothing is new",
			"ключевая ставка ЦБ",
			[]evidence.Block{
				withCos(scored(blk(1, at("2025-07-31"), "", "Календарь публикаций ЦБ РФ на август: решение по ключевой ставке, ставка и инфляция"), 0.9), 0.88),
				withCos(scored(blk(2, at("2025-07-25"), "", "Банк России снизил ключевую ставку до 18% годовых."), 0.8), 0.89),
				withCos(scored(blk(3, at("2025-06-06"), "", "ЦБ снизил ключевую ставку до 20%, впервые с 2022 года."), 0.7), 0.88),
			},
			[]string{},
			[]string{"[2] Банк России снизил ключевую ставку до 18% годовых.", "[3] ЦБ снизил ключевую ставку до 20%, впервые с 2022 года."}},
		{"en: the decision is new and leads",
			"key rate decision",
			[]evidence.Block{
				withCos(scored(blk(1, at("2025-07-31"), "Calendar of releases for August", "Key rate decision on August 8, CPI on August 13, key rate minutes on August 20."), 0.9), 0.88),
				withCos(scored(blk(2, at("2025-07-29"), "", "The central bank cut its key rate to 4.25% at Tuesday's decision."), 0.8), 0.89),
				withCos(scored(blk(3, at("2025-07-30"), "Schedule of upcoming meetings", "Key rate decision meetings: September 12, October 24."), 0.85), 0.88),
			},
			[]string{"[2] The central bank cut its key rate to 4.25% at Tuesday's decision."},
			[]string{}},
		{"news of an announcement is not a calendar",
			"санкции Сербия",
			[]evidence.Block{
				withCos(scored(blk(1, at("2025-07-31"), "", "Президент Сербии анонсировал начало переговоров с США и Россией из-за санкций."), 0.9), 0.88),
			},
			[]string{"[1] Президент Сербии анонсировал начало переговоров с США и Россией из-за санкций."},
			[]string{}},
		{"a post that mentions a calendar further in is said",
			"ипотека ставки",
			[]evidence.Block{
				withCos(scored(blk(1, at("2025-07-31"), "", "Сбербанк снизил ставки по ипотеке на 1,5 п.п. Заглядывайте в календарь выгоды."), 0.9), 0.88),
			},
			[]string{"[1] Сбербанк снизил ставки по ипотеке на 1,5 п.п. Заглядывайте в календарь выгоды."},
			[]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Brief(tt.query, tt.blocks, asOf, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(s.New); !reflect.DeepEqual(got, tt.wantNew) {
				t.Errorf("New\n got %q\nwant %q", got, tt.wantNew)
			}
			if got := lines(s.Earlier); !reflect.DeepEqual(got, tt.wantOld) {
				t.Errorf("Earlier\n got %q\nwant %q", got, tt.wantOld)
			}
		})
	}
}
