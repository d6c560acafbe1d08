package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/storeio"

	"github.com/asofrag/asof/internal/layout"
)

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
func printIndexes(w io.Writer, list []catalog.Index) {
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
func printIndex(w io.Writer, e catalog.Index) {
	printf(w, "index %s (%s in %d objects under %s/)\n", e.Name, sizeLabel(e.Bytes), e.Objects, layout.IndexPrefix(e.Name))
	if e.Problem != "" {
		printf(w, "  %s\n", e.Problem)
		return
	}
	printf(w, "  manifest   %d, built %s\n", e.ManifestSeq, e.BuiltAt.UTC().Format(time.RFC3339))
	printf(w, "  model      %s (dim %d, sha256 %s)\n", e.Model, e.ModelDim, render.Truncate(e.ModelSHA256, 20))
	printf(w, "  documents  %d in %d chunks, published %s … %s\n", e.Documents, e.Chunks, dayOrDash(e.From), dayOrDash(e.To))
	if c := e.Counts; c != nil {
		if c.Deleted > 0 {
			printf(w, "  build      %d read = %d indexed + %d quarantined + %d skipped + %d deleted\n", c.Read, c.Indexed, c.QuarantinedTotal(), c.Skipped, c.Deleted)
		} else {
			printf(w, "  build      %d read = %d indexed + %d quarantined + %d skipped\n", c.Read, c.Indexed, c.QuarantinedTotal(), c.Skipped)
		}
		if len(c.Languages) > 0 {
			printf(w, "  languages  %s\n", countsLabel(c.Languages))
		}
	}
	src := make(map[string]int64, len(e.SourceDocs))
	for k, v := range e.SourceDocs {
		src[k] = int64(v)
	}
	printf(w, "  sources    %d: %s\n", e.Sources, countsLabel(src))
	if e.Kind != "" || e.Lifecycle != nil {
		var lw strings.Builder
		printLifecycle(&lw, e.Kind, e.Lifecycle)
		for _, line := range strings.Split(strings.TrimSpace(lw.String()), "\n") {
			printf(w, "  %s\n", strings.TrimSpace(line))
		}
	}
	if e.TakenDown > 0 {
		printf(w, "  taken down %d %s, never served (asof docs list --index %s)\n", e.TakenDown, plural(int64(e.TakenDown), "document", "documents"), e.Name)
	}
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

// printLifecycleReport lists every supersession link and warning of an index's lifecycle.
func printLifecycleReport(w io.Writer, name string, r *storeio.LifecycleReport) {
	if r == nil {
		printf(w, "index %s has no lifecycle table: no standing text and no document with a second version\n", name)
		return
	}
	printf(w, "supersession links of %s (%d): OLD superseded by NEW on DAY, and why\n", name, len(r.Links))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  OLD\tNEW\tON\tBASIS\tDETAIL")
	for _, l := range r.Links {
		basis := l.Basis
		if l.Soft() {
			basis += " (ranked after, not hidden)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", l.Old, l.New, l.Since.UTC().Format(time.DateOnly), basis, l.Detail)
	}
	_ = tw.Flush()
	printf(w, "warnings (%d):\n", len(r.Warnings))
	for _, x := range r.Warnings {
		printf(w, "  %s %s: %s\n", x.DocID, x.Reason, x.Detail)
	}
}

func newIndexesCmd(a *app) *cobra.Command {
	var asJSON, lifecycleToo bool
	list := func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		return withStack(ctx, a, func(st *infra.Stack) error {
			l, err := a.client(st).Indexes(ctx)
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
		Use:   "indexes [list | show NAME | history NAME | rollback NAME SEQ | delete NAME]",
		Short: "List, show, roll back and delete the indexes in the store",
		Long: `indexes lists the indexes in the store, read from each one's live manifest: its model, documents
and chunks, the dates they were published between, how many sources, shards and bytes, the
manifest's number and when it was built. show gives one index's documents per source and its
shards; history lists its manifests (every build, takedown, purge and rollback published one);
rollback publishes an earlier one again; delete removes every object under indexes/<name>/.`,
		Example: `  asof indexes
  asof indexes --json | jq '.[].name'
  asof indexes show tg
  asof indexes history tg
  asof indexes rollback tg 3
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
				c := a.client(st)
				ix, err := c.GetIndex(ctx, name)
				var none *asof.NoIndexError
				if errors.As(err, &none) {
					return noIndex(name)
				}
				if err != nil {
					return err
				}
				if lifecycleToo {
					rep, err := c.IndexLifecycle(ctx, name)
					if err != nil {
						return err
					}
					if asJSON {
						return writeJSON(a.stdout, rep)
					}
					printLifecycleReport(a.stdout, name, rep)
					return nil
				}
				if asJSON {
					return writeJSON(a.stdout, ix)
				}
				printIndex(a.stdout, ix)
				return nil
			})
		},
	}
	showCmd.Flags().BoolVar(&lifecycleToo, "lifecycle", false, "list the index's supersession links (which text supersedes which, from when, and how asof knows) and its lifecycle warnings instead")
	a.embeddedFlags(showCmd, false)
	cmd.AddCommand(listCmd, showCmd, newIndexesDeleteCmd(a), newIndexesHistoryCmd(a), newIndexesRollbackCmd(a))
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

// deleteIndex removes every object under an index's prefix, CURRENT first (client.DeleteIndex),
// once a person said yes on a terminal, or yes is set.
func deleteIndex(ctx context.Context, a *app, st *infra.Stack, name string, yes bool) error {
	what, err := a.client(st).DeleteIndex(ctx, name, func(o asof.IndexObjects) error {
		if yes {
			return nil
		}
		what := fmt.Sprintf("%d objects, %s under %s", o.Objects, sizeLabel(o.Bytes), o.Prefix)
		if !stdinIsTerminal() {
			return fmt.Errorf("delete index %s (%s): add --yes to confirm", name, what)
		}
		printf(a.stderr, "Delete index %s (%s)? [y/N] ", name, what)
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			return fmt.Errorf("index %s kept", name)
		}
		return nil
	})
	var none *asof.NoIndexError
	if errors.As(err, &none) {
		return noIndex(name)
	}
	if err != nil {
		return err
	}
	printf(a.stdout, "deleted index %s: %d objects, %s under %s\n", name, what.Objects, sizeLabel(what.Bytes), what.Prefix)
	return nil
}

func newIndexesHistoryCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "An index's manifests, oldest first: when, shards, documents, takedowns, the live one",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := layout.ValidateIndexName(name); err != nil {
				return err
			}
			asJSON, _ := cmd.Flags().GetBool("json")
			ctx := cmd.Context()
			return withStack(ctx, a, func(st *infra.Stack) error {
				h, err := a.client(st).IndexHistory(ctx, name)
				var none *asof.NoIndexError
				if errors.As(err, &none) {
					return noIndex(name)
				}
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(a.stdout, h)
				}
				printf(a.stdout, "| manifest | published | model | shards | indexed | deleted | read | taken down | |\n|---:|---|---|---:|---:|---:|---:|---:|---|\n")
				for _, m := range h {
					note := ""
					switch {
					case m.Error != "":
						note = "does not read: " + m.Error
					case m.Live && m.RestoredFrom > 0:
						note = fmt.Sprintf("**live**, restores %d", m.RestoredFrom)
					case m.Live:
						note = "**live**"
					case m.RestoredFrom > 0:
						note = fmt.Sprintf("restores %d", m.RestoredFrom)
					}
					printf(a.stdout, "| %d | %s | %s | %d | %d | %d | %d | %d | %s |\n", m.Seq, m.CreatedAt.UTC().Format(time.RFC3339), m.Model, m.Shards,
						m.Counts.Indexed, m.Counts.Deleted, m.Counts.Read, m.Takedowns, note)
				}
				return nil
			})
		},
	}
	a.embeddedFlags(cmd, false)
	return cmd
}

func newIndexesRollbackCmd(a *app) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "rollback NAME SEQ",
		Short: "Publish an earlier manifest of an index again (asks first; --yes does not)",
		Long: `rollback publishes manifest SEQ of an index (asof indexes history NAME lists them) again, as
its next manifest, by compare-and-swap like any build: readers see the index before or after,
never half. The restored index has that manifest's shards, model, chunking, kind and lifecycle,
and keeps every document taken down since (a rollback never brings one back: its rows count as
deleted). It refuses while a build of the index runs, for the live manifest, and for a manifest
whose shards are gone (a purge deletes the shards that held a document it removed). A rollback
is itself a manifest: roll back to the one before it to undo it.`,
		Example: `  asof indexes history news
  asof indexes rollback news 4 --yes`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := layout.ValidateIndexName(name); err != nil {
				return err
			}
			seq, err := strconv.Atoi(args[1])
			if err != nil || seq < 1 {
				return fmt.Errorf("SEQ %q: the number of a manifest (asof indexes history %s lists them)", args[1], name)
			}
			ctx := cmd.Context()
			return withStack(ctx, a, func(st *infra.Stack) error {
				c := a.client(st)
				if !yes {
					h, err := c.IndexHistory(ctx, name)
					var none *asof.NoIndexError
					if errors.As(err, &none) {
						return noIndex(name)
					}
					if err != nil {
						return err
					}
					var live, target *asof.ManifestInfo
					for i := range h {
						if h[i].Live {
							live = &h[i]
						}
						if h[i].Seq == seq {
							target = &h[i]
						}
					}
					if target == nil || live == nil {
						return fmt.Errorf("index %s has no manifest %d (asof indexes history %s lists them)", name, seq, name)
					}
					what := fmt.Sprintf("manifest %d (%d shards, %d indexed) replaces the live %d (%d shards, %d indexed)", seq, target.Shards, target.Counts.Indexed, live.Seq, live.Shards, live.Counts.Indexed)
					if !stdinIsTerminal() {
						return fmt.Errorf("roll back index %s: %s; add --yes to confirm", name, what)
					}
					printf(a.stderr, "Roll back index %s: %s? [y/N] ", name, what)
					line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
					if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
						return fmt.Errorf("index %s kept", name)
					}
				}
				res, err := c.RollbackIndex(ctx, name, seq)
				var none *asof.NoIndexError
				if errors.As(err, &none) {
					return noIndex(name)
				}
				if err != nil {
					return err
				}
				if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
					return writeJSON(a.stdout, res)
				}
				printf(a.stdout, "index %s rolled back to manifest %d: published %s (seq %d); %d shards, %d rows indexed, %d deleted of %d read; %d takedowns kept\n",
					name, res.RestoredFrom, res.ManifestKey, res.Seq, res.Shards, res.Counts.Indexed, res.Counts.Deleted, res.Counts.Read, res.Takedowns)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "roll back without asking")
	a.embeddedFlags(cmd, false)
	return cmd
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
