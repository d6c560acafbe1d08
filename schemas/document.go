package schemas

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// DocumentVersion is the version of the canonical document row.
const DocumentVersion = 1

// Document is the canonical input row: its parquet names are the columns an input file
// carries (docs/design.md §3; the quarantine rules in docs/index-build.md). Other layouts map
// their columns onto these names (see internal/corpus). PublishedAt is the time axis of
// everything asof does.
type Document struct {
	DocID       string    `parquet:"doc_id" json:"doc_id"`
	PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)" json:"published_at"`
	Title       string    `parquet:"title" json:"title"`
	Text        string    `parquet:"text" json:"text"`
	Source      string    `parquet:"source" json:"source"`
	URL         string    `parquet:"url" json:"url"`
	// SourceWeight is an optional per-source prior (the Telegram layout's channel_w).
	SourceWeight *float64 `parquet:"source_weight,optional" json:"source_weight,omitempty"`
	Topic        string   `parquet:"topic,optional" json:"topic,omitempty"`
	// Lang is an ISO 639-1 code ("en", "ru", "zh", "ja", "ko", …); detected when the input has
	// none (textnorm.Lang).
	Lang string `parquet:"lang,optional" json:"lang,omitempty"`
	// Kind is "news" (or empty: the default) or "standing": a text in force from its effective
	// day until superseded (internal/lifecycle). An input's kind column, else the build's kind.
	Kind string `parquet:"kind,optional" json:"kind,omitempty"`
	// EffectiveAt is when a standing text starts to apply (an effective_at column, else the day
	// it states, when after its publication); nil: its publication.
	EffectiveAt *time.Time `parquet:"effective_at,optional,timestamp(millisecond)" json:"effective_at,omitempty"`
	// Supersedes lists, separated by ";" or ",", the doc_ids or identifiers of the texts this
	// one supersedes (a supersedes column).
	Supersedes string `parquet:"supersedes,optional" json:"supersedes,omitempty"`
	// UpdatedAt is when this text of the document was published, when the input says it was
	// edited after PublishedAt (an updated_at column): the row is then indexed as of UpdatedAt
	// (PublishedAt is set to it), so that its text is never served before it was written.
	UpdatedAt *time.Time `parquet:"updated_at,optional,timestamp(millisecond)" json:"updated_at,omitempty"`
	// Version is the document's version when it is not its first (2, 3, …: a row whose doc_id
	// the index holds with other content); 0 for a first version.
	Version int32 `parquet:"version,optional" json:"version,omitempty"`
}

// ContentHash is what tells two versions of a document apart: a hash of its title, text
// (as cleaned), source and url. Two rows with one doc_id and one hash are the same version.
func (d Document) ContentHash() string {
	h := sha256.New()
	for _, s := range []string{d.Title, d.Text, d.Source, d.URL} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Kinds of document (Document.Kind): KindNews (also "") and KindStanding; internal/lifecycle
// says what each means.
const (
	KindNews     = "news"
	KindStanding = "standing"
)

// Quarantine reasons: why an input row was not indexed. Every row read is either indexed or
// quarantined with one of these.
const (
	ReasonMissingID   = "missing_id"
	ReasonMissingDate = "missing_date"
	ReasonBadDate     = "bad_date"
	ReasonEmptyText   = "empty_text"
	ReasonBadEncoding = "bad_encoding"
	ReasonDuplicateID = "duplicate_id"
	// ReasonBadWeight marks a source_weight that is not a finite number (NaN, ±Inf, text).
	ReasonBadWeight = "bad_weight"
	// ReasonBadKind marks a kind column value that is neither "news" nor "standing".
	ReasonBadKind = "bad_kind"
	// ReasonStaleVersion: a row whose doc_id the index holds with other content, published
	// no later than the version it holds: it cannot be the document's next version.
	ReasonStaleVersion = "stale_version"
	// ReasonFutureDate: published after the day after the build started (a 2099 typo would
	// otherwise make a 2099 shard); `asof index --allow-future` keeps such rows.
	ReasonFutureDate = "future_date"
	// ReasonBoilerplate: the text is nothing but boilerplate (a channel's footer, a link, a
	// hashtag or emoji line; textnorm.Tidy), so nothing of it could be indexed.
	ReasonBoilerplate = "boilerplate_only"
)

// QuarantineVersion is the version of QuarantineRow.
const QuarantineVersion = 1

// QuarantineRow records one rejected input row and why (<store>/quarantine/<run>/rejects.parquet).
type QuarantineRow struct {
	SourceFile string `parquet:"source_file" json:"source_file"`
	// RowNumber is the row's 0-based position in its file.
	RowNumber int64  `parquet:"row_number" json:"row_number"`
	DocID     string `parquet:"doc_id" json:"doc_id"`
	Reason    string `parquet:"reason" json:"reason"`
	// Detail says what was wrong in words (the unparsable value, the first row of a duplicate).
	Detail string `parquet:"detail" json:"detail"`
}
