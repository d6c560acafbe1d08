// Package fusion is asof's one reciprocal rank fusion (RRF): ranked lists in, fused scores out.
//
// Item i of n scores
//
//	Base[i] + Σ_lists w_list·1/(K + rank_list(i)) + w_time·1/(K + r_time(i)) [+ w_source·source_weight(i)]
//
// where a list that did not rank an item (rank 0), or ranked nothing at all (nil ranks), adds
// nothing for it. Three callers use it:
//   - retrieval (internal/retrieve) fuses its dense and BM25 branches with the time rank and
//     the source term;
//   - the answer pipeline (internal/answer) fuses a question's own search with its variants'
//     (an LLM's rephrasings, a hypothetical answer), each list of weight 1;
//   - a reranker's order (internal/rerank) is one more list added to a ranking's own scores.
//
// The time rank is an input like the other lists, computed by the caller from publication days
// with [Ranks]; nothing here reads a date. Modelled on bleve's fusion/rrf.go. Nothing here does
// I/O or imports Temporal.
package fusion

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// DefaultK is the rank constant of Cormack, Clarke and Büttcher's RRF paper, and bleve's.
const DefaultK = 60

// ErrInput marks lists, scores or options that cannot be fused.
var ErrInput = errors.New("fusion: invalid input")

// List is one ranked list over the items being fused.
type List struct {
	// Weight multiplies the list's reciprocal ranks.
	Weight float64
	// Ranks[i] is item i's 1-based rank in the list, 0 when the list did not rank it (it then
	// adds nothing for it). Ranks may share a value (tied items score alike). A nil Ranks is a
	// list that ranked nothing: a branch that returned nothing.
	Ranks []int
}

// Input is what [RRF] fuses. Every slice that is set has one entry per item.
type Input struct {
	// Base, when set, is each item's score before the lists are added: a ranking's own fused
	// score that one more list (a reranker's) is added to.
	Base []float64
	// Lists are the relevance lists, added in order (retrieval: dense, then BM25).
	Lists []List
	// Time is the time rank (the freshest item 1), added after Lists; a nil Ranks leaves it
	// out.
	Time List
	// Sources, when set, are the items' source weights (nil: the item has none); the source
	// term Options.Source·weight is added last ([AddSource]). When nil there is no source term.
	Sources []*float64
}

// Options configure [RRF].
type Options struct {
	// K is the rank constant: rank r of a list of weight w adds w·1/(K + r).
	K float64 `json:"K"`
	// Source multiplies an item's source weight when Input.Sources is set; negative is auto
	// ([AddSource]).
	Source float64 `json:"Source"`
}

// DefaultOptions: K 60, no source weight.
func DefaultOptions() Options { return Options{K: DefaultK} }

// Validate reports options that cannot work.
func (o Options) Validate() error {
	var errs []error
	if !(o.K >= 0) || math.IsInf(o.K, 0) {
		errs = append(errs, fmt.Errorf("rank constant %v must be a number ≥ 0", o.K))
	}
	if !finite(o.Source) {
		errs = append(errs, fmt.Errorf("source weight %v must be a number", o.Source))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInput, errors.Join(errs...))
	}
	return nil
}

// RRF fuses n items: the fused score of each, in item order (see the package comment). It
// refuses lists, base scores or source weights whose length is not n, negative ranks, and
// weights, base scores or a rank constant that are not numbers.
func RRF(n int, in Input, o Options) ([]float64, error) {
	if err := check(n, in, o); err != nil {
		return nil, err
	}
	scores := make([]float64, n)
	copy(scores, in.Base)
	for _, l := range in.Lists {
		add(scores, l, o.K)
	}
	add(scores, in.Time, o.K)
	if in.Sources != nil {
		if err := AddSource(scores, in.Sources, o.Source); err != nil {
			return nil, err
		}
	}
	return scores, nil
}

// add adds l's weighted reciprocal ranks to scores.
func add(scores []float64, l List, k float64) {
	for i, r := range l.Ranks {
		if r > 0 {
			scores[i] += l.Weight * (1 / (k + float64(r)))
		}
	}
}

// check reports input RRF cannot fuse.
func check(n int, in Input, o Options) error {
	if n < 0 {
		return fmt.Errorf("%w: %d items", ErrInput, n)
	}
	if err := o.Validate(); err != nil {
		return err
	}
	var errs []error
	if in.Base != nil && len(in.Base) != n {
		errs = append(errs, fmt.Errorf("%d base scores for %d items", len(in.Base), n))
	}
	for i, s := range in.Base {
		if !finite(s) {
			errs = append(errs, fmt.Errorf("base score %d is %v", i, s))
			break
		}
	}
	lists := append(slices.Clip(in.Lists), in.Time)
	for j, l := range lists {
		name := fmt.Sprintf("list %d", j)
		if j == len(in.Lists) {
			name = "the time rank"
		}
		if l.Ranks == nil {
			continue
		}
		if len(l.Ranks) != n {
			errs = append(errs, fmt.Errorf("%s has %d ranks for %d items", name, len(l.Ranks), n))
		}
		if !finite(l.Weight) {
			errs = append(errs, fmt.Errorf("%s has weight %v", name, l.Weight))
		}
		if i := slices.IndexFunc(l.Ranks, func(r int) bool { return r < 0 }); i >= 0 {
			errs = append(errs, fmt.Errorf("%s ranks item %d at %d (ranks start at 1; 0 is unranked)", name, i, l.Ranks[i]))
		}
	}
	if in.Sources != nil && len(in.Sources) != n {
		errs = append(errs, fmt.Errorf("%d source weights for %d items", len(in.Sources), n))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInput, errors.Join(errs...))
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// AddSource adds w·source weight to each score whose item has a source weight (sources[i] not
// nil). A negative w is auto: 10% of the spread of the scores per unit of spread of the source
// weights, so the full spread of source weights moves a score by a tenth of the scores' spread.
// Nothing is added when no item has a source weight or all of them are equal. Retrieval's decay
// mode, which is not a fusion, adds its source term with it too.
func AddSource(scores []float64, sources []*float64, w float64) error {
	if len(sources) != len(scores) {
		return fmt.Errorf("%w: %d source weights for %d scores", ErrInput, len(sources), len(scores))
	}
	if !finite(w) {
		return fmt.Errorf("%w: source weight %v must be a number", ErrInput, w)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	slo, shi := math.Inf(1), math.Inf(-1)
	for i, s := range scores {
		lo, hi = min(lo, s), max(hi, s)
		if sw := sources[i]; sw != nil {
			slo, shi = min(slo, *sw), max(shi, *sw)
		}
	}
	if math.IsInf(slo, 1) || shi == slo {
		return nil
	}
	if w < 0 {
		w = 0.1 * (hi - lo) / (shi - slo)
	}
	for i, sw := range sources {
		if sw != nil {
			scores[i] += w * *sw
		}
	}
	return nil
}

// Ties is how equal values share a rank ([Ranks]).
type Ties int

const (
	// TiesCompetition ranks a value 1 + the number of strictly better values ("1224").
	TiesCompetition Ties = iota
	// TiesDense ranks a value 1 + the number of distinct strictly better values ("1223").
	TiesDense
)

// Ranks ranks values highest first, from 1; equal values share a rank, counted by ties. The time
// rank is Ranks of the items' publication day numbers (the freshest day first); a reranker's
// list is Ranks of its scores. NaN ranks below every number.
func Ranks[T cmp.Ordered](values []T, ties Ties) []int {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	if ties == TiesDense {
		sorted = slices.Compact(sorted)
	}
	ranks := make([]int, len(values))
	for i, v := range values {
		j, _ := slices.BinarySearchFunc(sorted, v, func(e, t T) int { return cmp.Compare(t, e) })
		ranks[i] = 1 + j
	}
	return ranks
}
