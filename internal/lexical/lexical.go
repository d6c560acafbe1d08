// Package lexical builds and searches the BM25 half of a shard with bleve.
//
// Each chunk is indexed under its row number in the shard, with its text in text_en, text_ru,
// text_cjk, text_es, text_fr or text_it (analyzed by bleve's English, Russian, CJK-bigram,
// Spanish, French or Italian analyzer, chosen per chunk by language; a Chinese chunk in text_zh
// as words too, zh.go) and its publication time as a datetime field. Search scores bleve's BM25 term at a
// time over the index's postings (score.go) and applies the as-of date range before ranking,
// so chunks outside the window are never ranked at all. Several shards are searched as the one
// index of all their documents (SearchAll).
package lexical

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/asofrag/asof/internal/textnorm"
)

// Doc is one chunk to index.
type Doc struct {
	// Row is the chunk's row in its shard (chunks.parquet, vectors.f32).
	Row int
	// Text is what is indexed.
	Text string
	// Lang picks the text's fields: "ru" text_ru, Chinese, Japanese and Korean text_cjk
	// (bigrams), Chinese text_zh (words) too, "es", "fr", "it" text_es, text_fr, text_it,
	// anything else text_en.
	Lang string
	// PublishedAt is the chunk's publication time, what a Window bounds.
	PublishedAt time.Time
}

// AnalysisVersion is the version of how Build analyses text. Version 1 indexed Russian
// chunks in text_ru and every other chunk in text_en (English analysis: a Chinese, Japanese
// or Korean text became single characters); version 2 indexes Chinese, Japanese and Korean
// chunks in text_cjk as character bigrams; version 3 indexes Chinese chunks in text_zh as
// words (zh.go) too, beside their bigrams; version 4 indexes Spanish, French and Italian
// chunks in text_es, text_fr and text_it with their stemmers (they were English before).
// English and Russian chunks are indexed alike in all, so only shards with chunks of the other
// languages need rebuilding (internal/shard hashes the version into their ids: VersionOf).
const AnalysisVersion = 4

// VersionOf is the analysis version at which the analysis of a chunk in language lang last
// changed: 4 for Spanish, French and Italian, 3 for Chinese, Japanese and Korean, 0 for the
// rest (English and Russian are analysed as in version 1). A shard hashes the highest of its
// chunks' into its id, so a shard is rebuilt only when the analysis of a language it holds
// changed.
func VersionOf(lang string) int {
	switch {
	case lang == textnorm.Spanish || lang == textnorm.French || lang == textnorm.Italian:
		return 4
	case textnorm.CJK(lang):
		return 3
	}
	return 0
}

// indexed is the document shape bleve stores.
type indexed struct {
	TextEN      string    `json:"text_en,omitempty"`
	TextRU      string    `json:"text_ru,omitempty"`
	TextCJK     string    `json:"text_cjk,omitempty"`
	TextZH      string    `json:"text_zh,omitempty"`
	TextES      string    `json:"text_es,omitempty"`
	TextFR      string    `json:"text_fr,omitempty"`
	TextIT      string    `json:"text_it,omitempty"`
	PublishedAt time.Time `json:"published_at"`
}

// newMapping is the shard mapping with every field: BM25, one text field per analysis (English,
// Russian, CJK bigrams, Chinese words, Spanish, French, Italian), a date field, nothing stored
// (the text lives in chunks.parquet). The query side reads its analyzers.
func newMapping() mapping.IndexMapping { return mappingFor(true, true, true) }

// mappingFor is the shard mapping with the Spanish, French and Italian fields only where asked:
// a shard without text in them is written with the mapping of AnalysisVersion 3, which binaries
// from before version 4 (that know no Spanish, French or Italian analyzer) still open, so a
// cluster upgraded worker by worker reads every English, Russian and CJK shard either way.
func mappingFor(es, fr, it bool) mapping.IndexMapping {
	textField := func(analyzer string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		return f
	}
	dateField := bleve.NewDateTimeFieldMapping()
	dateField.Store = false
	dateField.IncludeInAll = false
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("text_en", textField(en.AnalyzerName))
	doc.AddFieldMappingsAt("text_ru", textField(ru.AnalyzerName))
	doc.AddFieldMappingsAt("text_cjk", textField(cjk.AnalyzerName))
	doc.AddFieldMappingsAt("text_zh", textField(zhAnalyzerName))
	for _, f := range []struct {
		on         bool
		name, anal string
	}{{es, "text_es", esAnalyzer}, {fr, "text_fr", frAnalyzer}, {it, "text_it", itAnalyzer}} {
		if f.on {
			doc.AddFieldMappingsAt(f.name, textField(f.anal))
		}
	}
	doc.AddFieldMappingsAt("published_at", dateField)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = doc
	im.ScoringModel = index.BM25Scoring
	return im
}

// The Spanish, French and Italian analyzers' names.
const (
	esAnalyzer = es.AnalyzerName
	frAnalyzer = fr.AnalyzerName
	itAnalyzer = it.AnalyzerName
)

// Build writes a new index of docs into dir, which must not exist.
func Build(dir string, docs []Doc) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("lexical: %s already exists", dir)
	}
	var hasES, hasFR, hasIT bool
	for _, d := range docs {
		hasES, hasFR, hasIT = hasES || d.Lang == textnorm.Spanish, hasFR || d.Lang == textnorm.French, hasIT || d.Lang == textnorm.Italian
	}
	b, err := bleve.NewBuilder(dir, mappingFor(hasES, hasFR, hasIT), map[string]interface{}{"batchSize": 2000, "mergeMax": 20})
	if err != nil {
		return fmt.Errorf("lexical: new builder: %w", err)
	}
	for _, d := range docs {
		v := indexed{PublishedAt: d.PublishedAt.UTC()}
		switch {
		case d.Lang == textnorm.Russian:
			v.TextRU = d.Text
		case d.Lang == textnorm.Chinese:
			v.TextZH, v.TextCJK = d.Text, d.Text
		case textnorm.CJK(d.Lang):
			v.TextCJK = d.Text
		case d.Lang == textnorm.Spanish:
			v.TextES = d.Text
		case d.Lang == textnorm.French:
			v.TextFR = d.Text
		case d.Lang == textnorm.Italian:
			v.TextIT = d.Text
		default:
			v.TextEN = d.Text
		}
		if err := b.Index(rowID(d.Row), v); err != nil {
			b.Close()
			return fmt.Errorf("lexical: index row %d: %w", d.Row, err)
		}
	}
	if err := b.Close(); err != nil {
		return fmt.Errorf("lexical: finish index: %w", err)
	}
	return nil
}

// Index is an open shard index, with its snapshot held open and searched directly (score.go).
type Index struct {
	idx bleve.Index
	r   *reader
}

// Open opens an index built by Build, read-only.
func Open(dir string) (*Index, error) {
	idx, err := bleve.OpenUsing(dir, map[string]interface{}{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("lexical: open %s: %w", dir, err)
	}
	ai, err := idx.Advanced()
	if err != nil {
		idx.Close()
		return nil, fmt.Errorf("lexical: open %s: %w", dir, err)
	}
	ir, err := ai.Reader()
	if err != nil {
		idx.Close()
		return nil, fmt.Errorf("lexical: open %s: reader: %w", dir, err)
	}
	snap, ok := ir.(*scorch.IndexSnapshot)
	if !ok {
		ir.Close()
		idx.Close()
		return nil, fmt.Errorf("lexical: open %s: not a scorch index (%T)", dir, ir)
	}
	r, err := newReader(snap)
	if err != nil {
		snap.Close()
		idx.Close()
		return nil, fmt.Errorf("lexical: open %s: %w", dir, err)
	}
	return &Index{idx: idx, r: r}, nil
}

// Close releases the index.
func (x *Index) Close() error {
	return errors.Join(x.r.snap.Close(), x.idx.Close())
}

// Hit is one result.
type Hit struct {
	Row   int
	Score float64
}

// Window bounds publication times, inclusive; a zero bound is open.
type Window struct{ From, To time.Time }

// ErrEmptyQuery is returned for a query with no searchable words.
var ErrEmptyQuery = errors.New("lexical: empty query")

// Search returns up to k rows matching q inside w, best BM25 score first (ties: lower row).
func (x *Index) Search(q string, k int, w Window) ([]Hit, error) {
	hits, err := SearchAll([]*Index{x}, q, k, w)
	if err != nil {
		return nil, err
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = Hit{Row: h.Row, Score: h.Score}
	}
	return out, nil
}

// ShardHit is one result of SearchAll: a row of indexes[Shard].
type ShardHit struct {
	Shard int
	Row   int
	Score float64
}

// SearchAll searches several indexes as one index holding all their documents would be
// searched: BM25's document count, field cardinalities (distinct terms), every term's
// document frequency, the query norm and the date range's terms are those of the collection,
// so a term weighs the same whatever period cut the shards, and scores of different shards
// compare. It returns up to k hits inside w, best first (ties: lower shard, then lower row).
// Documents outside w are never ranked.
func SearchAll(indexes []*Index, q string, k int, w Window) ([]ShardHit, error) {
	return searchAll(indexes, q, k, w, collectionDF)
}

// dfScope says whose document frequencies a multi-index search uses.
type dfScope int

const (
	// collectionDF: every statistic is the collection's (SearchAll).
	collectionDF dfScope = iota
	// shardDF is SearchAll before collection statistics, bleve's global scoring through an
	// index alias: the document count and cardinalities summed over the indexes, document
	// frequencies, the query norm and the date terms per index. Kept to measure the change.
	shardDF
)

// searchAll is SearchAll with the document frequencies of scope.
func searchAll(indexes []*Index, q string, k int, w Window, scope dfScope) ([]ShardHit, error) {
	if k <= 0 || len(indexes) == 0 {
		return nil, nil
	}
	if q == "" {
		return nil, ErrEmptyQuery
	}
	st, err := collectionStats(indexes, scope)
	if err != nil {
		return nil, err
	}
	fs := queried(st)
	nq := len(fs)
	text, n, err := analyze(q, fs)
	if err != nil {
		return nil, err
	}
	if len(text) == 0 {
		return nil, nil
	}
	var parts []*part
	defer func() {
		for _, p := range parts {
			p.r.putScratch(p.sc)
		}
	}()
	for si, x := range indexes {
		if x.r.total == 0 {
			continue
		}
		if err := x.r.docTable(); err != nil {
			return nil, fmt.Errorf("lexical: search shard %d: %w", si, err)
		}
		parts = append(parts, &part{shard: si, r: x.r, sc: x.r.getScratch()})
	}
	windowed := !w.From.IsZero() || !w.To.IsZero()
	// plan is the query over the parts sharing its statistics: all of them, or one (shardDF).
	plan := func(ps []*part) (*scoring, error) {
		qq := &scoring{cls: text, n: n, nq: nq, windowed: windowed}
		if windowed {
			dates, err := dateTerms(ps, w)
			if err != nil {
				return nil, err
			}
			qq.nDate = len(dates)
			qq.cls = append(slices.Clip(text), dates...)
		}
		df := make([]uint64, len(qq.cls))
		for _, p := range ps {
			if err := p.lookup(qq.cls); err != nil {
				return nil, err
			}
			for i, v := range p.df {
				df[i] += v
			}
		}
		qq.idf, qq.avgLen, qq.norm = weights(qq.cls, df, st)
		return qq, nil
	}
	var qq *scoring
	if scope == collectionDF {
		if qq, err = plan(parts); err != nil {
			return nil, fmt.Errorf("lexical: search: %w", err)
		}
	}
	var out []ShardHit
	for _, p := range parts {
		if scope == shardDF {
			if qq, err = plan([]*part{p}); err != nil {
				return nil, fmt.Errorf("lexical: search shard %d: %w", p.shard, err)
			}
		}
		top, err := p.score(qq, k)
		if err != nil {
			return nil, fmt.Errorf("lexical: search shard %d: %w", p.shard, err)
		}
		for _, h := range top {
			out = append(out, ShardHit{Shard: p.shard, Row: h.row, Score: h.score})
		}
	}
	slices.SortFunc(out, func(a, b ShardHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Shard, b.Shard), cmp.Compare(a.Row, b.Row))
	})
	return out[:min(k, len(out))], nil
}

// collectionStats are the statistics of indexes searched as one: the document count summed,
// and each field's cardinality counted over the union of the indexes' terms, as one index
// holding all their documents counts it (shardDF sums the cardinalities, as bleve's global
// scoring does; a term in two periods then counts twice). One index keeps its own.
func collectionStats(indexes []*Index, scope dfScope) (stats, error) {
	var st stats
	for _, x := range indexes {
		st.docs += x.r.stats.docs
		for f := range st.card {
			st.card[f] += x.r.stats.card[f]
		}
	}
	if scope == shardDF || len(indexes) == 1 {
		return st, nil
	}
	ids := make([]uint64, len(indexes))
	for i, x := range indexes {
		ids[i] = x.r.id
	}
	slices.Sort(ids)
	key := fmt.Sprint(ids)
	unionCards.Lock()
	card, ok := unionCards.m[key]
	unionCards.Unlock()
	if ok {
		st.card = card
		return st, nil
	}
	for f := range st.card {
		if st.card[f] == 0 {
			continue
		}
		lists := make([][]uint64, 0, len(indexes))
		for _, x := range indexes {
			hs, err := x.r.termHashes(f)
			if err != nil {
				return stats{}, err
			}
			lists = append(lists, hs)
		}
		st.card[f] = unionCount(lists)
	}
	unionCards.Lock()
	if len(unionCards.m) >= unionCacheSize {
		clear(unionCards.m)
	}
	unionCards.m[key] = st.card
	unionCards.Unlock()
	return st, nil
}

// unionCards caches the cardinalities of sets of indexes searched as one, by their readers'
// ids: they depend on the set alone, counting them merges every term of every index (tens of
// milliseconds over a hundred monthly shards), and the searches of one period (an evaluation's
// questions of a month, a digest's topics) search the same set. Ids are never reused, so an
// entry of closed indexes is never hit; the cache is emptied when full.
var unionCards = struct {
	sync.Mutex
	m map[string][nText + 1]int
}{m: map[string][nText + 1]int{}}

// unionCacheSize bounds unionCards.
const unionCacheSize = 4096

// rowID zero-pads the row so bleve's id order (the tie-break) is numeric order.
func rowID(row int) string { return fmt.Sprintf("%010d", row) }
