package indexplan

import (
	"errors"
	"fmt"
	"slices"
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
func LoaderOptions(mapping map[string]string, from, to time.Time, known map[string]corpus.Known, started time.Time, allowFuture bool) corpus.Options {
	o := corpus.Options{Mapping: corpus.Mapping(mapping), From: from, To: to, Known: known, Now: started}
	if allowFuture {
		o.Now = time.Time{}
	}
	return o
}

// ErrNoDocuments is the error of a build that would index nothing: input files holding no
// rows at all (CheckRows), or a new build none of whose rows can be indexed (CheckIndexable).
// Nothing is published.
var ErrNoDocuments = errors.New("no documents to index")

// CheckRows refuses a build whose files (their names) hold rows rows in all: none is
// ErrNoDocuments. Rows that are read and then quarantined or skipped are CheckIndexable's.
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

// CheckIndexable refuses a new build none of whose rows can be indexed: every row read was
// quarantined or fell outside --from/--to, so publishing would make an index of nothing. The
// error says how many rows went where, by reason, and where the quarantined rows are kept
// (quarantineKey, "" when none were). An append may add nothing (its rows may all be there
// already); it is not refused.
func CheckIndexable(files []string, c schemas.IndexCounts, quarantineKey string) error {
	if c.Read == 0 || c.Indexed > 0 {
		return nil
	}
	what := "the input"
	if len(files) == 1 {
		what = files[0]
	}
	var parts []string
	reasons := make([]string, 0, len(c.Quarantined))
	for k := range c.Quarantined {
		reasons = append(reasons, k)
	}
	slices.Sort(reasons)
	for _, k := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", c.Quarantined[k], k))
	}
	if c.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d outside --from/--to", c.Skipped))
	}
	where := ""
	if quarantineKey != "" {
		where = "; the quarantined rows and their reasons are in " + quarantineKey
	}
	return fmt.Errorf("%w: none of the %d rows of %s can be indexed (%s)%s", ErrNoDocuments, c.Read, what, strings.Join(parts, ", "), where)
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
	return files, schemas.IndexCounts{Read: t.Read, Indexed: t.Documents, Quarantined: t.Quarantined, Skipped: t.Skipped, Deleted: t.Deleted,
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
