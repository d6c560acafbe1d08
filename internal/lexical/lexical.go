// Package lexical builds and searches the BM25 half of a shard with bleve.
//
// Each chunk is indexed under its row number in the shard, with its text in text_en or text_ru
// (analyzed by bleve's English or Russian analyzer, chosen per chunk by language) and its
// publication time as a datetime field. Search scores bleve's BM25 term at a time over the
// index's postings (score.go) and applies the as-of date range before ranking, so chunks
// outside the window are never ranked at all.
package lexical

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// Doc is one chunk to index.
type Doc struct {
	// Row is the chunk's row in its shard (chunks.parquet, vectors.f32).
	Row         int
	Text        string
	Lang        string
	PublishedAt time.Time
}

// indexed is the document shape bleve stores.
type indexed struct {
	TextEN      string    `json:"text_en,omitempty"`
	TextRU      string    `json:"text_ru,omitempty"`
	PublishedAt time.Time `json:"published_at"`
}

// newMapping is the shard mapping: BM25, one text field per language, a date field, nothing
// stored (the text lives in chunks.parquet).
func newMapping() mapping.IndexMapping {
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
	doc.AddFieldMappingsAt("published_at", dateField)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = doc
	im.ScoringModel = index.BM25Scoring
	return im
}

// Build writes a new index of docs into dir, which must not exist.
func Build(dir string, docs []Doc) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("lexical: %s already exists", dir)
	}
	b, err := bleve.NewBuilder(dir, newMapping(), map[string]interface{}{"batchSize": 2000, "mergeMax": 20})
	if err != nil {
		return fmt.Errorf("lexical: new builder: %w", err)
	}
	for _, d := range docs {
		v := indexed{PublishedAt: d.PublishedAt.UTC()}
		if d.Lang == "ru" {
			v.TextRU = d.Text
		} else {
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

// SearchAll searches several indexes as one, as bleve's global scoring does: BM25's document
// count and average field length are those of all the shards together. A term's document
// frequency stays per shard (bleve's global scoring does not carry it), so a term that is rare
// in one period weighs more there: a mild burst bonus, not a leak. It returns up to k hits
// inside w, best first (ties: lower shard, then lower row). Documents outside w are never
// ranked.
func SearchAll(indexes []*Index, q string, k int, w Window) ([]ShardHit, error) {
	if k <= 0 || len(indexes) == 0 {
		return nil, nil
	}
	if q == "" {
		return nil, ErrEmptyQuery
	}
	cls, n, err := analyze(q)
	if err != nil {
		return nil, err
	}
	var st stats
	for _, x := range indexes {
		st.docs += x.r.stats.docs
		for f := range st.card {
			st.card[f] += x.r.stats.card[f]
		}
	}
	var out []ShardHit
	for si, x := range indexes {
		top, err := x.r.search(cls, n, st, k, w)
		if err != nil {
			return nil, fmt.Errorf("lexical: search shard %d: %w", si, err)
		}
		for _, h := range top {
			out = append(out, ShardHit{Shard: si, Row: h.row, Score: h.score})
		}
	}
	slices.SortFunc(out, func(a, b ShardHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Shard, b.Shard), cmp.Compare(a.Row, b.Row))
	})
	return out[:min(k, len(out))], nil
}

// rowID zero-pads the row so bleve's id order (the tie-break) is numeric order.
func rowID(row int) string { return fmt.Sprintf("%010d", row) }
