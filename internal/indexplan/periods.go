package indexplan

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/modelchoice"
	"github.com/asofrag/asof/schemas"
)

// InputFile is one corpus file in the store.
type InputFile struct {
	// Key is the object key; Name is how reports call it (the user's path).
	Key  string `json:"key"`
	Name string `json:"name"`
}

// LoaderOptions are a build's corpus.Options: the column mapping, the days kept, the doc_ids
// an append already holds, and the build's start as the future-date check (none when
// allowFuture: Now stays zero).
func LoaderOptions(mapping map[string]string, from, to time.Time, existing map[string]string, started time.Time, allowFuture bool) corpus.Options {
	o := corpus.Options{Mapping: corpus.Mapping(mapping), From: from, To: to, Existing: existing, Now: started}
	if allowFuture {
		o.Now = time.Time{}
	}
	return o
}

// ErrNoDocuments is the error of a build whose input files hold no rows at all: an empty
// input is not an index, so nothing is published.
var ErrNoDocuments = errors.New("no documents to index")

// CheckRows refuses a build whose files (their names) hold rows rows in all: none is
// ErrNoDocuments. Rows that are read and then quarantined or skipped are rows: the build goes
// on and its report says why nothing was indexed.
func CheckRows(files []string, rows int64) error {
	if rows > 0 {
		return nil
	}
	what := "the input files hold no rows"
	switch {
	case len(files) == 1:
		what = files[0] + " holds no rows"
	case len(files) > 1 && len(files) <= 5:
		what = strings.Join(files, ", ") + " hold no rows"
	case len(files) > 5:
		what = fmt.Sprintf("the %d input files (%s, …) hold no rows", len(files), strings.Join(files[:3], ", "))
	}
	return fmt.Errorf("%w: %s (an empty input is not an index)", ErrNoDocuments, what)
}

// FileCounts reconcile one input file.
type FileCounts struct {
	Name  string       `json:"name"`
	Stats corpus.Stats `json:"stats"`
}

// Reconcile is what loader read: its per-file table, and the build's counts with docs, the
// valid documents, counted per language (modelchoice.Count).
func Reconcile(loader *corpus.Loader, docs []schemas.Document) ([]FileCounts, schemas.IndexCounts) {
	var files []FileCounts
	names, stats := loader.Stats()
	for i, n := range names {
		files = append(files, FileCounts{Name: n, Stats: stats[i]})
	}
	t := loader.Total()
	return files, schemas.IndexCounts{Read: t.Read, Indexed: t.Documents, Quarantined: t.Quarantined, Skipped: t.Skipped,
		Languages: modelchoice.Count(docs)}
}

// PeriodPlan is one shard to build, or one already built.
type PeriodPlan struct {
	Period  string `json:"period"`
	ShardID string `json:"shard_id"`
	Docs    int    `json:"docs"`
	// DocsKey holds the period's canonical documents (layout.StagingDocsKey).
	DocsKey string `json:"docs_key"`
	// Done is set when the shard already exists; Meta is then its meta.json.
	Done bool               `json:"done"`
	Meta *schemas.ShardMeta `json:"meta,omitempty"`
}

// NewStoredPlan is the plan to store of a build's periods and the live shards an append keeps.
func NewStoredPlan(periods []PeriodPlan, existing []schemas.ShardMeta) StoredPlan {
	p := StoredPlan{Version: StoredPlanVersion, Existing: existing}
	for _, pp := range periods {
		p.Shards = append(p.Shards, PlannedShard{Period: pp.Period, ShardID: pp.ShardID, Docs: pp.Docs, Meta: pp.Meta})
	}
	return p
}

// ToBuild are the shards of a page of index's stored plan (StoredPlan.Page) as periods to build,
// each with its staged documents' key.
func ToBuild(index string, page []PlannedShard) []PeriodPlan {
	out := make([]PeriodPlan, len(page))
	for i, s := range page {
		out[i] = PeriodPlan{Period: s.Period, ShardID: s.ShardID, Docs: s.Docs, DocsKey: layout.StagingDocsKey(index, s.ShardID)}
	}
	return out
}
