package zhnews

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/schemas"
)

// bigramBM25 is a plain Okapi BM25 (k1 1.2, b 0.75) over bleve's cjk analyzer (Unicode words,
// width folding, lower case, Han/Kana/Hangul bigrams): the reference a Chinese as-of system has
// to beat. The whole corpus is one index, as one built at the end of the corpus would be, so
// document frequencies count every document; the as-of mask and the look-back window filter
// at query time. A document is its title and text, unchunked.
type bigramBM25 struct {
	analyzer analysis.Analyzer
	docs     []schemas.Document
	tf       []map[string]int
	length   []int
	df       map[string]int
	avgLen   float64
}

func newBigramBM25(t *testing.T, docs []schemas.Document) *bigramBM25 {
	t.Helper()
	a, err := registry.NewCache().AnalyzerNamed(cjk.AnalyzerName)
	if err != nil {
		t.Fatal(err)
	}
	ix := &bigramBM25{analyzer: a, docs: docs, df: map[string]int{}}
	total := 0
	for _, d := range docs {
		tf := map[string]int{}
		n := 0
		for _, term := range ix.terms(d.Title + "\n" + d.Text) {
			tf[term]++
			n++
		}
		for term := range tf {
			ix.df[term]++
		}
		ix.tf = append(ix.tf, tf)
		ix.length = append(ix.length, n)
		total += n
	}
	ix.avgLen = float64(total) / float64(len(docs))
	return ix
}

func (ix *bigramBM25) terms(s string) []string {
	var out []string
	for _, tok := range ix.analyzer.Analyze([]byte(s)) {
		out = append(out, string(tok.Term))
	}
	return out
}

// searchOptions choose what a search may see: Mask keeps documents published on or before the
// anchor's day; Window > 0 also drops documents more than Window days older than the anchor.
type searchOptions struct {
	Mask   bool
	Window int
}

// search ranks the documents that match at least one query term, best first (ties: doc_id),
// at most k.
func (ix *bigramBM25) search(query string, anchor time.Time, o searchOptions, k int) []eval.Ranked {
	const k1, b = 1.2, 0.75
	n := float64(len(ix.docs))
	var qterms []string
	for _, term := range ix.terms(query) {
		if !slices.Contains(qterms, term) {
			qterms = append(qterms, term)
		}
	}
	type hit struct {
		i     int
		score float64
	}
	var hits []hit
	for i, d := range ix.docs {
		if o.Mask && !asofday.Allows(anchor, d.PublishedAt) {
			continue
		}
		if o.Window > 0 && asofday.Age(anchor, d.PublishedAt) > o.Window {
			continue
		}
		score := 0.0
		for _, term := range qterms {
			f := float64(ix.tf[i][term])
			if f == 0 {
				continue
			}
			df := float64(ix.df[term])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(ix.length[i])/ix.avgLen))
		}
		if score > 0 {
			hits = append(hits, hit{i, score})
		}
	}
	slices.SortFunc(hits, func(x, y hit) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		return strings.Compare(ix.docs[x.i].DocID, ix.docs[y.i].DocID)
	})
	out := make([]eval.Ranked, 0, min(k, len(hits)))
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, eval.Ranked{DocID: ix.docs[h.i].DocID, PublishedAt: ix.docs[h.i].PublishedAt})
	}
	return out
}

// TestBigramBM25Baseline measures plain bigram BM25 on the fixture (run with -v for the table),
// with the as-of mask alone, with the mask and asof's 365-day default look-back, and with no
// mask. It fails if a masked ranking holds a document published after its anchor, if the
// unmasked ranking never reaches the bait (then the fixture would prove nothing about leaks),
// or if the 365-day window leaves an undated question any relevant document (its evidence is
// all older by construction).
func TestBigramBM25Baseline(t *testing.T) {
	f := loadFixture(t)
	ix := newBigramBM25(t, f.Docs)
	judged := map[string][]eval.Judged{}
	for _, j := range f.Judgements {
		judged[j.QuestionID] = append(judged[j.QuestionID], eval.Judged{DocID: j.DocID, Grade: int(j.Grade)})
	}
	qs, _, err := f.Rows()
	if err != nil {
		t.Fatal(err)
	}
	variants := []struct {
		name string
		opts searchOptions
	}{
		{"mask", searchOptions{Mask: true}},
		{"mask+365d", searchOptions{Mask: true, Window: 365}},
		{"nomask", searchOptions{}},
	}
	var report strings.Builder
	baitQuestions := 0
	for _, v := range variants {
		type agg struct {
			n                     int
			ndcg, r10, mrr, found float64
		}
		byKind := map[string]*agg{}
		fmt.Fprintf(&report, "\n%s: question, kind, nDCG@10, grade-2 in top 10 / judged, relevant in top 10 / judged, relevant ranked (id@rank)\n", v.name)
		for i, q := range qs {
			kind := f.Questions[i].Kind
			res := ix.search(q.Question, q.QuestionDate, v.opts, eval.K50)
			pq := eval.Score(eval.Query{ID: q.QuestionID, AsOf: q.QuestionDate, Judged: judged[q.QuestionID], Results: res})
			if v.opts.Mask && pq.Leaked > 0 {
				t.Errorf("%s %s: %d results published after the anchor %s", v.name, q.QuestionID, pq.Leaked, q.QuestionDate.Format(time.DateOnly))
			}
			if !v.opts.Mask && pq.Leakage10 > 0 {
				baitQuestions++
			}
			grades := map[string]int{}
			g2, rel := 0, 0
			for _, j := range judged[q.QuestionID] {
				grades[j.DocID] = j.Grade
				if j.Grade == 2 {
					g2++
				}
				if j.Grade >= 1 {
					rel++
				}
			}
			var top []string
			g2top, reltop := 0, 0
			for r, h := range res[:min(eval.K10, len(res))] {
				switch grades[h.DocID] {
				case 2:
					g2top++
				case 1:
				default:
					continue
				}
				reltop++
				top = append(top, fmt.Sprintf("%s@%d", strings.TrimPrefix(h.DocID, "zh-"), r+1))
			}
			if kind == KindUndated && v.opts.Window > 0 && reltop > 0 {
				t.Errorf("%s %s: the 365-day window left %d relevant documents in the top 10; an undated question's evidence is all older", v.name, q.QuestionID, reltop)
			}
			fmt.Fprintf(&report, "  %-15s %-8s %.3f  %d/%d  %d/%d  %s\n", q.QuestionID, kind, pq.NDCG10, g2top, g2, reltop, rel, strings.Join(top, " "))
			for _, k := range []string{kind, "all"} {
				a := byKind[k]
				if a == nil {
					a = &agg{}
					byKind[k] = a
				}
				a.n++
				a.ndcg += pq.NDCG10
				a.r10 += pq.Recall10
				a.mrr += pq.MRR
				if g2top > 0 {
					a.found++
				}
			}
		}
		fmt.Fprintf(&report, "%s summary: kind, questions, nDCG@10, Recall@10, MRR, share with a grade-2 document in the top 10\n", v.name)
		for _, k := range []string{KindPresent, KindDated, KindUndated, KindChange, "all"} {
			a := byKind[k]
			fmt.Fprintf(&report, "  %-8s %2d  %.3f  %.3f  %.3f  %.2f\n", k, a.n, a.ndcg/float64(a.n), a.r10/float64(a.n), a.mrr/float64(a.n), a.found/float64(a.n))
		}
	}
	t.Log(report.String())
	if baitQuestions < len(qs)/3 {
		t.Errorf("without the mask, only %d of %d questions have a document published after the anchor in the top 10: the bait is too weak to show a leak", baitQuestions, len(qs))
	}
	t.Logf("without the mask, %d of %d questions have a post-anchor document in the top 10", baitQuestions, len(qs))
}
