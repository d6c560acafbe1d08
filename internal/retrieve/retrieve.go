// Package retrieve is asof's as-of hybrid retrieval over loaded shards: a dense branch (exact
// inner product over flat E5 vectors) and a BM25 branch (bleve), fused with a time rank.
//
// The as-of mask comes first. For anchor A, a chunk may be returned only when it was published
// on or before the end of A's day (UTC), inside the recency window (WindowDays before A; not
// applied to hard windows and evolution, which bound time themselves) and inside any hard date
// range. Both branches apply the mask before their top-N: the dense scan skips masked rows and
// the BM25 query carries the date range, so nothing outside the window can even be ranked, and
// shards wholly outside it are never loaded (Bounds / Overlaps). Leakage is zero by
// construction; the property test checks it against a brute-force reference.
//
// Modes (docs/design.md §5):
//   - recency (default): weighted reciprocal rank fusion (internal/fusion, the one RRF)
//     w_dense/(k+r_dense) + w_bm25/(k+r_bm25) + w_time/(k+r_time) [+ w_source·source_weight],
//     where r_time ranks the union of candidates by publication day, freshest first, and
//     candidates of the same day share a rank: by default 1 + the number of candidates from
//     strictly fresher days (competition ranking, TimeRank "competition"), or 1 + the number of
//     strictly fresher days that have candidates (TimeRank "days": a day with 30 candidates
//     pushes the next day to rank 2, not 31). A branch that did not return a candidate adds
//     nothing for it. FreshBoost multiplies w_time for queries that ask for fresh news.
//   - decay: (1−α)·cos + α/(1+λ·Δt_years) over the same candidates, Δt from the end of A's day.
//   - hybrid: dense + BM25 RRF without time (the "relevance only" baseline; also used inside
//     hard windows and for the evolution pool).
//   - window: hybrid inside [From, To]; an empty window returns nothing, never other dates.
//   - evolution: the Pool most relevant (hybrid, no recency window) that score at least
//     PoolFloor times the best, split into the oldest K ("then") and the newest K ("now").
//   - dense, bm25: one branch alone (baselines for evaluation).
package retrieve

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/fusion"
	"github.com/asofrag/asof/internal/ident"
	"github.com/asofrag/asof/internal/intent"
	"github.com/asofrag/asof/internal/lexical"
	"github.com/asofrag/asof/internal/lifecycle"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// Mode is a ranking mode.
type Mode string

// Modes.
const (
	Recency   Mode = "recency"
	Decay     Mode = "decay"
	Hybrid    Mode = "hybrid"
	Window    Mode = "window"
	Evolution Mode = "evolution"
	Dense     Mode = "dense"
	BM25      Mode = "bm25"
)

// Modes lists every mode, for help texts and validation.
var Modes = []Mode{Recency, Decay, Hybrid, Window, Evolution, Dense, BM25}

// Shard is one loaded shard: row i of Chunks is row i of Vectors and document i of Lexical.
type Shard struct {
	ID      string
	Chunks  []schemas.Chunk
	Vectors *vecindex.Flat
	// Int8 is Vectors' int8 codes (over the same Flat), which the dense branch scans before
	// re-scoring in float32 (Options.Int8Rerank); nil for a shard written without them.
	Int8    *vecindex.Int8
	Lexical *lexical.Index
	// MinDate and MaxDate bound the chunks' PublishedAt (from the shard's meta).
	MinDate, MaxDate time.Time
	// Life, when set, is the index's lifecycle applied to these rows (internal/lifecycle): which
	// version of a document is current, which standing texts are in force, as of a day. The
	// shard itself is immutable; a manifest's Life is set on a copy of it (WithLife).
	Life *lifecycle.Life
	// Removed, when set, marks the rows of documents taken down (schemas.Takedown): never
	// served, as of any day, in any mode. Set on a copy, as Life is (WithRemoved).
	Removed []bool
}

// WithLife is a copy of s that applies l (nil: none) to its rows.
func (s *Shard) WithLife(l *lifecycle.Life) *Shard {
	cp := *s
	cp.Life = l
	return &cp
}

// WithRemoved is a copy of s whose rows of the doc_ids in gone are removed (Shard.Removed);
// s itself when none of its rows is.
func (s *Shard) WithRemoved(gone map[string]bool) *Shard {
	if len(gone) == 0 {
		return s
	}
	var removed []bool
	for i := range s.Chunks {
		if gone[s.Chunks[i].DocID] {
			if removed == nil {
				removed = make([]bool, len(s.Chunks))
			}
			removed[i] = true
		}
	}
	if removed == nil {
		return s
	}
	cp := *s
	cp.Removed = removed
	return &cp
}

// Weights of the fused score.
type Weights struct {
	Dense float64 `json:"Dense"`
	BM25  float64 `json:"BM25"`
	Time  float64 `json:"Time"`
	// Source multiplies a chunk's source_weight. Negative means auto: 10% of the spread of
	// the fused scores per unit of source-weight spread, applied only when the candidates'
	// source weights differ.
	Source float64 `json:"Source"`
}

// Options configure a search. DefaultOptions are docs/design.md §5's.
type Options struct {
	Mode Mode `json:"Mode"`
	// WindowDays is how far back from A a recency, decay, hybrid, dense or bm25 search looks
	// (0: unbounded).
	WindowDays int `json:"WindowDays"`
	// From and To are a hard range of publication days (inclusive, whole UTC days; zero =
	// open). Window mode requires at least one; other modes apply them as a filter.
	From time.Time `json:"From"`
	To   time.Time `json:"To"`
	// TopNEach is how many candidates each branch contributes before fusion.
	TopNEach int `json:"TopNEach"`
	// K is how many results to return.
	K int `json:"K"`
	// EvolutionK is how many results each evolution group ("then", "now") gets.
	EvolutionK int `json:"EvolutionK"`
	// KRRF is the rank constant of reciprocal rank fusion.
	KRRF    float64 `json:"KRRF"`
	Weights Weights `json:"Weights"`
	// Alpha and Lambda shape decay mode.
	Alpha  float64 `json:"Alpha"`
	Lambda float64 `json:"Lambda"`
	// Pool is the evolution mode's pool of most relevant candidates.
	Pool int `json:"Pool"`
	// PoolFloor is the least score, as a share of the best candidate's, of a member of the
	// evolution pool (0: none). A topic only a few documents name fills the rest of a fixed
	// pool with the tail of one branch, and the newest of that tail would be "now".
	PoolFloor float64 `json:"PoolFloor,omitempty"`
	// MaxPerSource caps results per source (0: no cap).
	MaxPerSource int `json:"MaxPerSource"`
	// Sources, when set, is a hard filter on the chunk's source (case-insensitive: "риа
	// новости" finds "РИА Новости").
	Sources []string `json:"Sources"`
	// ClusterGap, when positive, turns on the time-gap cluster rerank: candidates of one
	// source published at most ClusterGap apart (a Telegram post split into several messages,
	// a live blog's updates) merge into one candidate, the best-scored fragment carrying all
	// the fragments' texts, scored mean(fragment scores) + DensityBonus·ln(1 + density), where
	// density is the number of other fragments in the run (0 for a lone candidate, which keeps
	// its score). DensityBonus is in the mode's score units. Off by default: with day-granular
	// dates (most news feeds) every same-day item of a source would merge.
	ClusterGap   time.Duration `json:"ClusterGap"`
	DensityBonus float64       `json:"DensityBonus"`
	// TimeRank is how the time rank counts candidates of one day: TimeRankCompetition ("" is
	// the same) or TimeRankDays.
	TimeRank string `json:"TimeRank"`
	// Expand turns on pseudo-relevance feedback on the BM25 branch (RM3-style, feedback.go;
	// "rm3" in an eval system name): this many words from the top FeedbackDocs BM25 hits (0:
	// DefaultFeedbackDocs) are added to the query, which is searched again. 0 is off. It is
	// not the LLM's query variants (internal/expand, the ask workflow's Expand option).
	Expand       int `json:"Expand"`
	FeedbackDocs int `json:"FeedbackDocs"`
	// FreshBoost multiplies Weights.Time for a query that asks for fresh news ("latest",
	// "this week": answer.Reading.Fresh); 0 and 1 leave it. Search itself never applies it.
	FreshBoost float64 `json:"FreshBoost"`
	// TimePool, when positive, gives the time rank (recency mode) only to the TimePool best
	// candidates by relevance alone (the dense and BM25 ranks fused without time): freshness
	// then orders what is relevant, and a fresh candidate that only one branch's deep ranks
	// reached gets no freshness credit. 0 ranks every candidate by time.
	TimePool int `json:"TimePool,omitempty"`
	// Int8Rerank is how the dense branch scans a shard that has int8 codes (Shard.Int8): the
	// best TopNEach·Int8Rerank rows by int8 score are re-scored in float32 and ranked by that
	// (0: vecindex.DefaultRerank). Negative scans the float32 vectors only, as for a shard
	// without codes.
	Int8Rerank int `json:"Int8Rerank,omitempty"`
	// Near, when its From is set, makes recency's time rank a rank of closeness to the days
	// [Near.From, Near.To] instead of freshness: a candidate published inside them ranks first,
	// then by the days between its publication and the nearer end. It is how auto searches a
	// period named in a question (answer.Reading.Near): the period's own reports first, later
	// and earlier ones by relevance, and no preference for what is fresh at the anchor.
	Near Span `json:"Near,omitzero"`
	// Stated, when set beside Near, is the period Near was drawn around: a candidate whose
	// title states the period it is about (intent.Stated: "Audi Report 2020", published in
	// March 2021) is placed by that period instead of its publication day, at the days between
	// it and Stated (0 when they overlap). A yearly report is about the year before the one it
	// is published in; its publication day would place it in the wrong year. It changes only
	// the time rank: the mask still reads the publication day, so nothing published after the
	// anchor can rank.
	Stated Span `json:"Stated,omitzero"`
}

// Span is a range of days (UTC, 00:00 of each; To inclusive).
type Span struct {
	From time.Time `json:"From"`
	To   time.Time `json:"To"`
}

// Time rank styles (Options.TimeRank).
const (
	// TimeRankCompetition: 1 + the number of candidates on strictly fresher days.
	TimeRankCompetition = "competition"
	// TimeRankDays: 1 + the number of strictly fresher days that have candidates.
	TimeRankDays = "days"
)

// DefaultDensityBonus is the time-gap rerank's weight of ln(1 + density): about the
// difference between ranks 1 and 10 of one RRF branch (1/61 − 1/70), so that a run of posts
// lifts its merged candidate a few places, not above every lone better match.
const DefaultDensityBonus = 0.002

// DefaultOptions: recency mode, 365-day window, 500 per branch, k 30, weights dense 1, BM25
// 0.75, time 1.2 with the time rank by distinct days, auto source weight, decay α 0.5 λ 1, 10
// results; evolution: the 50 most relevant that score at least half the best, 3 per group.
//
// The fusion parameters are `asof tune`'s choice on the public realtimeqa questions of 2022
// (grid of 240, objective the mean of nDCG@10 over grade-2 and over all judged questions),
// confirmed on those of 2023 (docs/evaluation.md, BENCHMARKS.md); they were k 60, weights
// 1/1/0.6 and competition time ranks before. The time weight then rose from 1 to 1.2 for
// Russian Telegram, where the same news repeats daily and the fresh post is the answer: on the
// public Russian dev set (evalsets/tg-finance-ru-dev) temporal_rrf 0.784 → 0.801 and auto
// 0.803 → 0.815 nDCG@10, on all 785 realtimeqa questions temporal_rrf 0.779 → 0.777 (1.5 won
// more on Russian and cost English 0.012).
func DefaultOptions() Options {
	return Options{
		Mode: Recency, WindowDays: 365, TopNEach: 500, K: 10, EvolutionK: 3, KRRF: 30, TimeRank: TimeRankDays,
		Weights: Weights{Dense: 1, BM25: 0.75, Time: 1.2, Source: -1},
		Alpha:   0.5, Lambda: 1, Pool: 50, PoolFloor: 0.5, DensityBonus: DefaultDensityBonus,
	}
}

// Errors.
var (
	// ErrOptions marks options that cannot work.
	ErrOptions = errors.New("retrieve: invalid options")
	// ErrModel means the query vector does not match the shards' model.
	ErrModel = errors.New("retrieve: query vector does not match the index")
)

// Validate reports options that cannot work.
func (o Options) Validate() error {
	var errs []error
	if !slices.Contains(Modes, o.Mode) {
		errs = append(errs, fmt.Errorf("unknown mode %q", o.Mode))
	}
	if o.WindowDays < 0 {
		errs = append(errs, fmt.Errorf("window days %d < 0", o.WindowDays))
	}
	if o.TopNEach < 1 || o.K < 1 {
		errs = append(errs, fmt.Errorf("top-N per branch %d and k %d must be ≥ 1", o.TopNEach, o.K))
	}
	if o.KRRF <= 0 {
		errs = append(errs, fmt.Errorf("RRF constant %v must be > 0", o.KRRF))
	}
	if o.TimeRank != "" && o.TimeRank != TimeRankCompetition && o.TimeRank != TimeRankDays {
		errs = append(errs, fmt.Errorf("unknown time rank %q (%s, %s)", o.TimeRank, TimeRankCompetition, TimeRankDays))
	}
	if o.TimePool < 0 {
		errs = append(errs, fmt.Errorf("time pool %d < 0", o.TimePool))
	}
	if o.Expand < 0 || o.FeedbackDocs < 0 {
		errs = append(errs, fmt.Errorf("feedback terms %d and feedback documents %d must not be negative", o.Expand, o.FeedbackDocs))
	}
	if o.FreshBoost < 0 || math.IsNaN(o.FreshBoost) {
		errs = append(errs, fmt.Errorf("fresh boost %v must not be negative", o.FreshBoost))
	}
	if o.ClusterGap < 0 || o.DensityBonus < 0 {
		errs = append(errs, fmt.Errorf("cluster gap %v and density bonus %v must not be negative", o.ClusterGap, o.DensityBonus))
	}
	if o.Alpha < 0 || o.Alpha > 1 || o.Lambda < 0 {
		errs = append(errs, fmt.Errorf("decay α %v must be in [0,1] and λ %v ≥ 0", o.Alpha, o.Lambda))
	}
	if o.PoolFloor < 0 || o.PoolFloor > 1 || math.IsNaN(o.PoolFloor) {
		errs = append(errs, fmt.Errorf("evolution pool floor %v must be in [0, 1]", o.PoolFloor))
	}
	if o.Mode == Evolution && (o.Pool < 2 || o.EvolutionK < 1) {
		errs = append(errs, fmt.Errorf("evolution pool %d must be ≥ 2 and k per group %d ≥ 1", o.Pool, o.EvolutionK))
	}
	if o.Mode == Window && o.From.IsZero() && o.To.IsZero() {
		errs = append(errs, errors.New("window mode needs a date range (--year, --from/--to, or dates in the query)"))
	}
	if !o.From.IsZero() && !o.To.IsZero() && o.To.Before(o.From) {
		errs = append(errs, fmt.Errorf("range %s..%s ends before it starts", day(o.From), day(o.To)))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrOptions, errors.Join(errs...))
	}
	return nil
}

func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Bounds is the allowed publication interval [Lo, Hi] for anchor asOf; Empty when nothing can
// be allowed (a range wholly after A).
type Bounds struct {
	Lo, Hi time.Time
	Empty  bool
	// HardLo is the part of Lo a hard range sets (zero: none): a standing text is bounded by it,
	// never by the recency window, which is for news. EmptyStanding is Empty for standing texts.
	HardLo        time.Time
	EmptyStanding bool
}

// Allows reports whether a chunk published at t passes the time mask.
func (b Bounds) Allows(t time.Time) bool {
	return !b.Empty && !t.Before(b.Lo) && !t.After(b.Hi)
}

// AllowsStanding reports whether a standing text published at t passes the time mask: the
// recency window does not bound it, a hard range does.
func (b Bounds) AllowsStanding(t time.Time) bool {
	return !b.EmptyStanding && !t.Before(b.HardLo) && !t.After(b.Hi)
}

// allows is Allows, or AllowsStanding for a standing chunk.
func (b Bounds) allows(c *schemas.Chunk) bool {
	if c.Kind == schemas.KindStanding {
		return b.AllowsStanding(c.PublishedAt)
	}
	return b.Allows(c.PublishedAt)
}

// OverlapsStanding is Overlaps for a shard that holds standing texts: only a hard range bounds
// them, so such a shard is loaded whatever the recency window.
func (b Bounds) OverlapsStanding(minDate, maxDate time.Time) bool {
	return !b.EmptyStanding && !maxDate.Before(b.HardLo) && !minDate.After(b.Hi)
}

// BoundsOf is the time mask of a search as of asOf: never after the end of A's day
// (asofday.Last, the package every as-of check goes through).
func BoundsOf(asOf time.Time, o Options) Bounds {
	b := Bounds{Hi: asofday.Last(asOf)}
	if o.WindowDays > 0 && o.Mode != Window && o.Mode != Evolution {
		b.Lo = asofday.Start(asOf).AddDate(0, 0, -o.WindowDays)
	}
	if !o.From.IsZero() {
		b.HardLo = asofday.Start(o.From)
		if b.HardLo.After(b.Lo) {
			b.Lo = b.HardLo
		}
	}
	if !o.To.IsZero() && asofday.Last(o.To).Before(b.Hi) {
		b.Hi = asofday.Last(o.To)
	}
	b.Empty = b.Hi.Before(b.Lo)
	b.EmptyStanding = b.Hi.Before(b.HardLo)
	return b
}

// Overlaps reports whether a shard with chunks published in [minDate, maxDate] can hold
// allowed chunks; shards that cannot are never loaded.
func (b Bounds) Overlaps(minDate, maxDate time.Time) bool {
	return !b.Empty && !maxDate.Before(b.Lo) && !minDate.After(b.Hi)
}

// Candidate is one retrieved chunk with its evidence.
type Candidate struct {
	Shard, Row int
	Chunk      *schemas.Chunk
	// Vec is the chunk's normalized embedding (a view into the shard).
	Vec []float32
	// Cos is the inner product with the query; BM25 the BM25 score (0 when not matched).
	Cos  float32
	BM25 float64
	// RankDense, RankBM25 and RankTime are 1-based ranks (0: not ranked by that branch).
	RankDense, RankBM25, RankTime int
	// Score is the final score in the mode's scale; results are sorted by it.
	Score float64
	// Exact counts the query's structured identifiers (internal/ident: a circular number, a
	// section, an instrument; ident.Ranking) the chunk holds as a whole: a chunk that holds more
	// ranks before one that holds fewer, whatever its score (0 for a query with none).
	Exact int
	// Group is "then" or "now" in evolution mode, else "".
	Group string
	// Period names the period of a comparison it was found for ("2021", "2020-03", "now";
	// answer.Rank over Reading.Periods), else "".
	Period string
	// Fragments is how many candidates the time-gap rerank merged into this one (1: itself).
	Fragments int
	// Ended, when set, says the candidate's text had stopped being current by the anchor: a
	// superseded text shown as history (evolution) or one an inferred restatement ranks after
	// (internal/lifecycle).
	Ended *lifecycle.Entry
	// FragmentIDs are the chunk ids the time-gap rerank merged into this candidate, oldest
	// first, its own included; nil when it merged nothing. Chunk.Text then holds their texts,
	// in that order, as one block.
	FragmentIDs []string
}

// Result is a search's outcome.
type Result struct {
	Mode   Mode
	Bounds Bounds
	// Allowed is the number of chunks that passed the mask in the searched shards; Life what
	// the index's lifecycle did.
	Allowed int
	Life    LifeCounts
	// Candidates is the fused list before the diversity cap and K (for dedup, evaluation).
	Candidates []Candidate
	// Results are the top K after the per-source cap (evolution: "then" group, then "now").
	Results []Candidate
}

// Search runs one as-of query over shards. query is the text for BM25 (may be empty: dense
// only), qvec its embedding (may be nil: BM25 only). It is Gather then Fuse.
func Search(shards []*Shard, query string, qvec []float32, asOf time.Time, o Options) (Result, error) {
	g, err := Gather(shards, query, qvec, asOf, o)
	if err != nil {
		return Result{}, err
	}
	return g.Fuse(o)
}

// Gathered is a search's evidence before fusion: the as-of mask applied, and each branch's top
// N (dense by inner product, BM25) as ranked candidates. Fuse turns it into a ranking; one
// Gathered can be fused with several weightings, rank constants, time-rank styles and any
// branch depth up to its own (what a parameter sweep does, see Cache).
type Gathered struct {
	// Bounds is the time mask; Allowed the chunks that passed it in the searched shards.
	Bounds  Bounds
	Allowed int
	// Life counts what the index's lifecycle left out (Result.Life).
	Life LifeCounts
	// TopN is the branch depth gathered.
	TopN int
	asOf time.Time
	// cands have RankDense, RankBM25, Cos and BM25 set; sorted by (Shard, Row).
	cands []Candidate
}

// LifeCounts say what a search's mask did with documents that change (internal/lifecycle):
// the allowed chunks of standing texts, and the document versions it hid because they were
// superseded, or were standing texts not yet in force, by the anchor. (Older versions of a
// document replaced by a newer one are hidden too and not counted: one version is the
// document.)
type LifeCounts struct {
	// Standing counts the standing documents allowed (in force, or history in evolution).
	Standing   int `json:"standing,omitempty"`
	Superseded int `json:"superseded,omitempty"`
	NotYet     int `json:"not_yet,omitempty"`
	// News counts the allowed chunks of news (the rest of Allowed).
	News int `json:"news,omitempty"`
	// TakenDown counts the documents taken down whose rows the mask removed.
	TakenDown int `json:"taken_down,omitempty"`
}

// Gather applies the mask and runs both branches to depth o.TopNEach.
func Gather(shards []*Shard, query string, qvec []float32, asOf time.Time, o Options) (*Gathered, error) {
	return gather(shards, query, qvec, asOf, o, nil)
}

// gather is Gather, the dense branch taken from dense when it holds it (DenseMany).
func gather(shards []*Shard, query string, qvec []float32, asOf time.Time, o Options, dense *DenseBatch) (*Gathered, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if asOf.IsZero() {
		return nil, fmt.Errorf("%w: no anchor date", ErrOptions)
	}
	mk := maskOf(asOf, o)
	g := &Gathered{Bounds: mk.b, TopN: o.TopNEach, asOf: asOf}
	if mk.empty() || len(shards) == 0 {
		return g, nil
	}
	masks := make([]vecindex.Mask, len(shards))
	var live []int // shards that can hold allowed chunks
	standingLive, lifeHidden, windowed := false, 0, 0
	standing, superseded, notYet, gone := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for si, s := range shards {
		if err := checkShard(s, qvec); err != nil {
			return nil, err
		}
		m, n := mk.rows(s)
		masks[si] = m
		g.Allowed += n.allowed
		for k := range n.standing {
			standing[k] = true
		}
		g.Life.News += n.news
		lifeHidden += n.life
		windowed += n.windowed
		for k := range n.superseded {
			superseded[k] = true
		}
		for k := range n.notYet {
			notYet[k] = true
		}
		for k := range n.gone {
			gone[k] = true
		}
		if n.allowed > 0 {
			live = append(live, si)
			standingLive = standingLive || len(n.standing) > 0
		}
	}
	g.Life.Standing, g.Life.Superseded, g.Life.NotYet, g.Life.TakenDown = len(standing), len(superseded), len(notYet), len(gone)
	if g.Allowed == 0 {
		return g, nil
	}
	pool := map[[2]int]*Candidate{}
	get := func(si, row int) *Candidate {
		k := [2]int{si, row}
		if c, ok := pool[k]; ok {
			return c
		}
		s := shards[si]
		c := &Candidate{Shard: si, Row: row, Chunk: &s.Chunks[row]}
		if s.Vectors != nil {
			c.Vec = s.Vectors.Row(row)
			if qvec != nil {
				c.Cos = vecindex.Dot(qvec, c.Vec)
			}
		}
		if e, ok := s.Life.Ended(row, asOf); ok {
			c.Ended = &e
		}
		pool[k] = c
		return c
	}
	useDense, useBM25, _ := branches(query, qvec, o.Mode)
	if useDense {
		hits, ok := dense.top(shards, qvec, mk, o.TopNEach, o.Int8Rerank)
		if !ok {
			var err error
			if hits, err = denseTop(shards, live, masks, qvec, o.TopNEach, o.Int8Rerank); err != nil {
				return nil, err
			}
		}
		for r, h := range hits {
			get(h.shard, h.row).RankDense = r + 1
		}
	}
	if useBM25 {
		w := lexical.Window{From: mk.b.Lo, To: mk.b.Hi}
		if standingLive { // standing texts before the recency window: bleve's range must reach them
			w.From = mk.b.HardLo
			lifeHidden += windowed
		}
		if err := bm25Top(shards, live, masks, query, w, lifeHidden, o, get); err != nil {
			return nil, err
		}
		exactMatches(shards, live, masks, ident.NewMatcher(ident.Ranking(ident.Find(query))), pool, get)
	}
	g.cands = make([]Candidate, 0, len(pool))
	for _, c := range pool {
		g.cands = append(g.cands, *c)
	}
	// Map order is random: fix it before anything depends on order.
	slices.SortFunc(g.cands, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(a.Shard, b.Shard), cmp.Compare(a.Row, b.Row))
	})
	return g, nil
}

// MaxExact bounds the chunks an identifier adds to the candidates: a query whose identifiers
// more allowed chunks hold than this (a common section number) marks only the candidates the
// branches found.
const MaxExact = 100

// exactMatches marks the allowed chunks of the live shards that hold the query's identifiers
// (m; nil: none) as exact matches (Candidate.Exact), adding those the branches missed, unless
// more than MaxExact hold them. The mask decides as it does for the branches: a chunk it leaves
// out is never read.
func exactMatches(shards []*Shard, live []int, masks []vecindex.Mask, m *ident.Matcher, pool map[[2]int]*Candidate, get func(int, int) *Candidate) {
	if m == nil {
		return
	}
	type hit struct{ si, row, n int }
	var hits []hit
	for _, si := range live {
		s := shards[si]
		for row := range s.Chunks {
			if !masks[si].Allowed(row) {
				continue
			}
			c := &s.Chunks[row]
			if n := max(m.Count(c.Text), m.Count(c.Title)); n > 0 {
				hits = append(hits, hit{si, row, n})
			}
		}
	}
	for _, h := range hits {
		if c, ok := pool[[2]int{h.si, h.row}]; ok {
			c.Exact = h.n
		} else if len(hits) <= MaxExact {
			get(h.si, h.row).Exact = h.n
		}
	}
}

// checkShard reports a shard whose vectors do not match its chunks or the query vector.
func checkShard(s *Shard, qvec []float32) error {
	if s.Vectors != nil && s.Vectors.Count != len(s.Chunks) {
		return fmt.Errorf("retrieve: shard %s has %d vectors for %d chunks", s.ID, s.Vectors.Count, len(s.Chunks))
	}
	if s.Int8 != nil && s.Int8.Flat != s.Vectors {
		return fmt.Errorf("retrieve: shard %s has int8 codes of other vectors than its own", s.ID)
	}
	if qvec != nil && s.Vectors != nil && s.Vectors.Dim != len(qvec) {
		return fmt.Errorf("%w: query has %d values, shard %s has %d", ErrModel, len(qvec), s.ID, s.Vectors.Dim)
	}
	return nil
}

// mask is what a search may serve: the time bounds, the anchor (which version of a document is
// current and which standing texts are in force, by the shards' Life), the sources, and
// whether texts superseded by the anchor are history to show (evolution) rather than hidden.
type mask struct {
	b       Bounds
	asOf    time.Time
	sources []string
	history bool
}

// maskOf is the mask of a search with o as of asOf.
func maskOf(asOf time.Time, o Options) mask {
	return mask{b: BoundsOf(asOf, o), asOf: asOf, sources: o.Sources, history: o.Mode == Evolution}
}

// empty reports whether m allows nothing in any shard.
func (m mask) empty() bool { return m.b.Empty && m.b.EmptyStanding }

// masked counts what a mask left out of a shard beyond the time bounds: rows the lifecycle hid.
type masked struct {
	// allowed rows and the rows inside the time bounds that the lifecycle hid (an older
	// version, a superseded or not yet applicable text); the standing documents allowed, and
	// the document versions hidden as superseded or not yet in force.
	allowed, life, news          int
	standing, superseded, notYet map[string]bool
	// gone holds the documents taken down whose rows were removed (Shard.Removed).
	gone map[string]bool
	// windowed counts news rows outside the recency window but inside a standing text's range
	// (bleve's range lets them through when standing texts are searched beside them).
	windowed int
}

// rows is the as-of mask of shard s under m and what it counted.
func (m mask) rows(s *Shard) (vecindex.Mask, masked) {
	vm := vecindex.NewMask(len(s.Chunks))
	var c masked
	for i := range s.Chunks {
		ch := &s.Chunks[i]
		if s.Removed != nil && s.Removed[i] {
			if m.b.allows(ch) {
				c.life++ // hidden like a replaced version: BM25 fetches past it
			}
			if c.gone == nil {
				c.gone = map[string]bool{}
			}
			c.gone[ch.DocID] = true
			continue
		}
		if !m.b.allows(ch) || (len(m.sources) > 0 && !slices.ContainsFunc(m.sources, func(want string) bool { return strings.EqualFold(want, ch.Source) })) {
			if ch.Kind != schemas.KindStanding && m.b.AllowsStanding(ch.PublishedAt) {
				c.windowed++
			}
			continue
		}
		if s.Life != nil && !s.Life.Allows(i, m.asOf) {
			e, _ := s.Life.Entry(i)
			// Evolution shows what was in force before, labelled (Candidate.Ended).
			if hidden := !m.history || !s.Life.AllowsHistory(i, m.asOf); hidden {
				c.life++
				key := ch.DocID + "@" + strconv.Itoa(int(ch.VersionOf()))
				switch {
				case s.Life.NotYet(i, m.asOf):
					if c.notYet == nil {
						c.notYet = map[string]bool{}
					}
					c.notYet[key] = true
				case e.Reason == lifecycle.ReasonSuperseded && s.Life.AllowsHistory(i, m.asOf):
					if c.superseded == nil {
						c.superseded = map[string]bool{}
					}
					c.superseded[key] = true
				}
				continue
			}
		}
		vm.Allow(i)
		c.allowed++
		if ch.Kind == schemas.KindStanding {
			if c.standing == nil {
				c.standing = map[string]bool{}
			}
			c.standing[ch.DocID] = true
		} else {
			c.news++
		}
	}
	return vm, c
}

// branches says which branches a search runs, and whether BM25 keeps only hits in the
// query's language (fused modes).
func branches(query string, qvec []float32, mode Mode) (dense, bm25, sameLang bool) {
	return qvec != nil && mode != BM25, query != "" && mode != Dense, mode != BM25
}

// Fuse ranks the gathered candidates with o: each branch cut to o.TopNEach (at most the depth
// gathered), the time rank over what is left, the mode's score, the time-gap rerank, then the
// per-source cap and K. o must have the mode, mask and sources the candidates were gathered
// with (Cache keys on them); only the fusion's own parameters may differ.
func (g *Gathered) Fuse(o Options) (Result, error) {
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	if o.TopNEach > g.TopN {
		return Result{}, fmt.Errorf("%w: fusing %d per branch from candidates gathered %d deep", ErrOptions, o.TopNEach, g.TopN)
	}
	res := Result{Mode: o.Mode, Bounds: g.Bounds, Allowed: g.Allowed, Life: g.Life}
	if len(g.cands) == 0 {
		return res, nil
	}
	cands := make([]Candidate, 0, len(g.cands))
	for _, c := range g.cands {
		if c.RankDense > o.TopNEach {
			c.RankDense = 0
		}
		if c.RankBM25 > o.TopNEach {
			c.RankBM25, c.BM25 = 0, 0
		}
		if c.RankDense > 0 || c.RankBM25 > 0 || c.Exact > 0 {
			cands = append(cands, c)
		}
	}
	if o.Mode == Recency && o.TimePool > 0 {
		if err := timeRanksAmong(cands, g.asOf, o); err != nil {
			return Result{}, err
		}
	} else {
		timeRanks(cands, g.asOf, o.TimeRank, o.Near, o.Stated)
	}
	if err := score(cands, g.asOf, o); err != nil {
		return Result{}, err
	}
	if o.ClusterGap > 0 && o.Mode != Evolution {
		cands = mergeFragments(cands, o.ClusterGap, o.DensityBonus)
	}
	if o.Mode != Evolution {
		afterRestatements(cands)
	}
	sortByScore(cands)
	res.Candidates = cands
	if o.Mode == Evolution {
		res.Results = evolution(cands, o)
	} else {
		res.Results = capPerSource(cands, o.K, o.MaxPerSource)
	}
	return res, nil
}

// Cache reuses gathered candidates across searches of one question that differ only in how
// they fuse (weights, rank constant, time-rank style, K, branch depth up to MinTopN): what
// evaluation's parameter sweep runs hundreds of times per question. It keys on the query,
// the query vector's identity, the anchor, the mask and the branches, so a search it answers
// equals Search with the same options. Not safe for concurrent use.
type Cache struct {
	// MinTopN is the branch depth to gather at least, so that shallower searches reuse it.
	MinTopN int
	// Dense, when set, holds dense branches run ahead for many questions (DenseMany); a
	// search it holds is not scanned again.
	Dense *DenseBatch
	m     map[cacheKey]*Gathered
}

type cacheKey struct {
	query                 string
	vec                   *float32
	dim                   int
	asOf                  int64
	lo, hi, hardLo        int64
	empty, history        bool
	sources               string
	dense, bm25, sameLang bool
	rm3Terms, rm3Docs     int
	shards                *Shard
	nShards               int
}

// Search is Search, gathering only when no earlier search of the cache gathered the same
// evidence deep enough.
func (c *Cache) Search(shards []*Shard, query string, qvec []float32, asOf time.Time, o Options) (Result, error) {
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	b := BoundsOf(asOf, o)
	k := cacheKey{query: query, dim: len(qvec), asOf: asOf.UnixNano(), lo: b.Lo.UnixNano(), hi: b.Hi.UnixNano(), empty: b.Empty,
		hardLo: b.HardLo.UnixNano(), history: o.Mode == Evolution, sources: strings.Join(o.Sources, "\x00"), nShards: len(shards)}
	k.dense, k.bm25, k.sameLang = branches(query, qvec, o.Mode)
	k.rm3Terms, k.rm3Docs = o.Expand, o.FeedbackDocs
	if len(qvec) > 0 {
		k.vec = &qvec[0]
	}
	if len(shards) > 0 {
		k.shards = shards[0]
	}
	if g, ok := c.m[k]; ok && g.TopN >= o.TopNEach {
		return g.Fuse(o)
	}
	deep := o
	deep.TopNEach = max(o.TopNEach, c.MinTopN)
	g, err := gather(shards, query, qvec, asOf, deep, c.Dense)
	if err != nil {
		return Result{}, err
	}
	if c.m == nil {
		c.m = map[cacheKey]*Gathered{}
	}
	c.m[k] = g
	return g.Fuse(o)
}

type shardHit struct {
	shard, row int
	score      float32
}

// denseTop is the top n allowed rows by inner product over the live shards, scanned in
// parallel (one goroutine per shard, at most GOMAXPROCS at once): exact in float32, or over a
// shard's int8 codes with n·rerank rows re-scored in float32 (Options.Int8Rerank).
func denseTop(shards []*Shard, live []int, masks []vecindex.Mask, q []float32, n, rerank int) ([]shardHit, error) {
	per := make([][]vecindex.Hit, len(live))
	errs := make([]error, len(live))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for j, si := range live {
		if shards[si].Vectors == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if x := shards[si].Int8; x != nil && rerank >= 0 {
				per[j], errs[j] = x.Search(q, n, masks[si], rerank)
			} else {
				per[j], errs[j] = shards[si].Vectors.Search(q, n, masks[si])
			}
		}()
	}
	wg.Wait()
	var all []shardHit
	for j, si := range live {
		if errs[j] != nil {
			return nil, fmt.Errorf("retrieve: shard %s: %w", shards[si].ID, errs[j])
		}
		for _, h := range per[j] {
			all = append(all, shardHit{si, h.Row, h.Score})
		}
	}
	sortHits(all)
	return all[:min(n, len(all))], nil
}

// bm25Top ranks the BM25 branch over the live shards with the date range in the query; the
// source filter and the mask are checked again on every hit (belt and braces: the range in
// bleve is the mask, the check makes the invariant local). The live shards are searched as one
// collection (lexical.SearchAll: document frequencies, lengths and date terms of the one index
// of their chunks), so scores do not depend on how the corpus was cut into periods. Live, not
// every loaded shard: an evaluation loads all of an index's shards and ask only those that
// overlap the window, and both must score a question alike; a shard without an allowed chunk
// (all of it after the anchor or outside the window) adds nothing to the statistics.
func bm25Top(shards []*Shard, live []int, masks []vecindex.Mask, query string, w lexical.Window, hidden int, o Options, get func(int, int) *Candidate) error {
	var idx []*lexical.Index
	var back []int
	for _, si := range live {
		if shards[si].Lexical != nil {
			idx = append(idx, shards[si].Lexical)
			back = append(back, si)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	// With a source filter, ask for more so filtered-out hits do not starve the branch.
	k := o.TopNEach
	if len(o.Sources) > 0 {
		k *= 4
	}
	// Rows the lifecycle hid (older versions, superseded texts) or the recency window (news
	// beside standing texts, whose range bleve cannot tell apart) are left out after bleve's
	// top k: ask for that many more, up to 8 times the depth.
	k = min(k+hidden, max(k, 8*o.TopNEach))
	hits, err := lexical.SearchAll(idx, query, k, w)
	if errors.Is(err, lexical.ErrEmptyQuery) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("retrieve: %w", err)
	}
	// In fused modes lexical evidence counts within the query's script only (textnorm.SameScript:
	// the same language, or Latin-script languages among themselves): an English
	// query matches Russian text on names, numbers and stray Latin words, which rank a text's
	// neighbours (same names, other facts) as high as the answer, and reciprocal rank fusion
	// would weigh that list like the dense one (ru-xquad-r, English questions: hybrid MRR 0.46
	// against dense 0.76). The bm25 mode keeps every hit.
	qlang := ""
	if o.Mode != BM25 {
		qlang = textnorm.Lang(query)
	}
	usable := func(h lexical.ShardHit) bool {
		si := back[h.Shard]
		l := shards[si].Chunks[h.Row].Lang
		return masks[si].Allowed(h.Row) && (qlang == "" || l == "" || textnorm.SameScript(qlang, l))
	}
	if o.Expand > 0 {
		n := cmp.Or(o.FeedbackDocs, DefaultFeedbackDocs)
		var fb []feedbackDoc
		for _, h := range hits {
			if len(fb) == n {
				break
			}
			if usable(h) {
				c := &shards[back[h.Shard]].Chunks[h.Row]
				fb = append(fb, feedbackDoc{text: c.Title + " " + c.Text, weight: h.Score})
			}
		}
		if terms := feedbackTerms(query, fb, o.Expand); len(terms) > 0 {
			hits, err = lexical.SearchAll(idx, query+" "+strings.Join(terms, " "), k, w)
			if err != nil {
				return fmt.Errorf("retrieve: feedback query: %w", err)
			}
		}
	}
	r := 0
	for _, h := range hits {
		if !usable(h) {
			continue
		}
		si := back[h.Shard]
		r++
		c := get(si, h.Row)
		c.RankBM25, c.BM25 = r, h.Score
		if r == o.TopNEach {
			break
		}
	}
	return nil
}

// timeRanks ranks candidates by publication day, freshest first (fusion.Ranks of their day
// numbers); one day shares one rank: 1 + the candidates on strictly fresher days
// (competition), or 1 + the strictly fresher days that have candidates (TimeRankDays). A
// standing text in force is current: it ranks as of the anchor's day, so standing texts never
// outrank each other by age. With near set, by closeness to its days instead (by publication,
// standing texts too): the days inside it are one rank, the first.
func timeRanks(cands []Candidate, asOf time.Time, style string, near, stated Span) {
	days := make([]int64, len(cands))
	lo, hi := asofday.Number(near.From), asofday.Number(near.To)
	slo, shi := asofday.Number(stated.From), asofday.Number(stated.To)
	today := asofday.Number(asOf)
	for i, c := range cands {
		days[i] = asofday.Number(c.Chunk.PublishedAt)
		if c.Chunk.Kind == schemas.KindStanding && near.From.IsZero() && c.Ended == nil {
			days[i] = today
		}
		if near.From.IsZero() {
			continue
		}
		if p, ok := statedPeriod(c.Chunk); ok && !stated.From.IsZero() {
			// Placed by the period it says it is about: the days between the two periods.
			days[i] = -max(slo-asofday.Number(p.To), asofday.Number(p.From)-shi, 0)
			continue
		}
		days[i] = -max(lo-days[i], days[i]-hi, 0) // larger is nearer, as fresher is larger
	}
	ties := fusion.TiesCompetition
	if style == TimeRankDays {
		ties = fusion.TiesDense
	}
	for i, r := range fusion.Ranks(days, ties) {
		cands[i].RankTime = r
	}
}

// statedPeriod is the period a chunk's title states (intent.Stated), as of its publication.
func statedPeriod(c *schemas.Chunk) (intent.Span, bool) {
	return intent.Stated(c.Title, c.PublishedAt)
}

// timeRanksAmong sets the time rank of the o.TimePool candidates that relevance alone ranks
// best (dense and BM25 fused by fusion.RRF, no time, no source; ties keep candidate order),
// ranked among themselves; every other candidate gets none (0).
func timeRanksAmong(cands []Candidate, asOf time.Time, o Options) error {
	n := len(cands)
	dense, bm25 := make([]int, n), make([]int, n)
	for i, c := range cands {
		dense[i], bm25[i] = c.RankDense, c.RankBM25
	}
	rel, err := fusion.RRF(n, fusion.Input{Lists: []fusion.List{{Weight: o.Weights.Dense, Ranks: dense}, {Weight: o.Weights.BM25, Ranks: bm25}}}, fusion.Options{K: o.KRRF})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOptions, err)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rel[b], rel[a]) })
	pool := make([]Candidate, 0, min(n, o.TimePool))
	for _, i := range order[:min(n, o.TimePool)] {
		pool = append(pool, cands[i])
	}
	timeRanks(pool, asOf, o.TimeRank, o.Near, o.Stated)
	for i := range cands {
		cands[i].RankTime = 0
	}
	for j, i := range order[:len(pool)] {
		cands[i].RankTime = pool[j].RankTime
	}
	return nil
}

// score sets each candidate's score for the mode: the fused modes are fusion.RRF of the dense
// and BM25 ranks (recency: and the time rank set by timeRanks), with the source term in
// recency, hybrid and window; decay adds the same source term to its own score.
func score(cands []Candidate, asOf time.Time, o Options) error {
	w := o.Weights
	var sources []*float64
	if o.Mode == Recency || o.Mode == Decay || o.Mode == Hybrid || o.Mode == Window {
		sources = make([]*float64, len(cands))
		for i, c := range cands {
			sources[i] = c.Chunk.SourceWeight
		}
	}
	var scores []float64
	switch o.Mode {
	case Recency, Hybrid, Window, Evolution:
		n := len(cands)
		ranks := make([]int, 3*n)
		dense, bm25, recency := ranks[:n], ranks[n:2*n], ranks[2*n:]
		for i, c := range cands {
			dense[i], bm25[i], recency[i] = c.RankDense, c.RankBM25, c.RankTime
		}
		in := fusion.Input{Lists: []fusion.List{{Weight: w.Dense, Ranks: dense}, {Weight: w.BM25, Ranks: bm25}}, Sources: sources}
		if o.Mode == Recency {
			in.Time = fusion.List{Weight: w.Time, Ranks: recency}
		}
		var err error
		if scores, err = fusion.RRF(len(cands), in, fusion.Options{K: o.KRRF, Source: w.Source}); err != nil {
			return fmt.Errorf("%w: %w", ErrOptions, err)
		}
	case Decay:
		scores = make([]float64, len(cands))
		end := asofday.End(asOf)
		for i, c := range cands {
			years := end.Sub(c.Chunk.PublishedAt).Hours() / 24 / 365.25
			if c.Chunk.Kind == schemas.KindStanding && c.Ended == nil {
				years = 0 // in force: current
			}
			scores[i] = (1-o.Alpha)*float64(c.Cos) + o.Alpha/(1+o.Lambda*max(0, years))
		}
		if err := fusion.AddSource(scores, sources, w.Source); err != nil {
			return fmt.Errorf("%w: %w", ErrOptions, err)
		}
	case Dense:
		scores = make([]float64, len(cands))
		for i, c := range cands {
			scores[i] = float64(c.Cos)
		}
	case BM25:
		scores = make([]float64, len(cands))
		for i, c := range cands {
			scores[i] = c.BM25
		}
	}
	for i := range cands {
		cands[i].Score = scores[i]
	}
	return nil
}

// afterRestatements ranks a standing text that an inferred restatement followed by the anchor
// (lifecycle.ReasonRestated, a soft supersession) right after that restatement when the search
// found both: its score becomes the next below the restatement's best. A text whose restatement
// was not found keeps its place.
func afterRestatements(cands []Candidate) {
	// A chain (A restated by B, B by C) settles in as many passes as it is long.
	for pass := 0; pass < len(cands); pass++ {
		best := map[string]float64{}
		for _, c := range cands {
			if v, ok := best[c.Chunk.DocID]; !ok || c.Score > v {
				best[c.Chunk.DocID] = c.Score
			}
		}
		moved := false
		for i, c := range cands {
			if c.Ended == nil || !c.Ended.Soft() {
				continue
			}
			if v, ok := best[c.Ended.By]; ok && c.Score >= v {
				cands[i].Score, moved = math.Nextafter(v, math.Inf(-1)), true
			}
		}
		if !moved {
			return
		}
	}
}

// SortByScore orders candidates best first; ties: fresher, then chunk id (deterministic).
func SortByScore(cands []Candidate) { sortByScore(cands) }

// sortByScore orders candidates best first: those that hold more of the query's identifiers
// first (Exact), then by score; ties: fresher, then chunk id (deterministic).
func sortByScore(cands []Candidate) {
	slices.SortStableFunc(cands, func(a, b Candidate) int {
		return cmp.Or(
			cmp.Compare(b.Exact, a.Exact),
			cmp.Compare(b.Score, a.Score),
			b.Chunk.PublishedAt.Compare(a.Chunk.PublishedAt),
			cmp.Compare(a.Chunk.ChunkID, b.Chunk.ChunkID),
		)
	})
}

// CapPerSource keeps the first k items with at most maxPer from one source (0: no cap), in
// order; source names an item's source. Retrieval caps its results with it and the answer
// pipeline its folded ranking.
func CapPerSource[T any](items []T, k, maxPer int, source func(T) string) []T {
	out := make([]T, 0, min(k, len(items)))
	per := map[string]int{}
	for _, it := range items {
		if len(out) == k {
			break
		}
		src := source(it)
		if maxPer > 0 && per[src] >= maxPer {
			continue
		}
		per[src]++
		out = append(out, it)
	}
	return out
}

// capPerSource caps candidates by their chunk's source (CapPerSource).
func capPerSource(cands []Candidate, k, maxPer int) []Candidate {
	return CapPerSource(cands, k, maxPer, func(c Candidate) string { return c.Chunk.Source })
}

// evolution takes the Pool most relevant candidates (one per document) that score at least
// PoolFloor times the best (cands are sorted best first) and returns the oldest EvolutionK as
// "then" (oldest first) and the newest as "now" (newest first), never the same chunk in both; a
// pool smaller than 2K is split in half, the extra one going to "now".
func evolution(cands []Candidate, o Options) []Candidate { return EvolutionGroups(cands, o) }

// EvolutionGroups is evolution's choice over cands (best first): what a caller that folded the
// candidates first (answer.Rank: one candidate per cluster of reposts) calls on the folded list.
func EvolutionGroups(cands []Candidate, o Options) []Candidate {
	seen := map[string]bool{}
	var pool []Candidate
	for _, c := range cands {
		if len(pool) == o.Pool || (len(pool) > 0 && c.Score < o.PoolFloor*pool[0].Score) {
			break
		}
		if seen[c.Chunk.DocID] {
			continue
		}
		seen[c.Chunk.DocID] = true
		pool = append(pool, c)
	}
	slices.SortStableFunc(pool, func(a, b Candidate) int {
		return cmp.Or(a.Chunk.PublishedAt.Compare(b.Chunk.PublishedAt), cmp.Compare(b.Score, a.Score))
	})
	nThen := min(o.EvolutionK, len(pool)/2)
	nNow := min(o.EvolutionK, len(pool)-nThen)
	out := make([]Candidate, 0, nThen+nNow)
	for _, c := range pool[:nThen] {
		c.Group = "then"
		out = append(out, c)
	}
	for i := len(pool) - 1; i >= len(pool)-nNow; i-- {
		c := pool[i]
		c.Group = "now"
		out = append(out, c)
	}
	return out
}
