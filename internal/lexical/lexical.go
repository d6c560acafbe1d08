// Package lexical builds and searches the BM25 half of a shard with bleve.
//
// Each chunk is indexed under its row number in the shard, with its text in text_en or text_ru
// (analyzed by bleve's English or Russian analyzer, chosen per chunk by language) and its
// publication time as a datetime field. Search scores with BM25 and applies the as-of date
// range inside the query, so chunks outside the window are never ranked at all.
package lexical

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
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

// Index is an open shard index.
type Index struct{ idx bleve.Index }

// Open opens an index built by Build, read-only.
func Open(dir string) (*Index, error) {
	idx, err := bleve.OpenUsing(dir, map[string]interface{}{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("lexical: open %s: %w", dir, err)
	}
	idx.SetName(dir) // unique per open index: SearchAll tells shards apart by name
	return &Index{idx: idx}, nil
}

// Close releases the index.
func (x *Index) Close() error { return x.idx.Close() }

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
	if k <= 0 {
		return nil, nil
	}
	if q == "" {
		return nil, ErrEmptyQuery
	}
	res, err := x.idx.Search(request(q, k, w))
	if err != nil {
		return nil, fmt.Errorf("lexical: search: %w", err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		row, err := strconv.Atoi(h.ID)
		if err != nil {
			return nil, fmt.Errorf("lexical: bad document id %q", h.ID)
		}
		hits = append(hits, Hit{Row: row, Score: h.Score})
	}
	return hits, nil
}

// ShardHit is one result of SearchAll: a row of indexes[Shard].
type ShardHit struct {
	Shard int
	Row   int
	Score float64
}

// SearchAll searches several indexes as one (a bleve index alias with global scoring): BM25's
// document count and average field length are those of all the shards together. A term's
// document frequency stays per shard (bleve's global scoring does not carry it), so a term
// that is rare in one period weighs more there: a mild burst bonus, not a leak. It returns up
// to k hits inside w, best first (ties: lower shard, then lower row).
func SearchAll(indexes []*Index, q string, k int, w Window) ([]ShardHit, error) {
	if k <= 0 || len(indexes) == 0 {
		return nil, nil
	}
	if q == "" {
		return nil, ErrEmptyQuery
	}
	if len(indexes) == 1 {
		hits, err := indexes[0].Search(q, k, w)
		out := make([]ShardHit, len(hits))
		for i, h := range hits {
			out[i] = ShardHit{Row: h.Row, Score: h.Score}
		}
		return out, err
	}
	byName := make(map[string]int, len(indexes))
	members := make([]bleve.Index, len(indexes))
	for i, x := range indexes {
		byName[x.idx.Name()] = i
		members[i] = x.idx
	}
	if len(byName) != len(indexes) {
		return nil, errors.New("lexical: two indexes share a name")
	}
	alias := bleve.NewIndexAlias(members...)
	if err := alias.SetIndexMapping(newMapping()); err != nil { // the alias needs the mapping to see BM25 is on
		return nil, fmt.Errorf("lexical: alias mapping: %w", err)
	}
	// GlobalScoring makes the alias collect BM25 statistics from every member first.
	ctx := context.WithValue(context.Background(), search.SearchTypeKey, search.GlobalScoring)
	res, err := alias.SearchInContext(ctx, request(q, k, w))
	if err != nil {
		return nil, fmt.Errorf("lexical: search %d shards: %w", len(indexes), err)
	}
	out := make([]ShardHit, 0, len(res.Hits))
	for _, h := range res.Hits {
		row, err := strconv.Atoi(h.ID)
		if err != nil {
			return nil, fmt.Errorf("lexical: bad document id %q", h.ID)
		}
		shard, ok := byName[h.Index]
		if !ok {
			return nil, fmt.Errorf("lexical: hit from unknown index %q", h.Index)
		}
		out = append(out, ShardHit{Shard: shard, Row: row, Score: h.Score})
	}
	// The alias merges by score; make equal scores deterministic.
	slices.SortStableFunc(out, func(a, b ShardHit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		if a.Shard != b.Shard {
			return cmp.Compare(a.Shard, b.Shard)
		}
		return cmp.Compare(a.Row, b.Row)
	})
	return out, nil
}

// request is the search: the query through both language fields, inside w.
func request(q string, k int, w Window) *bleve.SearchRequest {
	mEN := bleve.NewMatchQuery(q)
	mEN.SetField("text_en")
	mEN.Analyzer = en.AnalyzerName
	mRU := bleve.NewMatchQuery(q)
	mRU.SetField("text_ru")
	mRU.Analyzer = ru.AnalyzerName
	var qq query.Query = bleve.NewDisjunctionQuery(mEN, mRU)
	if !w.From.IsZero() || !w.To.IsZero() {
		incl := true
		dr := bleve.NewDateRangeInclusiveQuery(w.From.UTC(), w.To.UTC(), &incl, &incl)
		dr.SetField("published_at")
		qq = bleve.NewConjunctionQuery(qq, dr)
	}
	req := bleve.NewSearchRequestOptions(qq, k, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	return req
}

// rowID zero-pads the row so bleve's id order (the tie-break) is numeric order.
func rowID(row int) string { return fmt.Sprintf("%010d", row) }
