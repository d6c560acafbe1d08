package lexical

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
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
//   - the query is a disjunction of match queries, one per language field (English and
//     Russian, and CJK bigrams where the collection has CJK text), each a disjunction of one
//     term clause per token of the field's analyzer (repeated tokens are repeated clauses);
//   - a clause's term weight is bleve's BM25: idf·tf·k1 / (tf + k1·(1 − b + b·len/avgLen)) with
//     tf = √freq, len decoded from the posting's norm, idf = ln(1 + (N − df + 0.5)/(df + 0.5)),
//     and avgLen = ⌈field cardinality / N⌉, where bleve's field cardinality is the number of
//     distinct terms of the field (not of tokens); a field with avgLen 0 (no text in that
//     language) falls back to bleve's TF-IDF idf, 1 + ln(N/(df+1)), which only enters the norm;
//   - the weight is multiplied by idf·queryNorm, queryNorm = 1/√Σ idf² over every clause of
//     every field (bleve's query norm, so idf counts twice);
//   - a field's sum is multiplied by its coordination factor, matched clauses / clauses, and
//     the document's score by matched fields / fields queried.
//
// Several indexes are scored as the one index of all their documents: N, each field's
// cardinality (distinct terms of the union, counted from hashes of each index's terms), each
// clause's df (summed), the query norm and the window's date terms (those any index has) are
// the collection's, and each index then scores its own postings with them.
//
// With a window, bleve's query is a conjunction of that disjunction with an inclusive date
// range, and the range scores too: it is a disjunction of the prefix-coded date terms that
// cover the range (coarse terms inside, fine ones at the edges), each a clause of BM25 over
// published_at, with its own coordination factor (1 / terms) and its idf² in the query norm.
// A document's share is larger when its term is rarer, which favours documents near the edges
// of the range (the newest, for an as-of window). This is replicated too: on realtimeqa's
// as-of windows it changed 198 of 200 top-10 lists (score.go's first version filtered only).

// fields are the text fields in query order, with the analyzer of each. Every query has the
// English and Russian match queries, as it had before the CJK field existed, so English and
// Russian scores are unchanged; the CJK one joins where the searched collection has CJK text.
// The Spanish, French and Italian fields (with bleve's Snowball-stemming analyzers) join the
// same way, each where the collection has text in its language.
var fields = [7]struct{ name, analyzer string }{
	{"text_en", en.AnalyzerName},
	{"text_ru", ru.AnalyzerName},
	{"text_cjk", cjk.AnalyzerName},
	{"text_zh", zhAnalyzerName},
	{"text_es", es.AnalyzerName},
	{"text_fr", fr.AnalyzerName},
	{"text_it", it.AnalyzerName},
}

// nText is the number of text fields.
const nText = len(fields)

// fieldCJK is the clause field number of the CJK bigram field, fieldZH of the Chinese words,
// fieldES, fieldFR and fieldIT of the Spanish, French and Italian text.
const (
	fieldCJK = 2
	fieldZH  = 3
	fieldES  = 4
	fieldFR  = 5
	fieldIT  = 6
)

// queried are the text fields a search of a collection with statistics st queries, in order:
// English and Russian always, the CJK bigrams where it has CJK text (Chinese text is in both
// CJK fields), the Chinese words, Spanish, French and Italian each where it has text in them.
func queried(st stats) []int {
	out := []int{0, 1}
	if st.card[fieldCJK] > 0 || st.card[fieldZH] > 0 {
		out = append(out, fieldCJK)
	}
	for _, f := range []int{fieldZH, fieldES, fieldFR, fieldIT} {
		if st.card[f] > 0 {
			out = append(out, f)
		}
	}
	return out
}

// dateField is the publication time field, indexed as prefix-coded int64 terms (Unix ns).
const dateField = "published_at"

// fieldDate is the clause field number of date terms (after the text fields).
const fieldDate = nText

// analyzers are the fields' analyzers, built once from the shard mapping.
var analyzers = sync.OnceValues(func() ([nText]analysis.Analyzer, error) {
	m := newMapping()
	var out [nText]analysis.Analyzer
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

// analyze turns q into the clauses of the text fields fs, in bleve's order, and counts them per
// field.
func analyze(q string, fs []int) ([]clause, [nText]int, error) {
	as, err := analyzers()
	if err != nil {
		return nil, [nText]int{}, err
	}
	var out []clause
	var n [nText]int
	for _, f := range fs {
		for _, tok := range as[f].Analyze([]byte(q)) {
			out = append(out, clause{field: f, term: tok.Term})
			n[f]++
		}
	}
	return out, n, nil
}

// stats are the BM25 statistics of the collection searched as one: its document count and each
// field's cardinality (bleve's: the distinct terms of the field); the last field is the date.
type stats struct {
	docs float64
	card [nText + 1]int
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
// from it once: the row of every document, and the hashes of each field's terms.
type reader struct {
	id      uint64 // unique in the process (unionCards)
	snap    *scorch.IndexSnapshot
	segs    []*scorch.SegmentSnapshot
	offsets []int // first global document of each segment
	total   int
	stats   stats

	once sync.Once
	rows []int32 // global document → row
	err  error

	termsOnce [nText + 1]sync.Once
	terms     [nText + 1][]uint64 // per field: the sorted hashes of its distinct terms
	termsErr  [nText + 1]error

	pool sync.Pool // *scratch
}

// readerIDs numbers readers.
var readerIDs atomic.Uint64

// newReader opens the snapshot's segments.
func newReader(snap *scorch.IndexSnapshot) (*reader, error) {
	r := &reader{id: readerIDs.Add(1), snap: snap, segs: snap.Segments()}
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

// termHashes are the sorted 64-bit hashes (FNV-1a) of field f's distinct terms, read once
// from the index's dictionaries: what the cardinality of several indexes as one is counted
// from.
func (r *reader) termHashes(f int) ([]uint64, error) {
	r.termsOnce[f].Do(func() {
		if r.stats.card[f] == 0 {
			return
		}
		d, err := r.snap.FieldDict(fieldName(f))
		if err != nil {
			r.termsErr[f] = fmt.Errorf("lexical: terms of %s: %w", fieldName(f), err)
			return
		}
		defer d.Close()
		hs := make([]uint64, 0, r.stats.card[f])
		for {
			e, err := d.Next()
			if err != nil {
				r.termsErr[f] = fmt.Errorf("lexical: terms of %s: %w", fieldName(f), err)
				return
			}
			if e == nil {
				break
			}
			hs = append(hs, fnv1a(e.Term))
		}
		slices.Sort(hs)
		r.terms[f] = slices.Compact(hs)
	})
	return r.terms[f], r.termsErr[f]
}

// fnv1a is the 64-bit FNV-1a hash of s.
func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// unionCount is the number of distinct values in sorted, duplicate-free lists, merged through
// a heap of the lists' heads.
func unionCount(lists [][]uint64) int {
	type head struct {
		v    uint64
		list int
		at   int
	}
	var h []head
	for i, l := range lists {
		if len(l) > 0 {
			h = append(h, head{l[0], i, 0})
		}
	}
	if len(h) == 1 {
		return len(lists[h[0].list])
	}
	less := func(i, j int) bool { return h[i].v < h[j].v }
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && less(l, m) {
				m = l
			}
			if l+1 < len(h) && less(l+1, m) {
				m = l + 1
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	n := 0
	var last uint64
	for len(h) > 0 {
		top := &h[0]
		if n == 0 || top.v != last {
			n++
			last = top.v
		}
		if top.at++; top.at < len(lists[top.list]) {
			top.v = lists[top.list][top.at]
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return n
}

// fieldName is the index field of clause field f.
func fieldName(f int) string {
	if f == fieldDate {
		return dateField
	}
	return fields[f].name
}

// dateTerms are the date terms of bleve's inclusive date range query over w (DateRangeQuery,
// NewNumericRangeSearcher), in its order, that at least one of parts has: the range of one
// index holding all their documents.
func dateTerms(parts []*part, w Window) ([]clause, error) {
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
			for _, p := range parts {
				ok, err := p.has(fieldDate, t)
				if err != nil {
					return nil, err
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
	dicts   [][nText + 1]segment.TermDictionary
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
		sc.dicts = make([][nText + 1]segment.TermDictionary, len(r.segs))
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

// part is one index's share of a search: its reader and scratch, and each clause's postings
// lists in each of its segments with the clause's document frequency there.
type part struct {
	shard int // the index's position in the searched indexes
	r     *reader
	sc    *scratch
	lists [][]segment.PostingsList // per clause: per segment; nil where the field has no terms
	df    []uint64                 // per clause
}

// has reports whether one of p's segments has term t in field f.
func (p *part) has(f int, t []byte) (bool, error) {
	if p.r.stats.card[f] == 0 {
		return false, nil
	}
	for si := range p.r.segs {
		d, err := p.sc.dict(p.r, si, f)
		if err != nil {
			return false, err
		}
		ok, err := d.Contains(t)
		if err != nil {
			return false, fmt.Errorf("lexical: dictionary %s: %w", fieldName(f), err)
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// lookup reads each clause's postings lists from p's segments and counts its document
// frequency in p. A field p has no terms in is never looked up (in an English-only index, the
// Russian one).
func (p *part) lookup(cls []clause) error {
	p.lists = make([][]segment.PostingsList, len(cls))
	p.df = make([]uint64, len(cls))
	for i, c := range cls {
		if p.r.stats.card[c.field] == 0 {
			continue
		}
		p.lists[i] = make([]segment.PostingsList, len(p.r.segs))
		for si, s := range p.r.segs {
			d, err := p.sc.dict(p.r, si, c.field)
			if err != nil {
				return err
			}
			pl, err := d.PostingsList(c.term, s.Deleted(), nil)
			if err != nil {
				return fmt.Errorf("lexical: postings: %w", err)
			}
			p.lists[i][si] = pl
			p.df[i] += pl.Count()
		}
	}
	return nil
}

// weights are each clause's idf and average field length under the statistics st with the
// document frequencies df, and the query norm over all of them (bleve's: idf counts twice).
func weights(cls []clause, df []uint64, st stats) (idf, avgLen []float64, norm float64) {
	idf, avgLen = make([]float64, len(cls)), make([]float64, len(cls))
	for i, c := range cls {
		idf[i] = st.idf(c.field, df[i])
		avgLen[i] = st.avgLen(c.field)
		norm += idf[i] * idf[i]
	}
	return idf, avgLen, 1 / math.Sqrt(norm)
}

// scoring is a search's clauses and what scoring them needs beyond the postings: n text clauses
// per text field of the nq fields queried, nDate date terms last (with a window), and each
// clause's idf and average field length with the query norm.
type scoring struct {
	cls         []clause
	n           [nText]int
	nq, nDate   int
	windowed    bool
	idf, avgLen []float64
	norm        float64
}

// score adds up q's clause scores over p's documents (p.lookup's postings) and returns
// p's top k, best first, ties by lower row; with a window, only documents inside it, with the
// date range's score added (see the top of the file).
func (p *part) score(q *scoring, k int) ([]scored, error) {
	r, sc := p.r, p.sc
	// Field by field (the date last): each clause's postings into the field's sums, then the
	// field's disjunction, its sum times its coordination factor.
	for f := range fieldDate + 1 {
		nf := q.nDate
		if f < fieldDate {
			nf = q.n[f]
		}
		if nf == 0 {
			continue
		}
		for i, c := range q.cls {
			if c.field != f || p.lists[i] == nil {
				continue
			}
			idf, avgLen := q.idf[i], q.avgLen[i]
			weight := idf * q.norm
			for si, pl := range p.lists[i] {
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
					if nb, ok := post.(normBits); ok && avgLen > 0 && nb.NormUint64() < uint64(len(fieldLengths)) {
						s = bm25(idf, avgLen, post.Frequency(), fieldLengths[nb.NormUint64()])
					} else {
						s = termScore(idf, avgLen, post.Frequency(), post.Norm())
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
	outer := float64(q.nq) // bleve's outer disjunction has a clause per field queried, empty or not
	for _, d := range sc.hit {
		if q.windowed && !sc.dated[d] {
			continue
		}
		row := r.rows[d]
		if row < 0 {
			return nil, errors.New("lexical: a match without a document id")
		}
		v := sc.score[d] * (float64(sc.fields[d]) / outer)
		if q.windowed {
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
