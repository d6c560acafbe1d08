// Package answer is asof's answer pipeline as pure functions: the one path that `asof ask`
// serves and `asof eval` measures.
//
//	Read     the query's mode and dates (auto: the intent parser)
//	Rank     retrieve as of the anchor → fold near-duplicates → per-source cap → the first K
//	Pool     what the judge grades: the documents a context of that size would hold
//	Compose  the dated context (hot window + history) → the extractive summary
//
// The Ask workflow's activities (Answer, Candidates, Compose) and the Eval workflow's EvalBatch
// load shards and store results around these functions and do nothing else to the ranking, so a
// metric measured by eval is a property of what users get. Nothing here does I/O or imports
// Temporal.
package answer

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/fusion"
	"github.com/asofrag/asof/internal/intent"
	"github.com/asofrag/asof/internal/querycap"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// Auto lets the query-intent parser choose the mode and dates.
const Auto = "auto"

// DefaultPool is how many candidates the judge grades by default (the answer's context is
// drawn from them).
const DefaultPool = 40

// ErrInput marks a question or options that cannot be answered (an empty query, an unknown
// mode, a window without dates, options that fail Validate); callers report it as bad input.
var ErrInput = errors.New("answer: invalid input")

// Reading is how a question will be searched.
type Reading struct {
	Mode string    `json:"mode"`
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Text is what BM25 and the embedder see: the query without its date phrases.
	Text           string `json:"text"`
	Interpretation string `json:"interpretation"`
	// Fresh is set when auto read a request for fresh news ("latest", "this week"): Rank
	// multiplies the time weight by retrieve.Options.FreshBoost.
	Fresh bool `json:"fresh"`
	// LookBack is set on auto's recency readings that are not about fresh news: Rank may then
	// reach past the recency window when the question's evidence says it is about the past
	// (see LookBack).
	LookBack bool `json:"look_back,omitempty"`
	// WindowDays, when positive, widens the options' recency window: auto's reading of a
	// period named in passing ("a year ago", "the 1990s") reaches back to it. -1 lifts the
	// window (a question LookBack found to be about the past).
	WindowDays int `json:"window_days,omitempty"`
	// Near, when set, is the period a recency search ranks time by closeness to, instead of
	// freshness (retrieve.Options.Near): a period named in the question.
	Near retrieve.Span `json:"near,omitzero"`
	// BM25Weight, when positive, replaces the options' BM25 weight: PastBM25Weight for the
	// readings that search the whole past by relevance alone.
	BM25Weight float64 `json:"bm25_weight,omitempty"`
	// Periods, when there are two or more, are the periods a comparison names ("in 2021 and
	// 2023", "from 2012 to 2020", "since 2019": 2019 and now): Rank searches each on its own
	// and interleaves their best evidence (RankPeriods).
	Periods []retrieve.Span `json:"periods,omitempty"`
	// Stated, with Near, places a document whose title states the period it is about by that
	// period (retrieve.Options.Stated): one period of a comparison.
	Stated retrieve.Span `json:"stated,omitzero"`
	// Kind names the reading auto chose, for answers and evaluation reports (Kinds); empty for
	// an explicit mode.
	Kind string `json:"kind,omitempty"`
}

// PastBM25Weight is the BM25 branch's weight when auto searches the whole past by relevance
// alone (a question about the past, or one found to be about it): names and the event's own
// words identify an old event better than its meaning, which many events of other years share.
// Chosen on the dev sets (BENCHMARKS.md, session 16): against the recency weight 0.75, 1.5
// took chronoqa-dev's 713 undated questions about the past from 0.898 to 0.910 nDCG@10 and
// realtimeqa's 6 from 0.808 to 0.881; the zh fixture's 3 went from 0.764 to 0.720.
const PastBM25Weight = 1.5

// The kinds of reading auto chooses (Reading.Kind).
const (
	KindPlain      = "plain"       // nothing read: recency, with the look-back rule
	KindLookBack   = "look-back"   // plain, then found to be about the past by its best matches
	KindFresh      = "fresh"       // a recency cue or a recent week ("latest", "this week")
	KindPast       = "past"        // a question about the past, undated: the whole past by relevance
	KindPeriod     = "period"      // a named period: the nearest reports first
	KindOngoing    = "ongoing"     // a named period still running at the anchor: recency
	KindPastPeriod = "past-period" // a dated question about the past: by relevance, dates as words
	KindWindow     = "window"      // an open range ("since 2020", "before 2019")
	KindSoft       = "soft"        // a date named in passing ("two years ago")
	KindFuture     = "future"      // a period after the anchor: recency up to it
	KindEvolution  = "evolution"   // a change cue: then vs now
	KindPeriods    = "periods"     // two or more named periods compared: each searched on its own
)

// Kinds lists the reading kinds in report order.
var Kinds = []string{KindPlain, KindLookBack, KindFresh, KindPast, KindPeriod, KindOngoing, KindPastPeriod, KindWindow, KindSoft,
	KindFuture, KindEvolution, KindPeriods}

// LookBackRule is how Rank tells a question about the past from one about the present when
// auto read it as recency (Reading.LookBack): it ranks the whole as-of past by relevance alone
// (hybrid: dense and BM25, no window, no time rank) and looks at the Top best matches. When
// the best of them and more than Share of them were published before the recency window, the
// question's evidence is old — an event of years ago — and it is searched that way: hybrid over
// everything published by the anchor. Otherwise (news keep repeating what is current, so a
// question about the present has its best matches inside the window) it is searched as read.
type LookBackRule struct {
	Top   int
	Share float64
}

// DefaultLookBack is the rule Rank applies when Query.LookBack is nil.
var DefaultLookBack = LookBackRule{Top: 10, Share: 0.5}

// Read decides the mode and dates of a question as of asOf: auto runs the English/Russian
// intent parser; an explicit mode is kept, and window mode takes its dates from from/to or,
// failing those, from the query text. Explicit from/to win over dates in the text.
func Read(query string, asOf time.Time, mode string, from, to time.Time) (Reading, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return Reading{}, fmt.Errorf("%w: the query is empty", ErrInput)
	}
	if err := querycap.Check("the query", q); err != nil {
		return Reading{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if asOf.IsZero() {
		return Reading{}, fmt.Errorf("%w: no as-of date", ErrInput)
	}
	if mode == "" {
		mode = Auto
	}
	if err := ValidateMode(mode); err != nil {
		return Reading{}, err
	}
	explicit := !from.IsZero() || !to.IsZero()
	r := intent.Parse(q, asOf)
	out := Reading{Mode: mode, From: from, To: to, Text: q}
	switch {
	case mode == Auto && explicit:
		out.Mode = string(retrieve.Window)
		out.Text = r.Text
		if r.Mode == intent.Evolution {
			out.Mode = string(retrieve.Evolution)
		}
		out.Interpretation = fmt.Sprintf("%s %s (dates given)", out.Mode, Span(from, to))
	case mode == Auto:
		out.Mode = string(r.Mode) // intent's modes are retrieve's names
		out.Text, out.Fresh = r.Text, r.Fresh
		if r.Mode != intent.Recency { // a recent period ("this week") prefers, never filters
			out.From, out.To = r.From, r.To
		}
		out.Kind = kindOf(r)
		if len(r.Periods) >= 2 {
			// A comparison of named periods ("in 2021 and 2023", "from 2012 to 2020"): each
			// period is searched on its own, so that each has its best evidence in the top 10.
			out.Mode, out.Kind, out.From, out.To = string(retrieve.Evolution), KindPeriods, time.Time{}, time.Time{}
			var labels []string
			for _, p := range r.Periods {
				out.Periods = append(out.Periods, retrieve.Span{From: p.From, To: p.To})
				labels = append(labels, PeriodLabel(retrieve.Span{From: p.From, To: p.To}, asOf))
			}
			out.Interpretation = "a comparison of " + strings.Join(labels, ", ") + ": each period searched on its own (its reports, or documents that say they are about it), its best evidence interleaved"
			return out, nil
		}
		switch {
		case r.Past && !r.Fresh && !r.Empty && (r.Mode == intent.Recency || r.Mode == intent.Window):
			// A question about the past ("when did", "which came first", 什么时候, 四年前): its
			// evidence is the event's own reports, however old, and nothing prefers fresh ones.
			// A date it names may be the event's or only part of what is asked ("the 2019
			// promise to leave by 31 October"), so it is searched as words, not as a filter.
			out.Mode, out.WindowDays, out.From, out.To, out.BM25Weight = string(retrieve.Hybrid), -1, time.Time{}, time.Time{}, PastBM25Weight
			out.Interpretation = r.Explain() + ", by relevance alone" // "a question about the past: every date up to A, …"
			if r.Mode == intent.Window {
				out.Text, out.Kind = q, KindPastPeriod
				out.Interpretation = "a question about the past (" + periodWords(r) + ", " + Span(r.From, r.To) + "): every date up to " +
					asofday.Start(asOf).Format(time.DateOnly) + " by relevance alone, the dates as words"
			}
			return out, nil
		case r.Period && !r.Empty && !r.To.Before(asofday.Start(asOf)):
			// A period still running at the anchor ("this year", «в этом месяце», 今年): what is
			// known of it is the current news, the freshest reports first.
			out.Mode, out.From, out.To, out.Kind = string(retrieve.Recency), time.Time{}, time.Time{}, KindOngoing
			out.Interpretation = periodWords(r) + " (" + Span(r.From, r.To) + "), still running on " + asofday.Start(asOf).Format(time.DateOnly) + ": the current news, the freshest reports first"
			return out, nil
		case r.Period && !r.Empty:
			// An event's period: the search centers on it — its reports first (they come a
			// little before it and after it: "inflation in November" is published in
			// December), then the rest of the past by relevance, with no preference for what
			// is fresh at the anchor. Its date words stay in the text as words.
			near := retrieve.Span{}
			near.From, near.To = AroundPeriod(r.From, r.To, asOf)
			out.Mode, out.WindowDays, out.Near, out.From, out.To, out.Text = string(retrieve.Recency), -1, near, time.Time{}, time.Time{}, q
			out.Interpretation = "a question about " + periodWords(r) + " (" + Span(r.From, r.To) + "), searched around " + Span(near.From, near.To) + ", the nearest reports first, no preference for fresh ones"
			return out, nil
		}
		if r.Mode == intent.Recency && !r.Fresh && !r.Empty && textnorm.CJK(textnorm.Lang(q)) {
			// The look-back is for Chinese, Japanese and Korean questions: an undated one about
			// a past fact ("溪川新梧桥全长多少米？") has no other sign of it. English and Russian
			// questions without a date or a cue are about the present: on realtimeqa the rule
			// fired on 34 evergreen questions ("the word of the year", "the federal minimum
			// wage") and cost them 0.29 nDCG@10 against temporal_rrf (BENCHMARKS.md, session 16).
			out.LookBack = true
		}
		if r.Soft && !r.Fresh && !r.From.IsZero() { // "a year ago": the window reaches that far, and a little before
			out.WindowDays = int(asofday.Start(asOf).Sub(r.From).Hours()/24) + softMarginDays
		}
		if out.Interpretation == "" {
			out.Interpretation = r.Explain()
		}
	case mode == string(retrieve.Window) && !explicit:
		if r.From.IsZero() && r.To.IsZero() {
			return Reading{}, fmt.Errorf("%w: window mode needs --year, --from/--to or dates in the query (%q has none)", ErrInput, q)
		}
		out.From, out.To, out.Text = r.From, r.To, r.Text
		out.Interpretation = "window " + Span(r.From, r.To) + " (dates read from the query, as requested)"
	default:
		out.Interpretation = mode + " (as requested)"
		if explicit {
			out.Interpretation = mode + " " + Span(from, to) + " (as requested)"
		}
	}
	return out, nil
}

// periodWords names the period r read: the phrases that named it ("2020年4月2日", "in November").
func periodWords(r intent.Reading) string {
	var out []string
	for _, c := range r.Cues {
		out = append(out, strconv.Quote(c))
	}
	if len(out) == 0 {
		return Span(r.From, r.To)
	}
	return strings.Join(out, ", ")
}

// kindOf is the kind of auto's reading r before Rank looks back or falls back.
func kindOf(r intent.Reading) string {
	switch {
	case r.Mode == intent.Evolution:
		return KindEvolution
	case r.Empty && r.Mode == intent.Recency:
		return KindFuture
	case r.Past && r.Mode == intent.Recency && !r.Fresh:
		return KindPast
	case r.Fresh:
		return KindFresh
	case r.Soft:
		return KindSoft
	case r.Past && r.Mode == intent.Window:
		return KindPastPeriod
	case r.Period:
		return KindPeriod
	case r.Mode == intent.Window:
		return KindWindow
	}
	return KindPlain
}

// Publication around a period (AroundPeriod): news of an event start PeriodLeadDays before its
// period and keep coming for half its length after it, PeriodLagDays at least and
// PeriodLagMaxDays at most.
const (
	PeriodLeadDays   = 7
	PeriodLagDays    = 7
	PeriodLagMaxDays = 92
)

// AroundPeriod is the publication window auto searches for an event period [from, to] named in
// a question, as of asOf: from PeriodLeadDays before it to half its length after it (between
// PeriodLagDays and PeriodLagMaxDays), never after asOf's day.
func AroundPeriod(from, to, asOf time.Time) (time.Time, time.Time) {
	days := int(to.Sub(from).Hours()/24) + 1
	lag := min(max(days/2, PeriodLagDays), PeriodLagMaxDays)
	f, t := from.AddDate(0, 0, -PeriodLeadDays), to.AddDate(0, 0, lag)
	if a := asofday.Start(asOf); t.After(a) {
		t = a
	}
	return f, t
}

// softMarginDays is how far before a period named in passing ("two years ago") auto's window
// starts: reports of a past event come a little before and after the day it is named for.
const softMarginDays = 31

// ValidateMode accepts auto and retrieve's modes.
func ValidateMode(mode string) error {
	if mode != Auto && !slices.Contains(retrieve.Modes, retrieve.Mode(mode)) {
		return fmt.Errorf("%w: unknown mode %q (auto, %s)", ErrInput, mode, ModeList())
	}
	return nil
}

// ModeList is retrieve's modes, comma-separated, for messages and help.
func ModeList() string {
	var s []string
	for _, m := range retrieve.Modes {
		s = append(s, string(m))
	}
	return strings.Join(s, ", ")
}

// Span renders a day range, "…" for an open end.
func Span(from, to time.Time) string {
	f, t := "…", "…"
	if !from.IsZero() {
		f = from.UTC().Format(time.DateOnly)
	}
	if !to.IsZero() {
		t = to.UTC().Format(time.DateOnly)
	}
	return f + ".." + t
}

// Hit is one result: a retrieved chunk with its near-duplicates folded into it.
type Hit struct {
	retrieve.Candidate
	// Duplicates is how many other chunks were folded into it.
	Duplicates int
	// Sources are the sources of its cluster, its own first.
	Sources []string
	// Folded are the documents of the other chunks folded into it (distinct, not its own),
	// for evaluation's group credit.
	Folded []string
}

// Ranking is one question's retrieval as of its anchor.
type Ranking struct {
	// Read is the reading searched: the question's, or, when auto found the question to be
	// about the past (Reading.LookBack), PastReading of it.
	Read Reading
	// Mode is the mode searched; Bounds the time mask.
	Mode   retrieve.Mode
	Bounds retrieve.Bounds
	// Allowed counts the chunks that passed the mask; Candidates the fused candidates;
	// Clusters the near-duplicate clusters they folded into.
	Allowed, Candidates, Clusters int
	// Ranked is every cluster in fused order with the per-source cap applied: what the judge
	// pool and the context are drawn from. In evolution mode it is the "then" and "now" groups.
	Ranked []Hit
	// Results are what an answer shows and eval scores: the first K of Ranked (evolution:
	// all of it).
	Results []Hit
	// Message says why nothing could be found, when nothing could.
	Message string
	// Life is what the index's lifecycle did (standing texts in force, superseded ones left
	// out); Standing says it in words (StandingNote), empty when no standing text was searched.
	Life     retrieve.LifeCounts
	Standing string
}

// Evolution reports whether the ranking is "then vs now".
func (r Ranking) Evolution() bool { return r.Mode == retrieve.Evolution }

// Query is one question to rank as of its anchor: what Rank and RankStrict take.
type Query struct {
	// Read is how the question is searched (Read's result); its Mode, From and To replace
	// Options'.
	Read Reading
	// Vec is the query's embedding (nil: BM25 only).
	Vec []float32
	// Variants are other searches for the same question, fused with its own (Rank).
	Variants []Variant
	// AsOf is the anchor: nothing published after the end of its day can be ranked.
	AsOf time.Time
	// Options are the retrieval options.
	Options retrieve.Options
	// Dedup folds near-duplicates (Rank; RankStrict does not fold).
	Dedup dedup.Options
	// NoFold keeps every copy in Rank's results instead of folding them (evaluation's strict
	// systems, without +dedup); Ranked is folded either way.
	NoFold bool
	// LookBack, when not nil, replaces DefaultLookBack (evaluation's variants; Top 0 turns the
	// look-back off).
	LookBack *LookBackRule
	// Cache, when not nil, is searched through: evaluation ranks one question many ways, and
	// the result is the same as without it. Not safe for concurrent use (retrieve.Cache).
	Cache *retrieve.Cache
}

// Variant is another search for the same question: an LLM's rephrasing (Text and its query
// vector) or hypothetical answer (no Text: its passage vector searches the dense branch alone),
// see internal/expand. Its text is never shown or cited.
type Variant struct {
	// Kind is "query" or "hyde".
	Kind string    `json:"kind"`
	Text string    `json:"text"`
	Vec  []float32 `json:"vec"`
}

// Rank retrieves for q.Read as of q.AsOf over shards, folds near-duplicates, applies the
// per-source cap to the whole list and keeps the first K as results. q.NoFold keeps every copy
// in the results instead (evaluation's strict systems, without +dedup); Ranked is folded either
// way.
//
// The question's variants are searched too, with the same mode, mask and options, and every
// search's fused list is combined by reciprocal rank (fusion.RRF, each list of weight 1, k =
// Options.KRRF): a candidate scores Σ 1/(k + its rank in each list). Evolution ignores variants
// (its groups are chosen by date). Nothing a variant finds can fall outside the mask: every
// search applies it.
//
// A Fresh reading (auto read "latest", "this week") has its time weight multiplied by
// Options.FreshBoost.
func Rank(shards []*retrieve.Shard, q Query) (Ranking, error) {
	if len(q.Read.Periods) >= 2 {
		return RankPeriods(shards, q)
	}
	read, o, res, err := searchAll(shards, q)
	if err != nil {
		return Ranking{}, err
	}
	r := Ranking{Read: read, Mode: o.Mode, Bounds: res.Bounds, Allowed: res.Allowed, Candidates: len(res.Candidates), Life: res.Life}
	if res.Life.Standing > 0 || res.Life.Superseded > 0 || res.Life.NotYet > 0 {
		r.Standing = StandingNote(res.Life, q.AsOf)
		r.Read = InForce(r.Read, q.AsOf, res.Life.News > 0)
	}
	if (res.Bounds.Empty && res.Bounds.EmptyStanding) || res.Allowed == 0 {
		r.Message = fmt.Sprintf("No documents in that period (%s) as of %s.", Span(res.Bounds.Lo, res.Bounds.Hi), q.AsOf.UTC().Format(time.DateOnly))
	}
	if r.Evolution() {
		// The groups are the result: oldest and newest of the most relevant, one per cluster of
		// near-duplicates, so a story reposted by another channel is one item of its group
		// (its sources listed) and never fills a group twice, or both groups.
		hits, err := Fold(res.Candidates, q.Dedup)
		if err != nil {
			return Ranking{}, err
		}
		bests := make([]retrieve.Candidate, len(hits))
		byChunk := make(map[string]Hit, len(hits))
		for i, h := range hits {
			bests[i] = h.Candidate
			byChunk[h.Chunk.ChunkID] = h
		}
		for _, c := range retrieve.EvolutionGroups(bests, o) {
			h := byChunk[c.Chunk.ChunkID]
			h.Candidate = c
			r.Ranked = append(r.Ranked, h)
		}
		r.Clusters, r.Results = len(hits), r.Ranked
		if q.NoFold {
			// Every copy stays in the results (the strict evaluation systems), as before.
			r.Results = nil
			for _, c := range res.Results {
				r.Results = append(r.Results, Hit{Candidate: c, Sources: []string{c.Chunk.Source}})
			}
		}
		return r, nil
	}
	hits, err := Fold(res.Candidates, q.Dedup)
	if err != nil {
		return Ranking{}, err
	}
	r.Clusters = len(hits)
	r.Ranked = Cap(hits, len(hits), o.MaxPerSource)
	r.Results = r.Ranked[:min(o.K, len(r.Ranked))]
	if q.NoFold {
		// Every copy stays in the results (the strict evaluation systems); the pool and the
		// context are still drawn from the folded clusters, as served.
		r.Results = strict(res, o)
	}
	return r, nil
}

// PeriodReading is how one period p of a comparison is searched as of asOf: over the whole past
// up to the anchor, the time rank a rank of closeness to the days around p (AroundPeriod), with
// a document whose title states the period it is about (a yearly report, published the year
// after) placed by that period (retrieve.Options.Stated). A period that ends at the anchor
// ("since 2019": now) is the latest news. RankPeriods then puts the nearest first.
func PeriodReading(read Reading, p retrieve.Span, asOf time.Time) Reading {
	r := Reading{Mode: string(retrieve.Recency), WindowDays: -1, Text: read.Text, Kind: KindPeriods, Stated: p}
	r.Near.From, r.Near.To = AroundPeriod(p.From, p.To, asOf)
	r.Interpretation = "the period " + PeriodLabel(p, asOf) + " of " + read.Interpretation
	return r
}

// PeriodLabel names a period of a comparison: "2021", "2021-03", "2021-03-05", "now" (a period
// ending at the anchor that starts within a week of it), else "from..to".
func PeriodLabel(p retrieve.Span, asOf time.Time) string {
	a := asofday.Start(asOf)
	f, t := p.From.UTC(), p.To.UTC()
	switch {
	case t.Equal(a) && a.Sub(f) <= 7*24*time.Hour:
		return "now"
	case f.Equal(t):
		return f.Format(time.DateOnly)
	case f.Month() == time.January && f.Day() == 1 && t.Equal(f.AddDate(1, 0, -1)):
		return strconv.Itoa(f.Year())
	case f.Day() == 1 && t.Equal(f.AddDate(0, 1, -1)):
		return f.Format("2006-01")
	}
	return Span(f, t)
}

// RankPeriods ranks a comparison of q.Read.Periods: each period is searched on its own
// (PeriodReading, variants left out), its candidates ordered nearest first (nearestFirst: the
// period's own documents by relevance, then the nearest others), folded and capped as Rank
// does, and the periods' lists
// are interleaved — each period's best, then each one's second best, and so on, a document
// once — so that the first K hold every period's best evidence. Each hit is labelled with its
// period (Candidate.Period) and grouped "then" (the earlier periods) or "now" (the last), for
// the summary's then-and-now. Ranked holds up to DefaultPool hits; Results the first K.
func RankPeriods(shards []*retrieve.Shard, q Query) (Ranking, error) {
	r := Ranking{Read: q.Read, Mode: retrieve.Evolution}
	lists := make([][]Hit, len(q.Read.Periods))
	var o retrieve.Options
	for i, p := range q.Read.Periods {
		sub := q
		sub.Read, sub.Variants, sub.LookBack = PeriodReading(q.Read, p, q.AsOf), nil, nil
		var res retrieve.Result
		var err error
		if o, res, err = search(q.Cache, shards, sub.Read, q.Vec, q.AsOf, q.Options); err != nil {
			return Ranking{}, err
		}
		if i == 0 || res.Allowed > r.Allowed {
			r.Bounds, r.Allowed, r.Life = res.Bounds, res.Allowed, res.Life
		}
		r.Candidates += len(res.Candidates)
		nearestFirst(res.Candidates)
		var hits []Hit
		if q.NoFold {
			hits = strict(res, o)
		} else if hits, err = Fold(res.Candidates, q.Dedup); err != nil {
			return Ranking{}, err
		} else {
			nearestFirstHits(hits)
			hits = Cap(hits, len(hits), o.MaxPerSource)
		}
		label, group := PeriodLabel(p, q.AsOf), "then"
		if i == len(q.Read.Periods)-1 {
			group = "now"
		}
		for j := range hits {
			hits[j].Period, hits[j].Group = label, group
		}
		lists[i] = hits
	}
	if r.Allowed == 0 {
		r.Message = fmt.Sprintf("No documents in that period (%s) as of %s.", Span(r.Bounds.Lo, r.Bounds.Hi), q.AsOf.UTC().Format(time.DateOnly))
	}
	seen := map[string]bool{}
	for depth := 0; len(r.Ranked) < max(DefaultPool, o.K); depth++ {
		more := false
		for _, l := range lists {
			if depth >= len(l) {
				continue
			}
			more = true
			if h := l[depth]; !seen[h.Chunk.DocID] {
				seen[h.Chunk.DocID] = true
				r.Ranked = append(r.Ranked, h)
			}
		}
		if !more {
			break
		}
	}
	r.Clusters = len(r.Ranked)
	r.Results = r.Ranked[:min(o.K, len(r.Ranked))]
	return r, nil
}

// nearestFirst orders a period's candidates by their time rank (closeness to the period: 1 for
// every document about it or published around it), then by score: the period's own documents
// first, by relevance, then the nearest others. A candidate with no time rank comes last.
func nearestFirst(cands []retrieve.Candidate) { slices.SortStableFunc(cands, nearer) }

// nearestFirstHits is nearestFirst over folded hits (Fold lists its clusters by score).
func nearestFirstHits(hits []Hit) {
	slices.SortStableFunc(hits, func(a, b Hit) int { return nearer(a.Candidate, b.Candidate) })
}

// nearer orders by time rank (none last), then by score.
func nearer(a, b retrieve.Candidate) int {
	rank := func(c retrieve.Candidate) int {
		if c.RankTime > 0 {
			return c.RankTime
		}
		return math.MaxInt
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(b.Score, a.Score))
}

// StandingNote says what a search used of standing texts as of asOf: "12 standing texts in
// force on 2019-05-01; 1 superseded text and 1 not yet in force left out".
func StandingNote(l retrieve.LifeCounts, asOf time.Time) string {
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	out := plural(l.Standing, "standing text", "standing texts") + " in force on " + asofday.Start(asOf).Format(time.DateOnly)
	var left []string
	if l.Superseded > 0 {
		left = append(left, plural(l.Superseded, "superseded text", "superseded texts"))
	}
	if l.NotYet > 0 {
		left = append(left, plural(l.NotYet, "text", "texts")+" not yet in force")
	}
	if len(left) > 0 {
		out += "; " + strings.Join(left, " and ") + " left out"
	}
	return out
}

// InForce is read as it searched an index of standing texts: a reading of the present (plain,
// fresh, ongoing, a date in passing, or no reading at all: recency, hybrid) is the texts in
// force as of the anchor, none preferred for being newer and none left out for being old; a
// reading of the past, a period, a window or a change keeps its words. news says the index
// holds news beside them, read as before.
func InForce(read Reading, asOf time.Time, news bool) Reading {
	switch read.Kind {
	case KindPlain, KindFresh, KindOngoing, KindSoft, KindLookBack, "":
	default:
		return read
	}
	if read.Kind == "" && read.Mode != string(retrieve.Recency) && read.Mode != string(retrieve.Hybrid) && read.Mode != string(retrieve.Decay) {
		return read
	}
	in := "the texts in force on " + asofday.Start(asOf).Format(time.DateOnly) + " (standing texts: no look-back window, newer texts in force not preferred"
	if news {
		in += "; news as " + read.Interpretation
	}
	read.Interpretation = in + ")"
	return read
}

// RankStrict is Rank's results with NoFold, without the folding that only Ranked (the judge
// pool and the context) needs: what a parameter sweep scores, hundreds of times per question.
// q.Dedup and q.NoFold are not used.
func RankStrict(shards []*retrieve.Shard, q Query) ([]Hit, error) {
	if len(q.Read.Periods) >= 2 {
		q.NoFold = true
		r, err := RankPeriods(shards, q)
		return r.Results, err
	}
	_, o, res, err := searchAll(shards, q)
	if err != nil {
		return nil, err
	}
	if q.Read.Mode == string(retrieve.Evolution) {
		return nil, fmt.Errorf("%w: strict results of an evolution search", ErrInput)
	}
	return strict(res, o), nil
}

// searchAll searches q and its variants and fuses their lists (fuseLists); it returns the
// options it searched with.
func searchAll(shards []*retrieve.Shard, q Query) (Reading, retrieve.Options, retrieve.Result, error) {
	if q.Read.LookBack && q.Read.Mode == string(retrieve.Recency) {
		rule := DefaultLookBack
		if q.LookBack != nil {
			rule = *q.LookBack
		}
		past, err := aboutThePast(shards, q, rule)
		if err != nil {
			return q.Read, retrieve.Options{}, retrieve.Result{}, err
		}
		if past {
			q.Read = PastReading(q.Read)
		}
	}
	o, res, err := search(q.Cache, shards, q.Read, q.Vec, q.AsOf, q.Options)
	if err != nil || len(q.Variants) == 0 || o.Mode == retrieve.Evolution || len(res.Candidates) == 0 {
		return q.Read, o, res, err
	}
	lists := []retrieve.Result{res}
	for _, v := range q.Variants {
		vr := q.Read
		vr.Text = v.Text
		_, r, err := search(q.Cache, shards, vr, v.Vec, q.AsOf, o)
		if err != nil {
			return q.Read, o, res, fmt.Errorf("variant %q: %w", v.Kind, err)
		}
		lists = append(lists, r)
	}
	res, err = fuseLists(lists, o)
	return q.Read, o, res, err
}

// aboutThePast applies rule to q (LookBackRule).
func aboutThePast(shards []*retrieve.Shard, q Query, rule LookBackRule) (bool, error) {
	o := q.Options
	if o.WindowDays <= 0 || rule.Top <= 0 {
		return false, nil
	}
	probe := PastReading(q.Read)
	po := o
	po.K = rule.Top
	_, res, err := search(q.Cache, shards, probe, q.Vec, q.AsOf, po)
	if err != nil || len(res.Results) == 0 {
		return false, err
	}
	win := SearchOptions(q.Read, o).WindowDays
	start := asofday.Start(q.AsOf).AddDate(0, 0, -win)
	old := 0
	for _, c := range res.Results {
		if c.Chunk.PublishedAt.Before(start) {
			old++
		}
	}
	return res.Results[0].Chunk.PublishedAt.Before(start) && float64(old) > rule.Share*float64(len(res.Results)), nil
}

// PastReading is read searched as a question about the past: hybrid (relevance alone) over
// everything published by the anchor.
func PastReading(read Reading) Reading {
	read.Mode = string(retrieve.Hybrid)
	read.WindowDays = -1
	read.LookBack = false
	read.BM25Weight = PastBM25Weight
	read.Kind = KindLookBack
	read.Interpretation = "about the past: its best matches are older than the recency window, so every date up to the anchor is searched by relevance alone (" + read.Interpretation + ")"
	return read
}

// search runs retrieval for read with o (mode, dates and the fresh boost from read), through c
// when it is not nil, and returns the options it searched with.
func search(c *retrieve.Cache, shards []*retrieve.Shard, read Reading, vec []float32, asOf time.Time, o retrieve.Options) (retrieve.Options, retrieve.Result, error) {
	o = SearchOptions(read, o)
	if err := o.Validate(); err != nil {
		return o, retrieve.Result{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	run := retrieve.Search
	if c != nil {
		run = c.Search
	}
	res, err := run(shards, read.Text, vec, asOf, o)
	return o, res, err
}

// SearchOptions are the retrieval options Rank searches read with: o with read's mode and
// dates, and the fresh boost applied.
func SearchOptions(read Reading, o retrieve.Options) retrieve.Options {
	o.Mode = retrieve.Mode(read.Mode)
	o.From, o.To = read.From, read.To
	o.Near, o.Stated = read.Near, read.Stated
	if read.BM25Weight > 0 {
		o.Weights.BM25 = read.BM25Weight
	}
	switch {
	case read.WindowDays < 0:
		o.WindowDays = 0
	case read.WindowDays > 0 && o.WindowDays > 0:
		o.WindowDays = max(o.WindowDays, read.WindowDays)
	}
	if read.Fresh && o.FreshBoost > 0 {
		o.Weights.Time *= o.FreshBoost
	}
	return o
}

// Reach is the span of publication days Rank may search for read as of asOf with o: the
// shards a caller must load. A reading that may look back (LookBack) reaches every day up to
// the anchor; any other reaches its own bounds.
func Reach(read Reading, asOf time.Time, o retrieve.Options) retrieve.Bounds {
	if read.LookBack {
		return retrieve.Bounds{Hi: asofday.Last(asOf)}
	}
	return retrieve.BoundsOf(asOf, SearchOptions(read, o))
}

// fuseLists combines several searches' candidate lists by reciprocal rank (fusion.RRF, each
// list of weight 1, k = o.KRRF); a candidate keeps the evidence of the first list that has it
// (the question's own search first).
func fuseLists(lists []retrieve.Result, o retrieve.Options) (retrieve.Result, error) {
	type key struct{ shard, row int }
	at := map[key]int{}
	var fused []retrieve.Candidate
	for _, l := range lists {
		for _, c := range l.Candidates {
			if _, ok := at[key{c.Shard, c.Row}]; !ok {
				at[key{c.Shard, c.Row}] = len(fused)
				fused = append(fused, c)
			}
		}
	}
	in := fusion.Input{Lists: make([]fusion.List, len(lists))}
	for j, l := range lists {
		ranks := make([]int, len(fused))
		for r, c := range l.Candidates {
			if i := at[key{c.Shard, c.Row}]; ranks[i] == 0 { // a search lists a chunk once
				ranks[i] = r + 1
			}
		}
		in.Lists[j] = fusion.List{Weight: 1, Ranks: ranks}
	}
	scores, err := fusion.RRF(len(fused), in, fusion.Options{K: o.KRRF})
	if err != nil {
		return retrieve.Result{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	for i := range fused {
		fused[i].Score = scores[i]
	}
	retrieve.SortByScore(fused)
	out := lists[0]
	out.Candidates = fused
	out.Results = retrieve.CapPerSource(fused, o.K, o.MaxPerSource, func(c retrieve.Candidate) string { return c.Chunk.Source })
	return out, nil
}

// strict is every candidate as its own hit, capped per source, the first K.
func strict(res retrieve.Result, o retrieve.Options) []Hit {
	all := make([]Hit, 0, len(res.Candidates))
	for _, c := range res.Candidates {
		all = append(all, Hit{Candidate: c, Sources: []string{c.Chunk.Source}})
	}
	return Cap(all, o.K, o.MaxPerSource)
}

// Fold groups candidates into near-duplicate clusters (dedup) and keeps each cluster's best, in
// score order, with its own source first and every other source of the cluster after it.
func Fold(cands []retrieve.Candidate, o dedup.Options) ([]Hit, error) {
	items := make([]dedup.Item, len(cands))
	for i, c := range cands {
		items[i] = dedup.Item{ChunkID: c.Chunk.ChunkID, DocID: c.Chunk.DocID, Source: c.Chunk.Source,
			PublishedAt: c.Chunk.PublishedAt, Key: c.Chunk.DedupKey, Vec: c.Vec, Score: c.Score, Edited: c.Chunk.Version > 1}
	}
	clusters, err := dedup.Group(items, o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	out := make([]Hit, 0, len(clusters))
	for _, cl := range clusters {
		best := cands[cl.Best]
		sources := []string{best.Chunk.Source}
		for _, s := range cl.Sources {
			if s != best.Chunk.Source {
				sources = append(sources, s)
			}
		}
		var folded []string
		for _, m := range cl.Members {
			if id := cands[m].Chunk.DocID; id != best.Chunk.DocID && !slices.Contains(folded, id) {
				folded = append(folded, id)
			}
		}
		out = append(out, Hit{Candidate: best, Duplicates: len(cl.Members) - 1, Sources: sources, Folded: folded})
	}
	return out, nil
}

// Cap keeps the first k hits with at most maxPer from one source (0: no cap), in order
// (retrieve.CapPerSource).
func Cap(hits []Hit, k, maxPer int) []Hit {
	return retrieve.CapPerSource(hits, k, maxPer, func(h Hit) string { return h.Chunk.Source })
}

// Pool is what the judge grades: in fused order, the hits a context of max(co.KDocs, n)
// documents would hold (the same hot and history quotas), so judging never grades what the
// context could not use. In evolution mode it is every hit (the groups are already chosen).
func Pool(r Ranking, asOf time.Time, co evidence.Options, n int) ([]Hit, error) {
	if r.Evolution() || len(r.Ranked) == 0 {
		return r.Ranked, nil
	}
	co.KDocs = max(co.KDocs, n)
	cx, err := Select(Docs(r.Ranked), asOf, co, false)
	if err != nil {
		return nil, err
	}
	chosen := map[string]bool{}
	for _, b := range cx.Blocks {
		chosen[b.Doc.ChunkID] = true
	}
	var pool []Hit
	for _, h := range r.Ranked {
		if chosen[h.Chunk.ChunkID] {
			pool = append(pool, h)
		}
	}
	return pool, nil
}

// Docs turns hits into context documents, in order.
func Docs(hits []Hit) []evidence.Doc {
	docs := make([]evidence.Doc, 0, len(hits))
	for _, h := range hits {
		docs = append(docs, evidence.Doc{DocID: h.Chunk.DocID, ChunkID: h.Chunk.ChunkID, Title: h.Chunk.Title, Text: h.Chunk.Text,
			URL: h.Chunk.URL, Sources: h.Sources, PublishedAt: h.Chunk.PublishedAt, Score: h.Score, Cosine: float64(h.Cos), Folded: h.Folded,
			Standing: h.Chunk.Kind == schemas.KindStanding})
	}
	return docs
}

// Groups maps doc ids to their evolution group ("then", "now").
func Groups(hits []Hit) map[string]string {
	g := map[string]string{}
	for _, h := range hits {
		if h.Group != "" {
			g[h.Chunk.DocID] = h.Group
		}
	}
	return g
}

// Select builds the dated context of docs (ranked, best first) as of asOf; in evolution mode
// every document is kept (the groups were chosen by retrieval).
func Select(docs []evidence.Doc, asOf time.Time, co evidence.Options, evolution bool) (evidence.Context, error) {
	if evolution {
		co.KDocs = max(1, len(docs))
	}
	cx, err := evidence.Build(docs, asOf, co)
	if err != nil {
		return cx, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return cx, nil
}

// Composed is an answer's context and extractive summary.
type Composed struct {
	// Context is the prompt text of the blocks; Blocks the numbered documents.
	Context string
	Blocks  []schemas.ContextBlock
	// Brief is the summary; Summary its Markdown (render.Markdown, with the blocks it cites);
	// SummaryMethod how it was made (Brief.Method: "none" when nothing passed).
	Summary, SummaryMethod string
	Brief                  *schemas.Brief
}

// NothingLeft is the Note of the brief of an answer that had no document to summarize and no
// message from retrieval saying why.
const NothingLeft = "No document was left to summarize: none passed retrieval and the judge."

// ComposeInput is what a context and summary are made from.
type ComposeInput struct {
	Query string
	// SearchText is the query as read (Reading.Text: without its date phrases, which chose
	// the time, not the topic); the summary matches sentences against it when it is set.
	SearchText string
	AsOf       time.Time
	// Evolution asks for "then vs now"; Groups maps doc ids to "then" or "now".
	Evolution bool
	Groups    map[string]string
	// Empty is the ranking's Message, if any: when no document passed, it says why, and the
	// brief needs no note of its own.
	Empty   string
	Context evidence.Options
	Summary summarize.Options
}

// topic is the text a summary's sentences are matched against: SearchText, else Query.
func (in ComposeInput) topic() string {
	if strings.TrimSpace(in.SearchText) != "" {
		return in.SearchText
	}
	return in.Query
}

// Compose builds the dated context from docs (ranked, best first; what passed the judge) and
// summarizes it extractively: digest and timeline, or then vs now. With no docs the brief is
// "none", not enough information, with the note NothingLeft unless in.Empty says why.
func Compose(in ComposeInput, docs []evidence.Doc) (Composed, error) {
	if len(docs) == 0 {
		b := schemas.Brief{Method: "none", AsOf: asofday.Start(in.AsOf), NotEnough: true}
		if in.Empty == "" {
			b.Note = NothingLeft
		}
		return Composed{Summary: render.Markdown(b, nil), SummaryMethod: b.Method, Brief: &b}, nil
	}
	if allStanding(docs) {
		// Texts in force, not news: nothing is "new in the last days"; the latest text in
		// force leads the summary instead.
		in.Summary.NewDays = 0
	}
	cx, err := Select(docs, in.AsOf, in.Context, in.Evolution)
	if err != nil {
		return Composed{}, err
	}
	out := Composed{Context: cx.Text()}
	for _, bl := range cx.Blocks {
		out.Blocks = append(out.Blocks, schemas.ContextBlock{N: bl.N, DocID: bl.Doc.DocID, PublishedAt: bl.Doc.PublishedAt,
			Sources: bl.Doc.Sources, Title: bl.Doc.Title, Snippet: bl.Snippet, Hot: bl.Hot, URL: bl.Doc.URL, Group: in.Groups[bl.Doc.DocID],
			Folded: bl.Doc.Folded})
	}
	if in.Evolution {
		var then, now []evidence.Block
		for _, b := range cx.Blocks {
			if in.Groups[b.Doc.DocID] == "then" {
				then = append(then, b)
			} else {
				now = append(now, b)
			}
		}
		b, err := summarize.Evolve(in.topic(), then, now, in.AsOf, in.Summary)
		if err != nil {
			return Composed{}, fmt.Errorf("%w: %w", ErrInput, err)
		}
		out.Summary, out.SummaryMethod, out.Brief = render.Markdown(b, out.Blocks), b.Method, &b
		render.MarkShown(b, out.Blocks)
		return out, nil
	}
	b, err := summarize.Brief(in.topic(), cx.Blocks, in.AsOf, in.Summary)
	if err != nil {
		return Composed{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	out.Summary, out.SummaryMethod, out.Brief = render.Markdown(b, out.Blocks), b.Method, &b
	render.MarkShown(b, out.Blocks)
	return out, nil
}

// allStanding reports whether every document is a standing text.
func allStanding(docs []evidence.Doc) bool {
	for _, d := range docs {
		if !d.Standing {
			return false
		}
	}
	return len(docs) > 0
}

// Result is a hit as an answer's result row, ranked from 1.
func Result(rank int, h Hit) schemas.AnswerResult {
	c := h.Candidate
	out := schemas.AnswerResult{
		Rank: rank, DocID: c.Chunk.DocID, ChunkID: c.Chunk.ChunkID, PublishedAt: c.Chunk.PublishedAt, Source: c.Chunk.Source,
		Title: c.Chunk.Title, URL: c.Chunk.URL, Score: c.Score, RankDense: c.RankDense, RankBM25: c.RankBM25, RankTime: c.RankTime,
		Cosine: float64(c.Cos), BM25: c.BM25, Exact: c.Exact, Group: c.Group, Period: c.Period, Duplicates: h.Duplicates, Sources: h.Sources, Fragments: max(1, c.Fragments),
		Snippet: evidence.Snippet(c.Chunk.Text, 300), Kind: c.Chunk.Kind, EffectiveAt: c.Chunk.EffectiveAt,
	}
	if c.Chunk.Version > 1 {
		out.Version = c.Chunk.Version
	}
	if e := c.Ended; e != nil {
		out.Superseded = &schemas.Supersession{By: e.By, On: e.Effective, Basis: e.Basis, Detail: e.Detail, Soft: e.Soft()}
	}
	return out
}
