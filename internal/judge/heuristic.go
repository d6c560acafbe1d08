package judge

import (
	"math"
	"slices"
	"strings"

	"github.com/asofrag/asof/internal/textnorm"
)

// Thresholds of the [Heuristic] rule; see the package documentation.
const (
	// CoverageDirect is the share of query terms a document must contain
	// for grade 2.
	CoverageDirect = 0.6
	// CoverageRelated is the share of query terms that is enough for
	// grade 1.
	CoverageRelated = 0.3
	// CosineDirect is the least known cosine that allows grade 2: a
	// document that matches the words but not the meaning stays at 1.
	CosineDirect = 0.80
	// CosineRelated is the cosine that is enough on its own for grade 1.
	CosineRelated = 0.83
	// CosineStrong is the cosine that lifts a document with coverage of at
	// least CoverageRelated to grade 2: a paraphrase that shares only some
	// of the query's words ("ECB cuts its key rate" for "ECB interest rate
	// decision").
	CosineStrong = 0.88
	// MinPrefixRunes is the least length, in runes, of a term key that may
	// match a longer key by prefix.
	MinPrefixRunes = 5
	// CosineSlack is how far below the best known cosine of the pool a
	// document's cosine may be and the document still be kept, unless its
	// words alone make it grade 2 (coverage of at least CoverageDirect). The
	// absolute thresholds above were set on E5-small-v2 scores; a multilingual
	// model scores every text of the corpus's language high (0.80–0.90 for
	// unrelated Russian posts), and a floor relative to the pool's best holds
	// for either. Measured on the judged pools of the Russian dev set and
	// realtimeqa 2023 (docs/summaries.md).
	CosineSlack = 0.06
)

// Heuristic is the offline judge ([MethodHeuristic]): it grades each doc by
// the share of the query's content terms found in its title and text and by
// its cosine, with the rule in the package documentation; the pool is docs.
// Verdicts are sorted by ID. It is deterministic and does no I/O.
func Heuristic(query string, docs []Doc) []Verdict { return HeuristicPool(query, docs, Pool{}) }

// Pool is what a batch of candidates is graded against: two facts of the whole
// pool it was retrieved with.
type Pool struct {
	// Best is the best known cosine of the pool, leaving out a document that is
	// the query's own text ([textnorm.IsCopy]): a post pasted as the question
	// finds itself at a cosine near 1, and every other document, its follow-ups
	// included, would fall more than CosineSlack below it.
	Best float64 `json:"best"`
	// Worded reports that some document of the pool shares at least
	// CoverageRelated of the query's terms: the subject is named in the
	// corpus's words, so a document in the query's language that names none of
	// them is not on it, whatever its cosine.
	Worded bool `json:"worded"`
}

// PoolOf returns the Pool facts of docs for query.
func PoolOf(query string, docs []Doc) Pool {
	q := textnorm.Terms(query)
	return poolOf(q, docs, docTerms(docs))
}

// docTerms returns the terms of each doc's title and text.
func docTerms(docs []Doc) [][]string {
	out := make([][]string, len(docs))
	for i, d := range docs {
		out[i] = textnorm.Terms(d.Title + "\n" + d.Text)
	}
	return out
}

// poolOf is PoolOf with the query's terms q and each doc's terms.
func poolOf(q []string, docs []Doc, terms [][]string) Pool {
	var p Pool
	for i, d := range docs {
		if len(q) > 0 && float64(matched(q, terms[i])) >= CoverageRelated*float64(len(q)) {
			p.Worded = true
		}
		c := d.Cosine
		if c > p.Best && !math.IsInf(c, 1) && !math.IsNaN(c) && !textnorm.IsCopy(q, terms[i]) {
			p.Best = c
		}
	}
	return p
}

// HeuristicPool is [Heuristic] for docs that are a batch of a larger pool
// (pool: [PoolOf] the whole pool): a document whose cosine is more than
// CosineSlack below pool.Best is graded 0 unless its words alone make it
// grade 2, and, when pool.Worded, so is a document in the query's language
// that shares none of its terms.
func HeuristicPool(query string, docs []Doc, pool Pool) []Verdict {
	if len(docs) == 0 {
		return nil
	}
	q := textnorm.Terms(query)
	terms := docTerms(docs)
	own := poolOf(q, docs, terms) // a pool is never less than the batch it holds
	best, worded := max(pool.Best, own.Best), pool.Worded || own.Worded
	qlang := textnorm.Lang(query)
	out := make([]Verdict, len(docs))
	for i, d := range docs {
		cos := d.Cosine
		if math.IsNaN(cos) || math.IsInf(cos, 0) {
			cos = 0
		}
		rel, cov := 0, 0.0
		if len(q) == 0 {
			if cos >= CosineRelated {
				rel = 1
			}
		} else {
			n := matched(q, terms[i])
			cov = float64(n) / float64(len(q))
			// One word of several shared, with a known cosine below CosineDirect, is a
			// coincidence ("ministry" in a grain forecast for "finance minister"), not a
			// neighbouring subject.
			words := cov >= CoverageRelated && (n >= 2 || len(q) == 1 || cos == 0 || cos >= CosineDirect)
			switch {
			case cov >= CoverageDirect && (cos == 0 || cos >= CosineDirect),
				cov >= CoverageRelated && cos >= CosineStrong:
				rel = 2
			case words || cos >= CosineRelated:
				rel = 1
			}
			if n == 0 && worded && !textnorm.CJK(qlang) && textnorm.SameScript(qlang, textnorm.Lang(d.Title+"\n"+d.Text)) {
				rel = 0 // the pool names the subject in the query's words; this one, in the same language, names none
			}
		}
		if cos > 0 && cos < best-CosineSlack && cov < CoverageDirect {
			rel = 0 // far from the pool's best match, and the words alone do not make it direct
		}
		out[i] = Verdict{ID: d.ID, Relevance: rel}
	}
	slices.SortStableFunc(out, func(a, b Verdict) int { return a.ID - b.ID })
	return out
}

// matched returns how many keys of q (sorted distinct keys) match a key of doc
// (sorted distinct keys).
func matched(q, doc []string) int {
	n := 0
	for _, k := range q {
		if matches(k, doc) {
			n++
		}
	}
	return n
}

// matches reports whether key k equals a key of doc or, when the shorter of
// the two has at least MinPrefixRunes runes, is a prefix of one or has one as
// a prefix.
func matches(k string, doc []string) bool {
	i, found := slices.BinarySearch(doc, k)
	if found {
		return true
	}
	rs := []rune(k)
	if len(rs) < MinPrefixRunes {
		return false
	}
	// A longer doc key with prefix k sorts right after k.
	if i < len(doc) && strings.HasPrefix(doc[i], k) {
		return true
	}
	// A shorter doc key that is a prefix of k.
	for n := MinPrefixRunes; n < len(rs); n++ {
		if _, ok := slices.BinarySearch(doc, string(rs[:n])); ok {
			return true
		}
	}
	return false
}
