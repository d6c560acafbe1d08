package schemas

import "time"

// ChunkVersion is the version of the chunk row.
const ChunkVersion = 1

// Chunk is one retrievable piece of a document (chunks.parquet in every shard). Row i of a
// shard's chunks.parquet is row i of its vector file and document i of its BM25 index.
type Chunk struct {
	// ChunkID is "<doc_id>#<seq>".
	ChunkID      string    `parquet:"chunk_id" json:"chunk_id"`
	DocID        string    `parquet:"doc_id" json:"doc_id"`
	Seq          int32     `parquet:"seq" json:"seq"`
	PublishedAt  time.Time `parquet:"published_at,timestamp(millisecond)" json:"published_at"`
	Title        string    `parquet:"title" json:"title"`
	Text         string    `parquet:"text" json:"text"`
	Source       string    `parquet:"source" json:"source"`
	URL          string    `parquet:"url" json:"url"`
	SourceWeight *float64  `parquet:"source_weight,optional" json:"source_weight,omitempty"`
	Lang         string    `parquet:"lang" json:"lang"`
	// Start and End are the chunk's rune offsets in the document text.
	Start int32 `parquet:"start" json:"start"`
	End   int32 `parquet:"end" json:"end"`
	// DedupKey is the hash of the normalized text (URLs and @handles stripped).
	DedupKey string `parquet:"dedup_key" json:"dedup_key"`
	// Kind, EffectiveAt, Supersedes and Version are the document's (schemas.Document): absent
	// from shards built before documents had kinds and versions, which read as news, version 1.
	Kind        string     `parquet:"kind,optional" json:"kind,omitempty"`
	EffectiveAt *time.Time `parquet:"effective_at,optional,timestamp(millisecond)" json:"effective_at,omitempty"`
	Supersedes  string     `parquet:"supersedes,optional" json:"supersedes,omitempty"`
	Version     int32      `parquet:"version,optional" json:"version,omitempty"`
	// DocHash is the document version's Document.ContentHash (absent from shards built before
	// versions: the text is hashed from the chunks then, shard.DocHash).
	DocHash string `parquet:"doc_hash,optional" json:"doc_hash,omitempty"`
}

// VersionOf is a chunk's document version: 1 for a first version (Version 0).
func (c Chunk) VersionOf() int32 { return max(c.Version, 1) }
