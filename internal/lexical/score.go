package lexical

import (
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
// The one deliberate difference is the date window: bleve ran it as a conjunction with a date
// range query, whose prefix-coded date terms added a small score of their own that depended on
// how the range was split (a document's score moved with its timestamp's position in the
// window) and entered the query norm. Here the window only filters.

// fields are the text fields in query order, with the analyzer of each.
var fields = [2]struct{ name, analyzer string }{
	{"text_en", en.AnalyzerName},
	{"text_ru", ru.AnalyzerName},
}

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

// analyze turns q into the clauses of both fields, in bleve's order.
func analyze(q string) ([]clause, [2]int, error) {
	as, err := analyzers()
	if err != nil {
		return nil, [2]int{}, err
	}
	var out []clause
	var n [2]int
	for f, a := range as {
		for _, tok := range a.Analyze([]byte(q)) {
			out = append(out, clause{field: f, term: tok.Term})
			n[f]++
		}
	}
	return out, n, nil
}

// stats are the BM25 statistics of the collection searched as one: its document count and each
// field's cardinality (bleve's, summed over shards as bleve's global scoring sums them).
type stats struct {
	docs float64
	card [2]int
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
// from it once: each segment's row per document and publication time per document.
type reader struct {
	snap    *scorch.IndexSnapshot
	segs    []*scorch.SegmentSnapshot
	offsets []int // first global document of each segment
	total   int
	stats   stats

	once  sync.Once
	rows  []int32 // global document → row
	times []int64 // global document → published_at (Unix ns); math.MinInt64 when absent
	err   error

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
	for f := range fields {
		if r.stats.card[f], err = snap.FieldCardinality(fields[f].name); err != nil {
			return nil, err
		}
	}
	r.pool.New = func() any { return new(scratch) }
	return r, nil
}

// docTable fills rows and times on first use (one pass over the ids and the date terms).
func (r *reader) docTable() error {
	r.once.Do(func() {
		r.rows = make([]int32, r.total)
		r.times = make([]int64, r.total)
		for i := range r.times {
			r.rows[i] = -1
			r.times[i] = math.MinInt64
		}
		for si, s := range r.segs {
			off := r.offsets[si]
			for d := range int(s.Segment().Count()) {
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
			if r.err = r.readTimes(s, off); r.err != nil {
				return
			}
		}
	})
	return r.err
}

// readTimes reads segment s's publication times from its full-precision date terms.
func (r *reader) readTimes(s *scorch.SegmentSnapshot, off int) error {
	dict, err := s.Segment().Dictionary("published_at")
	if err != nil {
		return fmt.Errorf("lexical: date dictionary: %w", err)
	}
	lo := []byte{numeric.ShiftStartInt64}
	it := dict.AutomatonIterator(nil, lo, []byte{numeric.ShiftStartInt64 + 1})
	for {
		e, err := it.Next()
		if err != nil {
			return fmt.Errorf("lexical: date terms: %w", err)
		}
		if e == nil {
			return nil
		}
		t, err := numeric.PrefixCoded(e.Term).Int64()
		if err != nil {
			return fmt.Errorf("lexical: date term: %w", err)
		}
		pl, err := dict.PostingsList([]byte(e.Term), s.Deleted(), nil)
		if err != nil {
			return fmt.Errorf("lexical: date postings: %w", err)
		}
		pi := pl.Iterator(false, false, false, nil)
		for {
			p, err := pi.Next()
			if err != nil {
				return fmt.Errorf("lexical: date postings: %w", err)
			}
			if p == nil {
				break
			}
			r.times[off+int(p.Number())] = t
		}
	}
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
	dicts   [][2]segment.TermDictionary
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
	}
	if len(sc.dicts) != len(r.segs) {
		sc.dicts = make([][2]segment.TermDictionary, len(r.segs))
		sc.lists = make([]segment.PostingsList, len(r.segs))
		sc.iters = make([]segment.PostingsIterator, len(r.segs))
	}
	return sc
}

func (r *reader) putScratch(sc *scratch) {
	for _, d := range sc.hit {
		sc.score[d] = 0
		sc.fields[d] = 0
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
	d, err := r.segs[si].Segment().Dictionary(fields[f].name)
	if err != nil {
		return nil, fmt.Errorf("lexical: dictionary %s: %w", fields[f].name, err)
	}
	sc.dicts[si][f] = d
	return d, nil
}

// scored is a document of one index with its score.
type scored struct {
	row   int
	score float64
}

// search scores the clauses over the index with the collection statistics st and returns its
// top k inside [from, to] (Unix ns), best first, ties by lower row.
func (r *reader) search(cls []clause, n [2]int, st stats, k int, from, to int64) ([]scored, error) {
	if len(cls) == 0 || r.total == 0 {
		return nil, nil
	}
	if err := r.docTable(); err != nil {
		return nil, err
	}
	sc := r.getScratch()
	defer r.putScratch(sc)

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

	for f := range fields {
		if n[f] == 0 {
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
		// The field's disjunction: its sum times its coordination factor.
		for _, d := range sc.touched {
			if sc.fields[d] == 0 {
				sc.hit = append(sc.hit, d)
			}
			sc.score[d] += sc.sum[d] * (float64(sc.matched[d]) / float64(n[f]))
			sc.fields[d]++
			sc.sum[d], sc.matched[d] = 0, 0
		}
		sc.touched = sc.touched[:0]
	}

	sc.top.reset(k)
	outer := float64(len(fields)) // bleve's outer disjunction has a clause per field, empty or not
	for _, d := range sc.hit {
		if t := r.times[d]; t < from || t > to {
			continue
		}
		row := r.rows[d]
		if row < 0 {
			return nil, errors.New("lexical: a match without a document id")
		}
		sc.top.offer(scored{row: int(row), score: sc.score[d] * (float64(sc.fields[d]) / outer)})
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
