// Package shard plans and writes asof's time-partitioned shards: which period a document
// belongs to, a shard's content-derived id, the chunk rows of a period's documents, and the
// shard files (chunks.parquet, vectors.f32, vectors.i8, bm25.zip, meta.json) in a local
// folder, ready to upload. It knows nothing of Temporal or object stores.
package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/asofrag/asof/internal/chunk"
	"github.com/asofrag/asof/internal/lexical"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// Units a shard can span.
var Units = []string{"day", "week", "month", "quarter", "year"}

// ValidUnit reports an error for an unknown period unit.
func ValidUnit(unit string) error {
	for _, u := range Units {
		if u == unit {
			return nil
		}
	}
	return fmt.Errorf("shard: period %q: use day, week, month, quarter or year", unit)
}

// PeriodOf returns the key of the period of unit that contains t (UTC) and its bounds
// [start, end). Keys sort in time order: 2024-03-05, 2024-W10, 2024-03, 2024-Q1, 2024.
func PeriodOf(t time.Time, unit string) (key string, start, end time.Time) {
	t = t.UTC()
	y, m, d := t.Date()
	switch unit {
	case "day":
		start = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return start.Format("2006-01-02"), start, start.AddDate(0, 0, 1)
	case "week": // ISO 8601 weeks start on Monday
		wy, w := t.ISOWeek()
		start = time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
		return fmt.Sprintf("%04d-W%02d", wy, w), start, start.AddDate(0, 0, 7)
	case "quarter":
		q := (int(m) - 1) / 3
		start = time.Date(y, time.Month(q*3+1), 1, 0, 0, 0, 0, time.UTC)
		return fmt.Sprintf("%04d-Q%d", y, q+1), start, start.AddDate(0, 3, 0)
	case "year":
		start = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return fmt.Sprintf("%04d", y), start, start.AddDate(1, 0, 0)
	default: // month
		start = time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return start.Format("2006-01"), start, start.AddDate(0, 1, 0)
	}
}

// Group splits documents by period, each group sorted by (PublishedAt, DocID); the periods
// come back in time order.
func Group(docs []schemas.Document, unit string) (periods []string, groups map[string][]schemas.Document) {
	groups = map[string][]schemas.Document{}
	for _, d := range docs {
		k, _, _ := PeriodOf(d.PublishedAt, unit)
		groups[k] = append(groups[k], d)
	}
	for k, g := range groups {
		sort.Slice(g, func(i, j int) bool {
			if !g[i].PublishedAt.Equal(g[j].PublishedAt) {
				return g[i].PublishedAt.Before(g[j].PublishedAt)
			}
			return g[i].DocID < g[j].DocID
		})
		periods = append(periods, k)
	}
	sort.Strings(periods)
	return periods, groups
}

// ID is a shard's identity: a hash of its period, its documents' content (as cleaned: other
// cleaning rules that change a document's text change the id; a shard whose text they leave
// alone keeps it), the chunking configuration and the model, and, for a shard with Chinese,
// Japanese, Korean, Spanish, French or Italian documents, the BM25 analysis (lexical.AnalysisVersion, see
// LexicalVersion). Equal inputs give equal ids, so a rerun finds the shard done; any change (an
// edited document, another model, CJK text analysed anew) gives a new one. A document JSON cannot encode (a
// NaN or infinite source weight, a year past 9999) is an error: hashing the rest would give a
// shard and its edited copy one id.
func ID(period string, docs []schemas.Document, cfg schemas.ChunkConfig, model schemas.ModelRef) (string, error) {
	return id(period, docs, cfg, model, LexicalVersion(docs))
}

// id hashes a shard's inputs with the given analysis version; a version of 0 is not hashed, so
// ids from before the version existed are reproduced by passing 0.
func id(period string, docs []schemas.Document, cfg schemas.ChunkConfig, model schemas.ModelRef, lexicalVersion int) (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	if err := enc.Encode(struct {
		Version int
		Period  string
		Chunk   schemas.ChunkConfig
		Model   schemas.ModelRef
	}{schemas.ChunkVersion, period, cfg, model}); err != nil {
		return "", fmt.Errorf("shard id of %s: %w", period, err)
	}
	if lexicalVersion > 0 {
		if err := enc.Encode(struct{ Lexical int }{lexicalVersion}); err != nil {
			return "", fmt.Errorf("shard id of %s: %w", period, err)
		}
	}
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return "", fmt.Errorf("shard id of %s: document %q: %w", period, d.DocID, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// LexicalVersion is the BM25 analysis version a shard of docs hashes into its id and records
// in its meta.json: the highest lexical.VersionOf of its documents' languages (3 for Chinese,
// Japanese or Korean, whose analysis changed in versions 2 and 3; 4 for Spanish, French or
// Italian, stemmed in their own fields since version 4; a shard built before gets a new id and
// is rebuilt), else 0: English and Russian are analysed as they always were, so
// their shards keep their ids and a rerun over them stays a no-op.
func LexicalVersion(docs []schemas.Document) int {
	v := 0
	for _, d := range docs {
		v = max(v, lexical.VersionOf(d.Lang))
	}
	return v
}

// Chunks cuts documents into chunk rows, in document order. truncated counts documents that
// hit MaxChunksPerDoc.
func Chunks(docs []schemas.Document, cfg schemas.ChunkConfig) (rows []schemas.Chunk, truncated int) {
	opts := chunk.Options{Size: cfg.Size, Overlap: cfg.Overlap, Min: cfg.Min, MaxPieces: cfg.MaxChunksPerDoc}
	for _, d := range docs {
		hash := d.ContentHash()
		pieces, trunc := chunk.Split(d.Text, opts)
		if trunc {
			truncated++
		}
		for i, p := range pieces {
			rows = append(rows, schemas.Chunk{
				ChunkID: ChunkID(d.DocID, d.Version, i), DocID: d.DocID, Seq: int32(i),
				PublishedAt: d.PublishedAt, Title: d.Title, Text: p.Text, Source: d.Source, URL: d.URL,
				SourceWeight: d.SourceWeight, Lang: d.Lang, Start: int32(p.Start), End: int32(p.End),
				DedupKey: textnorm.DedupKey(p.Text),
				Kind:     d.Kind, EffectiveAt: d.EffectiveAt, Supersedes: d.Supersedes, Version: d.Version, DocHash: hash,
			})
		}
	}
	return rows, truncated
}

// DocHash is the content hash of the document version whose chunks (in seq order, one
// document's) these are: their DocHash, or, for chunks written before it, the hash of the
// document put back together from its pieces (Start, End; a document cut at MaxChunksPerDoc
// hashes its indexed part, so its next row always reads as another version).
func DocHash(chunks []schemas.Chunk) string {
	if len(chunks) == 0 {
		return ""
	}
	if chunks[0].DocHash != "" {
		return chunks[0].DocHash
	}
	var text []rune
	for _, c := range chunks {
		rs := []rune(c.Text)
		if int(c.Start)+len(rs) != int(c.End) || int(c.Start) > len(text) {
			return "" // pieces that do not fit: no hash, the row is another version
		}
		text = append(text[:c.Start], rs...)
	}
	c := chunks[0]
	return schemas.Document{Title: c.Title, Text: string(text), Source: c.Source, URL: c.URL}.ContentHash()
}

// ChunkID names chunk seq of a document version: "<doc_id>#<seq>" for a first version (the form
// every index had before versions), "<doc_id>@v<version>#<seq>" for a later one, so two versions'
// chunks never share an id.
func ChunkID(docID string, version int32, seq int) string {
	if version > 1 {
		return fmt.Sprintf("%s@v%d#%d", docID, version, seq)
	}
	return fmt.Sprintf("%s#%d", docID, seq)
}

// IDs names the shard of each period (ID over the period's documents in groups), in order.
func IDs(periods []string, groups map[string][]schemas.Document, cfg schemas.ChunkConfig, model schemas.ModelRef) ([]string, error) {
	ids := make([]string, len(periods))
	for i, p := range periods {
		id, err := ID(p, groups[p], cfg, model)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// EmbedTexts are what the embedder sees for each chunk (EmbedText), in order.
func EmbedTexts(chunks []schemas.Chunk) []string {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = EmbedText(c)
	}
	return texts
}

// EmbedText is what the embedder sees for a chunk: the title leads the first chunk.
func EmbedText(c schemas.Chunk) string {
	if c.Seq == 0 && c.Title != "" {
		return c.Title + ". " + c.Text
	}
	return c.Text
}
