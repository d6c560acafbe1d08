package lexical

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/scorer"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// The scorer below is bleve's BM25 query, evaluated term at a time over the index's postings
// instead of through bleve's searcher tree (a disjunction of term searchers merged document at
// a time through a heap, a DocumentMatch per posting, a top-n collector). It computes the
// score bleve gives a document for the query request built from the same text, with the same
// quirks, so that rankings do not change:
//
//   - the query is a disjunction of two match queries, one per language field, each a
//     disjunction of one term clause per analyzed token (repeated tokens are repeated clauses);
//   - a clause's term weight is bleve's BM25: idf·tf·k1 / (tf + k1·(1 − b + b·len/avgLen)) with
//     tf = √freq, len decoded from the posting's norm, idf = ln(1 + (N − df + 0.5)/(df + 0.5)),
//     and avgLen = ⌈field cardinality / N⌉, where bleve's field cardinality is the number of
//     distinct terms of the field (not of tokens); a field with avgLen 0 (no text in that
//     language) falls back to bleve's TF-IDF idf, 1 + ln(N/(df+1)), which only enters the norm;
//   - the weight is multiplied by idf·queryNorm, queryNorm = 1/√Σ idf² over every clause of
//     both fields (bleve's query norm, so idf counts twice);
//   - a field's sum is multiplied by its coordination factor, matched clauses / clauses, and
//     the document's score by matched fields / 2.
//
// With a window, bleve's query is a conjunction of that disjunction with an inclusive date
// range, and the range scores too: it is a disjunction of the prefix-coded date terms that
// cover the range (coarse terms inside, fine ones at the edges), each a clause of BM25 over
// published_at, with its own coordination factor (1 / terms) and its idf² in the query norm.
// A document's share is larger when its term is rarer, which favours documents near the edges
// of the range (the newest, for an as-of window). This is replicated too: on realtimeqa's
// as-of windows it changed 198 of 200 top-10 lists (score.go's first version filtered only).

// fields are the text fields in query order, with the analyzer of each.
var fields = [2]struct{ name, analyzer string }{
	{"text_en", en.AnalyzerName},
	{"text_ru", ru.AnalyzerName},
}

// dateField is the publication time field, indexed as prefix-coded int64 terms (Unix ns).
const dateField = "published_at"

// fieldDate is the clause field number of date terms (after the text fields).
const fieldDate = len(fields)

// analyzers are the fields' analyzers, built once from the shard mapping.
var analyzers = sync.OnceValues(func() ([2]analysis.Analyzer, error) {
	m := newMapping()
	var out [2]analysis.Analyzer
	for i, f := range fields {
		if out[i] = m.AnalyzerNamed(f.analyzer); out[i] == nil {
			return out, fmt.Errorf("lexical: no analyzer %q", f.analyzer)
		}
	}
	return out, nil
})

// clause is one analyzed query token in one field.
type clause struct {
	field int
	term  []byte
}

// analyze turns q into the clauses of both text fields, in bleve's order, and counts them per
// field.
func analyze(q string) ([]clause, [len(fields)]int, error) {
	as, err := analyzers()
	if err != nil {
		return nil, [len(fields)]int{}, err
	}
	var out []clause
	var n [len(fields)]int
	for f, a := range as {
		for _, tok := range a.Analyze([]byte(q)) {
			out = append(out, clause{field: f, term: tok.Term})
			n[f]++
		}
	}
	return out, n, nil
}

// stats are the BM25 statistics of the collection searched as one: its document count and each
// field's cardinality (bleve's, summed over shards as bleve's global scoring sums them); the
// last field is the date.
type stats struct {
	docs float64
	card [len(fields) + 1]int
}

// avgLen is bleve's average field length for field f (0 turns BM25 off for that field).
func (s stats) avgLen(f int) float64 {
	if s.docs == 0 && s.card[f] == 0 {
		return 0
	}
	return math.Ceil(float64(s.card[f]) / s.docs)
}

// idf is bleve's inverse document frequency of a term in df documents.
func (s stats) idf(f int, df uint64) float64 {
	if s.avgLen(f) > 0 {
		return math.Log(1 + (s.docs-float64(df)+0.5)/(float64(df)+0.5))
	}
	return 1.0 + math.Log(s.docs/float64(df+1))
}

// reader is an index's scorch snapshot, held open for the index's lifetime, and what is built
// from it once: the row of every document.
type reader struct {
	snap    *scorch.IndexSnapshot
	segs    []*scorch.SegmentSnapshot
	offsets []int // first global document of each segment
	total   int
	stats   stats

	once sync.Once
	rows []int32 // global document → row
	err  error

	pool sync.Pool // *scratch
}

// newReader opens the snapshot's segments.
func newReader(snap *scorch.IndexSnapshot) (*reader, error) {
	r := &reader{snap: snap, segs: snap.Segments()}
	for _, s := range r.segs {
		r.offsets = append(r.offsets, r.total)
		r.total += int(s.Segment().Count())
	}
	n, err := snap.DocCount()
	if err != nil {
		return nil, err
	}
	r.stats.docs = float64(n)
	for f := range r.stats.card {
		if r.stats.card[f], err = snap.FieldCardinality(fieldName(f)); err != nil {
			return nil, err
		}
	}
	r.pool.New = func() any { return new(scratch) }
	return r, nil
}

// docTable fills rows on first use (one pass over the ids).
func (r *reader) docTable() error {
	r.once.Do(func() {
		r.rows = make([]int32, r.total)
		for si, s := range r.segs {
			off := r.offsets[si]
			for d := range int(s.Segment().Count()) {
				r.rows[off+d] = -1
				if s.Deleted() != nil && s.Deleted().Contains(uint32(d)) {
					continue
				}
				id, err := s.DocID(uint64(d))
				if err != nil {
					r.err = fmt.Errorf("lexical: document %d: %w", d, err)
					return
				}
				row, err := strconv.Atoi(string(id))
				if err != nil {
					r.err = fmt.Errorf("lexical: bad document id %q", id)
					return
				}
				r.rows[off+d] = int32(row)
			}
		}
	})
	return r.err
}

// fieldName is the index field of clause field f.
func fieldName(f int) string {
	if f == fieldDate {
		return dateField
	}
	return fields[f].name
}

// dateTerms are the date terms of bleve's inclusive date range query over w (DateRangeQuery,
// NewNumericRangeSearcher), in its order, that this index has.
func (r *reader) dateTerms(sc *scratch, w Window) ([]clause, error) {
	lo, hi := math.Inf(-1), math.Inf(1)
	if !w.From.IsZero() {
		lo = numeric.Int64ToFloat64(w.From.UnixNano())
	}
	if !w.To.IsZero() {
		hi = numeric.Int64ToFloat64(w.To.UnixNano())
	}
	var out []clause
	for _, tr := range splitInt64Range(numeric.Float64ToInt64(lo), numeric.Float64ToInt64(hi), 4) {
		for t := tr[0]; bytes.Compare(t, tr[1]) <= 0; t = incrementBytes(t) {
			if !validPrefixCoded(t) { // never a term: skip the dictionary lookups
				continue
			}
			for si := range r.segs {
				d, err := sc.dict(r, si, fieldDate)
				if err != nil {
					return nil, err
				}
				ok, err := d.Contains(t)
				if err != nil {
					return nil, fmt.Errorf("lexical: date terms: %w", err)
				}
				if ok {
					out = append(out, clause{field: fieldDate, term: t})
					break
				}
			}
		}
	}
	return out, nil
}

// validPrefixCoded reports whether t can be a prefix-coded int64 (7 bits per byte after the
// shift byte); bleve enumerates every byte string between a range's ends and looks each up.
func validPrefixCoded(t []byte) bool {
	for _, c := range t[1:] {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// splitInt64Range is bleve's (search/searcher/search_numeric_range.go, unexported): the
// prefix-coded term ranges, [first, last] inclusive, that cover [minBound, maxBound].
func splitInt64Range(minBound, maxBound int64, precisionStep uint) [][2][]byte {
	var rv [][2][]byte
	if minBound > maxBound {
		return rv
	}
	newRange := func(minBound, maxBound int64, shift uint) [2][]byte {
		maxBound |= (int64(1) << shift) - int64(1)
		return [2][]byte{numeric.MustNewPrefixCodedInt64(minBound, shift), numeric.MustNewPrefixCodedInt64(maxBound, shift)}
	}
	for shift := uint(0); ; shift += precisionStep {
		diff := int64(1) << (shift + precisionStep)
		mask := ((int64(1) << precisionStep) - int64(1)) << shift
		hasLower := (minBound & mask) != int64(0)
		hasUpper := (maxBound & mask) != mask
		var nextMinBound int64
		if hasLower {
			nextMinBound = (minBound + diff) &^ mask
		} else {
			nextMinBound = minBound &^ mask
		}
		var nextMaxBound int64
		if hasUpper {
			nextMaxBound = (maxBound - diff) &^ mask
		} else {
			nextMaxBound = maxBound &^ mask
		}
		lowerWrapped := nextMinBound < minBound
		upperWrapped := nextMaxBound > maxBound
		if shift+precisionStep >= 64 || nextMinBound > nextMaxBound || lowerWrapped || upperWrapped {
			rv = append(rv, newRange(minBound, maxBound, shift))
			break
		}
		if hasLower {
			rv = append(rv, newRange(minBound, minBound|mask, shift))
		}
		if hasUpper {
			rv = append(rv, newRange(maxBound&^mask, maxBound, shift))
		}
		minBound = nextMinBound
		maxBound = nextMaxBound
	}
	return rv
}

// incrementBytes is bleve's: the next byte string of the same length.
func incrementBytes(in []byte) []byte {
	rv := slices.Clone(in)
	for i := len(rv) - 1; i >= 0; i-- {
		rv[i]++
		if rv[i] != 0 {
			break
		}
	}
	return rv
}

// scratch is one search's working memory, pooled per reader: score accumulators over every
// document, the touched documents, and each segment's dictionaries (a dictionary is not safe
// for concurrent use, a scratch has one user at a time).
type scratch struct {
	sum     []float64 // per document: this field's clause scores
	matched []uint16  // per document: this field's matched clauses
	score   []float64 // per document: the query score so far
	fields  []uint8   // per document: matched fields
	touched []int32   // documents with a clause match in the current field
	hit     []int32   // documents with any match
	date    []float64 // per document: the date range's score (with a window)
	dated   []bool    // per document: inside the window
	dicts   [][len(fields) + 1]segment.TermDictionary
	lists   []segment.PostingsList
	iters   []segment.PostingsIterator
	top     topK
}

func (r *reader) getScratch() *scratch {
	sc := r.pool.Get().(*scratch)
	if len(sc.sum) != r.total {
		sc.sum = make([]float64, r.total)
		sc.matched = make([]uint16, r.total)
		sc.score = make([]float64, r.total)
		sc.fields = make([]uint8, r.total)
		sc.date = make([]float64, r.total)
		sc.dated = make([]bool, r.total)
	}
	if len(sc.dicts) != len(r.segs) {
		sc.dicts = make([][len(fields) + 1]segment.TermDictionary, len(r.segs))
		sc.lists = make([]segment.PostingsList, len(r.segs))
		sc.iters = make([]segment.PostingsIterator, len(r.segs))
	}
	return sc
}

func (r *reader) putScratch(sc *scratch) {
	for _, d := range sc.hit {
		sc.score[d], sc.fields[d] = 0, 0
		sc.date[d], sc.dated[d] = 0, false
	}
	sc.hit = sc.hit[:0]
	sc.touched = sc.touched[:0]
	r.pool.Put(sc)
}

// dict is segment si's dictionary of field f.
func (sc *scratch) dict(r *reader, si, f int) (segment.TermDictionary, error) {
	if d := sc.dicts[si][f]; d != nil {
		return d, nil
	}
	d, err := r.segs[si].Segment().Dictionary(fieldName(f))
	if err != nil {
		return nil, fmt.Errorf("lexical: dictionary %s: %w", fieldName(f), err)
	}
	sc.dicts[si][f] = d
	return d, nil
}

// scored is a document of one index with its score.
type scored struct {
	row   int
	score float64
}

// search scores the text clauses (n per text field) over the index with the collection
// statistics st and returns its top k, best first, ties by lower row; with a window (w not
// zero), only documents inside it, with the date range's score added (see the top of the file).
func (r *reader) search(text []clause, n [len(fields)]int, st stats, k int, w Window) ([]scored, error) {
	if len(text) == 0 || r.total == 0 {
		return nil, nil
	}
	if err := r.docTable(); err != nil {
		return nil, err
	}
	sc := r.getScratch()
	defer r.putScratch(sc)

	cls := text
	windowed := !w.From.IsZero() || !w.To.IsZero()
	var nDate int
	if windowed {
		dates, err := r.dateTerms(sc, w)
		if err != nil {
			return nil, err
		}
		nDate = len(dates)
		cls = append(slices.Clip(text), dates...)
	}

	// Document frequencies first: idf, and so the query norm, needs every clause's.
	type plan struct {
		idf, avgLen float64
		lists       []segment.PostingsList
	}
	plans := make([]plan, len(cls))
	norm := 0.0
	for i, c := range cls {
		var df uint64
		if st.card[c.field] > 0 { // a field with no terms in this collection has no postings
			plans[i].lists = make([]segment.PostingsList, len(r.segs))
			for si, s := range r.segs {
				d, err := sc.dict(r, si, c.field)
				if err != nil {
					return nil, err
				}
				pl, err := d.PostingsList(c.term, s.Deleted(), nil)
				if err != nil {
					return nil, fmt.Errorf("lexical: postings: %w", err)
				}
				plans[i].lists[si] = pl
				df += pl.Count()
			}
		}
		plans[i].idf = st.idf(c.field, df)
		plans[i].avgLen = st.avgLen(c.field)
		norm += plans[i].idf * plans[i].idf
	}
	norm = 1 / math.Sqrt(norm)

	// Field by field (the date last): each clause's postings into the field's sums, then the
	// field's disjunction, its sum times its coordination factor.
	for f := range fieldDate + 1 {
		nf := nDate
		if f < fieldDate {
			nf = n[f]
		}
		if nf == 0 {
			continue
		}
		for i, c := range cls {
			if c.field != f || plans[i].lists == nil {
				continue
			}
			p := plans[i]
			weight := p.idf * norm
			for si, pl := range p.lists {
				if pl == nil || pl.Count() == 0 {
					continue
				}
				off := int32(r.offsets[si])
				sc.iters[si] = pl.Iterator(true, true, false, sc.iters[si])
				it := sc.iters[si]
				for {
					post, err := it.Next()
					if err != nil {
						return nil, fmt.Errorf("lexical: postings: %w", err)
					}
					if post == nil {
						break
					}
					d := off + int32(post.Number())
					if f == fieldDate && sc.fields[d] == 0 {
						continue // the conjunction: no text match, no hit
					}
					var s float64
					if nb, ok := post.(normBits); ok && p.avgLen > 0 && nb.NormUint64() < uint64(len(fieldLengths)) {
						s = bm25(p.idf, p.avgLen, post.Frequency(), fieldLengths[nb.NormUint64()])
					} else {
						s = termScore(p.idf, p.avgLen, post.Frequency(), post.Norm())
					}
					if weight != 1.0 {
						s *= weight
					}
					if sc.matched[d] == 0 {
						sc.touched = append(sc.touched, d)
					}
					sc.sum[d] += s
					sc.matched[d]++
				}
			}
		}
		for _, d := range sc.touched {
			v := sc.sum[d] * (float64(sc.matched[d]) / float64(nf))
			if f == fieldDate {
				sc.date[d], sc.dated[d] = v, true
			} else {
				if sc.fields[d] == 0 {
					sc.hit = append(sc.hit, d)
				}
				sc.score[d] += v
				sc.fields[d]++
			}
			sc.sum[d], sc.matched[d] = 0, 0
		}
		sc.touched = sc.touched[:0]
	}

	sc.top.reset(k)
	outer := float64(len(fields)) // bleve's outer disjunction has a clause per field, empty or not
	for _, d := range sc.hit {
		if windowed && !sc.dated[d] {
			continue
		}
		row := r.rows[d]
		if row < 0 {
			return nil, errors.New("lexical: a match without a document id")
		}
		v := sc.score[d] * (float64(sc.fields[d]) / outer)
		if windowed {
			v += sc.date[d] // the conjunction's sum
		}
		sc.top.offer(scored{row: int(row), score: v})
	}
	return sc.top.sorted(), nil
}

// termScore is bleve's BM25 weight of one posting (scorer.TermQueryScorer.docScore with its
// square-root cache), from the posting's norm.
func termScore(idf, avgLen float64, freq uint64, norm float64) float64 {
	if avgLen > 0 {
		return bm25(idf, avgLen, freq, 1/(norm*norm))
	}
	return sqrtFreq(freq) * norm * idf
}

// bm25 is termScore for a field length already decoded from the norm.
func bm25(idf, avgLen float64, freq uint64, fieldLength float64) float64 {
	tf := sqrtFreq(freq)
	return idf * (tf * search.BM25_k1) /
		(tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/avgLen)))
}

// sqrtFreq is bleve's tf, the square root of the term's frequency.
func sqrtFreq(freq uint64) float64 {
	if freq < scorer.MaxSqrtCache {
		return scorer.SqrtCache[int(freq)]
	}
	return math.Sqrt(float64(freq))
}

// normBits is zapx's posting, whose norm is the field length in tokens (Norm returns it as
// 1/√length rounded to float32, which the scorer turns back into a length).
type normBits interface{ NormUint64() uint64 }

// fieldLengths[n] is the field length bleve's scorer sees for a field of n tokens: the
// round trip through Norm's float32, computed once instead of per posting.
var fieldLengths = func() []float64 {
	t := make([]float64, 1<<14)
	for n := range len(t) {
		norm := float64(float32(1.0 / math.Sqrt(float64(n)))) // zapx Posting.Norm
		t[n] = 1 / (norm * norm)
	}
	return t
}()

// topK keeps the k best documents seen (score, then lower row) in a heap, worst on top.
type topK struct {
	k int
	h []scored
}

func (t *topK) reset(k int) { t.k, t.h = k, t.h[:0] }

// better orders documents: higher score first, then lower row.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.row < b.row
}

func (t *topK) offer(s scored) {
	if len(t.h) < t.k {
		t.h = append(t.h, s)
		for i := len(t.h) - 1; i > 0; { // sift up
			p := (i - 1) / 2
			if !better(t.h[p], t.h[i]) {
				break
			}
			t.h[p], t.h[i] = t.h[i], t.h[p]
			i = p
		}
		return
	}
	if !better(s, t.h[0]) {
		return
	}
	t.h[0] = s
	for i := 0; ; { // sift down: the worst of parent and children on top
		l, w := 2*i+1, i
		if l < len(t.h) && better(t.h[w], t.h[l]) {
			w = l
		}
		if rr := l + 1; rr < len(t.h) && better(t.h[w], t.h[rr]) {
			w = rr
		}
		if w == i {
			break
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

// sorted returns a copy of the kept documents, best first.
func (t *topK) sorted() []scored {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return out
}
