package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/spf13/cobra"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"golang.org/x/term"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/workflows"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// manifestSpan is the first and last publication time of an index's chunks, from its
// manifest's shards; both zero for an index with no shards.
func manifestSpan(m schemas.Manifest) (lo, hi time.Time) {
	for _, s := range m.Shards {
		if lo.IsZero() || s.MinDate.Before(lo) {
			lo = s.MinDate
		}
		if s.MaxDate.After(hi) {
			hi = s.MaxDate
		}
	}
	return lo, hi
}

// indexRangeHint names the dates an index holds and an --as-of inside them, for an answer
// that found no document in its period; "" when the manifest cannot be read.
func indexRangeHint(ctx context.Context, b blob.Bucket, index string) string {
	cur, err := layout.ReadCurrent(ctx, b, index)
	if err != nil {
		return ""
	}
	m, err := layout.ReadManifest(ctx, b, layout.ManifestOf(index, cur))
	if err != nil {
		return ""
	}
	lo, hi := manifestSpan(m)
	if hi.IsZero() {
		return fmt.Sprintf("index %s holds no documents (manifest %d)", index, m.Seq)
	}
	day := func(t time.Time) string { return t.UTC().Format(time.DateOnly) }
	return fmt.Sprintf("index %s holds documents published %s … %s (manifest %d): ask inside them, e.g. --as-of %s",
		index, day(lo), day(hi), m.Seq, day(hi))
}

// indexEntry is one index as `asof indexes` lists and shows it, read from its live manifest
// (through internal/layout) and from the objects under its prefix.
type indexEntry struct {
	Name      string     `json:"name"`
	Model     string     `json:"model,omitempty"`
	Documents int64      `json:"documents"`
	Chunks    int64      `json:"chunks"`
	From      *time.Time `json:"from,omitempty"`
	To        *time.Time `json:"to,omitempty"`
	// Sources counts the distinct sources (channels) of the index's chunks; a document merged
	// from several channels ("A; B") counts for each.
	Sources int    `json:"sources"`
	Shards  int    `json:"shards"`
	Period  string `json:"period,omitempty"`
	// Bytes and Objects are everything stored under the index's prefix (what delete frees):
	// the shards, every manifest, and staging left by an unfinished build.
	Bytes       int64     `json:"bytes"`
	Objects     int       `json:"objects"`
	ManifestSeq int       `json:"manifest_seq"`
	BuiltAt     time.Time `json:"built_at,omitzero"`
	// Problem says why the rest is missing: no published manifest, or a damaged one.
	Problem string `json:"problem,omitempty"`

	// Shown by `indexes show`: documents per source, the shards, and the build's counts.
	SourceDocs  map[string]int       `json:"source_docs,omitempty"`
	ShardList   []schemas.ShardMeta  `json:"shard_list,omitempty"`
	Counts      *schemas.IndexCounts `json:"counts,omitempty"`
	ModelSHA256 string               `json:"model_sha256,omitempty"`
	ModelDim    int                  `json:"model_dim,omitempty"`
}

// chunkSource is the part of a chunk row that says which source published which document.
type chunkSource struct {
	DocID  string `parquet:"doc_id"`
	Source string `parquet:"source"`
}

// readIndexes lists every index under indexes/ (every folder with an object in it, published
// or not) with its manifest's facts; detail adds the per-source documents and the shards.
// only, when set, keeps one index.
func readIndexes(ctx context.Context, b blob.Bucket, only string, detail bool) ([]indexEntry, error) {
	root := path.Dir(layout.IndexPrefix("x")) + "/"
	if only != "" {
		root = layout.IndexPrefix(only) + "/"
	}
	byName := map[string]*indexEntry{}
	var names []string
	err := b.Iter(ctx, root, func(o blob.ObjectInfo) error {
		name, _, _ := strings.Cut(strings.TrimPrefix(o.Key, path.Dir(layout.IndexPrefix("x"))+"/"), "/")
		e := byName[name]
		if e == nil {
			e = &indexEntry{Name: name}
			byName[name] = e
			names = append(names, name)
		}
		e.Bytes += o.Size
		e.Objects++
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", root, b, err)
	}
	out := make([]indexEntry, 0, len(names))
	for _, name := range names {
		e := byName[name]
		if err := e.fill(ctx, b, detail); err != nil {
			return nil, err
		}
		out = append(out, *e)
	}
	return out, nil
}

// fill reads e's live manifest (and, for detail or the source count, its chunks' sources).
func (e *indexEntry) fill(ctx context.Context, b blob.Bucket, detail bool) error {
	cur, err := layout.ReadCurrent(ctx, b, e.Name)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		e.Problem = "no published manifest (a build that has not finished, or was stopped)"
		return nil
	case errors.Is(err, layout.ErrDamaged):
		e.Problem = err.Error()
		return nil
	case err != nil:
		return err
	}
	m, err := layout.ReadManifest(ctx, b, layout.ManifestOf(e.Name, cur))
	switch {
	case errors.Is(err, blob.ErrNotFound), errors.Is(err, layout.ErrDamaged):
		e.Problem = fmt.Sprintf("CURRENT names %s: %v", cur.Manifest, err)
		return nil
	case err != nil:
		return err
	}
	e.Model, e.Documents, e.Chunks, e.Shards, e.Period = m.Model.ID, m.Counts.Indexed, m.Counts.Chunks, len(m.Shards), m.Period
	e.ManifestSeq, e.BuiltAt = m.Seq, m.CreatedAt
	if lo, hi := manifestSpan(m); !hi.IsZero() {
		e.From, e.To = &lo, &hi
	}
	docs := map[string]int{}
	for _, s := range m.Shards {
		for _, o := range s.Objects {
			if path.Base(o.Key) != shard.ChunksFile {
				continue
			}
			key := path.Join(layout.IndexPrefix(e.Name), o.Key)
			data, err := blob.ReadAll(ctx, b, key)
			if err != nil {
				return fmt.Errorf("read %s: %w", key, err)
			}
			rows, err := parquet.Read[chunkSource](bytes.NewReader(data), int64(len(data)))
			if err != nil {
				return fmt.Errorf("read %s: %w", key, err)
			}
			seen := map[string]bool{}
			for _, r := range rows {
				if !seen[r.DocID] {
					seen[r.DocID] = true
					for _, ch := range textnorm.Channels(r.Source) { // a merged repost names its channels "A; B"
						docs[ch]++
					}
				}
			}
		}
	}
	e.Sources = len(docs)
	if detail {
		e.SourceDocs, e.ShardList, e.Counts = docs, m.Shards, &m.Counts
		e.ModelSHA256, e.ModelDim = m.Model.SHA256, m.Model.Dim
	}
	return nil
}

// sizeLabel writes n bytes for people (B, KB, MB, GB; powers of 1000).
func sizeLabel(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	case n < 1e9:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

func dayOrDash(t *time.Time) string {
	if t == nil {
		return "–"
	}
	return t.UTC().Format(time.DateOnly)
}

// printIndexes writes the indexes as a table.
func printIndexes(w io.Writer, list []indexEntry) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMODEL\tDOCUMENTS\tCHUNKS\tFROM\tTO\tSOURCES\tSHARDS\tSIZE\tMANIFEST\tBUILT")
	for _, e := range list {
		if e.Problem != "" {
			fmt.Fprintf(tw, "%s\t–\t–\t–\t–\t–\t–\t–\t%s\t–\t%s\n", e.Name, sizeLabel(e.Bytes), e.Problem)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%d\t%d\t%s\t%d\t%s\n", e.Name, e.Model, e.Documents, e.Chunks, dayOrDash(e.From), dayOrDash(e.To),
			e.Sources, e.Shards, sizeLabel(e.Bytes), e.ManifestSeq, e.BuiltAt.UTC().Format("2006-01-02 15:04"))
	}
	_ = tw.Flush()
}

// printIndex writes one index's details.
func printIndex(w io.Writer, e indexEntry) {
	printf(w, "index %s (%s in %d objects under %s/)\n", e.Name, sizeLabel(e.Bytes), e.Objects, layout.IndexPrefix(e.Name))
	if e.Problem != "" {
		printf(w, "  %s\n", e.Problem)
		return
	}
	printf(w, "  manifest   %d, built %s\n", e.ManifestSeq, e.BuiltAt.UTC().Format(time.RFC3339))
	printf(w, "  model      %s (dim %d, sha256 %s)\n", e.Model, e.ModelDim, render.Truncate(e.ModelSHA256, 20))
	printf(w, "  documents  %d in %d chunks, published %s … %s\n", e.Documents, e.Chunks, dayOrDash(e.From), dayOrDash(e.To))
	if c := e.Counts; c != nil {
		printf(w, "  build      %d read = %d indexed + %d quarantined + %d skipped\n", c.Read, c.Indexed, c.QuarantinedTotal(), c.Skipped)
		if len(c.Languages) > 0 {
			printf(w, "  languages  %s\n", countsLabel(c.Languages))
		}
	}
	src := make(map[string]int64, len(e.SourceDocs))
	for k, v := range e.SourceDocs {
		src[k] = int64(v)
	}
	printf(w, "  sources    %d: %s\n", e.Sources, countsLabel(src))
	printf(w, "  shards     %d (by %s):\n", e.Shards, e.Period)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    PERIOD\tFROM\tTO\tDOCUMENTS\tCHUNKS\tSIZE\tID")
	for _, s := range e.ShardList {
		var size int64
		for _, o := range s.Objects {
			size += o.Size
		}
		lo, hi := s.MinDate, s.MaxDate
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%d\t%d\t%s\t%s\n", s.Period, dayOrDash(&lo), dayOrDash(&hi), s.Docs, s.Chunks, sizeLabel(size), render.Truncate(s.ID, 16))
	}
	_ = tw.Flush()
}

// countsLabel writes counts largest first ("rbc 2, markettwits 1").
func countsLabel(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		label := k
		if label == "" {
			label = "(no source)"
		}
		parts[i] = fmt.Sprintf("%s %d", label, m[k])
	}
	return strings.Join(parts, ", ")
}

func newIndexesCmd(a *app) *cobra.Command {
	var asJSON bool
	list := func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		return withStack(ctx, a, func(st *infra.Stack) error {
			l, err := readIndexes(ctx, st.Bucket, "", false)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, l)
			}
			if len(l) == 0 {
				printf(a.stdout, "no indexes in %s (build one with `asof index --index NAME --corpus FILE`)\n", st.Bucket)
				return nil
			}
			printIndexes(a.stdout, l)
			return nil
		})
	}
	cmd := &cobra.Command{
		Use:   "indexes [list | show NAME | delete NAME]",
		Short: "List, show and delete the indexes in the store",
		Long: `indexes lists the indexes in the store, read from each one's live manifest: its model, documents
and chunks, the dates they were published between, how many sources, shards and bytes, the
manifest's number and when it was built. show gives one index's documents per source and its
shards; delete removes every object under indexes/<name>/.`,
		Example: `  asof indexes
  asof indexes --json | jq '.[].name'
  asof indexes show tg
  asof indexes delete tg --yes`,
		Args: cobra.NoArgs,
		RunE: list,
	}
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	a.embeddedFlags(cmd, false)
	listCmd := &cobra.Command{Use: "list", Short: "List the indexes (the default)", Args: cobra.NoArgs, RunE: list}
	a.embeddedFlags(listCmd, false)
	showCmd := &cobra.Command{
		Use:   "show NAME",
		Short: "One index: model, documents per source, date range, shards, bytes",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := layout.ValidateIndexName(name); err != nil {
				return err
			}
			ctx := cmd.Context()
			return withStack(ctx, a, func(st *infra.Stack) error {
				l, err := readIndexes(ctx, st.Bucket, name, true)
				if err != nil {
					return err
				}
				if len(l) == 0 {
					return noIndex(name)
				}
				if asJSON {
					return writeJSON(a.stdout, l[0])
				}
				printIndex(a.stdout, l[0])
				return nil
			})
		},
	}
	a.embeddedFlags(showCmd, false)
	cmd.AddCommand(listCmd, showCmd, newIndexesDeleteCmd(a))
	return cmd
}

func newIndexesDeleteCmd(a *app) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete an index: every object under indexes/<name>/ (asks first; --yes does not)",
		Long: `delete removes every object of an index: CURRENT first, so no reader finds it any more, then
its manifests, shards and staging. It refuses while the index's build workflow is running, and
asks for confirmation on a terminal; elsewhere it needs --yes. Answers and digests already
written from the index stay.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := layout.ValidateIndexName(name); err != nil {
				return err
			}
			ctx := cmd.Context()
			return withStack(ctx, a, func(st *infra.Stack) error {
				return deleteIndex(ctx, a, st, name, yes)
			})
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "delete without asking")
	a.embeddedFlags(cmd, false)
	return cmd
}

// deleteIndex removes every object under an index's prefix, CURRENT first.
func deleteIndex(ctx context.Context, a *app, st *infra.Stack, name string, yes bool) error {
	id := workflows.IndexWorkflowID(name)
	d, err := st.Client.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
	case err != nil:
		return fmt.Errorf("is index %s being built? describe workflow %s: %w", name, id, err)
	case d.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return fmt.Errorf("index %s is being built by workflow %s: wait for it to finish, or cancel it (%s), then delete", name, id, a.uiHint())
	}
	prefix := layout.IndexPrefix(name) + "/"
	objs, err := blob.List(ctx, st.Bucket, prefix)
	if err != nil {
		return fmt.Errorf("list %s: %w", prefix, err)
	}
	if len(objs) == 0 {
		return noIndex(name)
	}
	var size int64
	for _, o := range objs {
		size += o.Size
	}
	what := fmt.Sprintf("%d objects, %s under %s", len(objs), sizeLabel(size), prefix)
	if !yes {
		if !stdinIsTerminal() {
			return fmt.Errorf("delete index %s (%s): add --yes to confirm", name, what)
		}
		printf(a.stderr, "Delete index %s (%s)? [y/N] ", name, what)
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			return fmt.Errorf("index %s kept", name)
		}
	}
	// CURRENT first: from then on no reader finds the index, even if a delete below fails.
	current := layout.CurrentKey(name)
	if err := st.Bucket.Delete(ctx, current); err != nil {
		return fmt.Errorf("delete %s: %w", current, err)
	}
	for _, o := range objs {
		if o.Key == current {
			continue
		}
		if err := st.Bucket.Delete(ctx, o.Key); err != nil {
			return fmt.Errorf("delete %s: %w (the index is unpublished; run delete again to remove the rest)", o.Key, err)
		}
	}
	printf(a.stdout, "deleted index %s: %s\n", name, what)
	return nil
}

func noIndex(name string) error {
	return fmt.Errorf("no index named %q (see `asof indexes`)", name)
}

// stdinIsTerminal reports whether a person can answer a question on stdin (not /dev/null, a
// pipe or a file, all of which a mode check would let through or not tell apart).
func stdinIsTerminal() bool { return term.IsTerminal(int(os.Stdin.Fd())) }

func writeJSON(w io.Writer, v any) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	printf(w, "%s\n", out)
	return nil
}
