package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/workflows"
)

func newDocsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "docs delete|list",
		Short: "Take documents down from an index (every version, from every answer), and list what was taken down",
		Long: `docs deletes documents from an index, for a legal takedown or a withdrawn text: every
version of each doc_id leaves every answer from then on, as of any day and in every mode (the
mask removes their rows before any branch ranks), and the index's manifest records the takedown
(when, why, how many rows). Builds after it — a rebuild of the same files, an --append that
meets the doc_id again — count its rows as deleted, never indexed: read = indexed + skipped +
quarantined + deleted. The shards keep the rows, masked, until a rebuild writes them without,
or until --purge: the live shards are written again without the rows (text, vectors and BM25
terms), published by compare-and-swap like any build, then every other object of the store that
holds the text goes: earlier manifests' shards and lifecycle tables (those manifests can no
longer be read), staged build files, the uploaded copies of the input files that hold it
(asof index uploads a file again when given it, and leaves the document out); the index's
stored answers and digests are written again with the citation shown as removed. A purge is
resumable: killed midway, it does what is left when run again. It waits for no build: while one
runs it is refused. Temporal's own history of earlier asks still holds their results until its
retention passes.`,
		Example: `  asof docs delete --index news --doc-id tg-4711 --reason "court order 12/2026"
  asof docs delete --index news --doc-id tg-4711 --reason "court order 12/2026" --purge
  asof docs delete --index news --purge        # purge what earlier takedowns left masked
  asof docs list --index news`,
	}
	cmd.AddCommand(newDocsDeleteCmd(a), newDocsListCmd(a))
	return cmd
}

func newDocsDeleteCmd(a *app) *cobra.Command {
	var (
		index, reason string
		ids           []string
		asJSON, purge bool
	)
	cmd := &cobra.Command{
		Use:   "delete --index NAME --doc-id ID... --reason TEXT [--purge]",
		Short: "Take documents down: every version, from every answer, recorded in the manifest",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			in := workflows.TakeDownInput{Index: index, DocIDs: ids, Reason: reason, Purge: purge}
			if err := asof.CheckTakeDown(in); err != nil { // before any server starts
				return flagNames(err)
			}
			st, _, stop, err := startServing(ctx, a, index, nil)
			if err != nil {
				return err
			}
			defer stop()
			res, err := a.client(st).TakeDown(ctx, in)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, res)
			}
			printTakeDown(a, index, res)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&index, "index", "", "the index (required)")
	fs.StringArrayVar(&ids, "doc-id", nil, "a document to take down, every version of it (repeatable; required unless --purge)")
	fs.StringVar(&reason, "reason", "", "why, recorded in the manifest (required with --doc-id)")
	fs.BoolVar(&purge, "purge", false, "then remove their text and vectors from the store: shards written again, every other copy deleted or redacted")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	_ = cmd.MarkFlagRequired("index")
	a.embeddedFlags(cmd, false)
	return cmd
}

func printTakeDown(a *app, index string, res workflows.TakeDownResult) {
	for _, t := range res.Taken {
		printf(a.stdout, "took down %s from index %s (%d indexed %s): %s\n", t.DocID, index, t.Rows, plural(t.Rows, "version", "versions"), t.Reason)
	}
	for _, id := range res.Already {
		printf(a.stdout, "%s was taken down from index %s before: left as it was\n", id, index)
	}
	c := res.Counts
	switch {
	case res.Unchanged && res.Purge == nil:
		printf(a.stdout, "index %s unchanged (%s)\n", index, res.ManifestKey)
	case res.Purge == nil || len(res.Taken) > 0:
		printf(a.stdout, "index %s published: %s (seq %d); %d rows indexed, %d deleted, %d quarantined, %d skipped of %d read\n",
			index, res.ManifestKey, res.Seq, c.Indexed, c.Deleted, c.QuarantinedTotal(), c.Skipped, c.Read)
	}
	if p := res.Purge; p != nil {
		if len(p.Docs) == 0 && p.Unchanged {
			printf(a.stdout, "purge: the shards hold no row of a document taken down (purged before)\n")
		} else {
			printf(a.stdout, "purge: %s %s; %d chunk rows removed from %d shards (%d written again, %d found written by an earlier try, %d dropped: nothing left); published %s (seq %d)\n",
				plural(int64(len(p.Docs)), "document", "documents"), strings.Join(p.Docs, ", "), p.Rows, p.Written+p.Reused+p.Dropped, p.Written, p.Reused, p.Dropped, p.ManifestKey, p.Seq)
		}
		w := p.Sweep
		printf(a.stdout, "purge: the rest of the store (%d objects read): %d earlier shards, %d lifecycle tables, %d staged builds, %d uploaded input files deleted; %d answers and %d digest days written again with the citation removed\n",
			w.Scanned, w.Shards, w.Lifecycle, w.Staging, w.Corpora, w.Answers, w.Digests)
	}
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func newDocsListCmd(a *app) *cobra.Command {
	var (
		index  string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list --index NAME",
		Short: "The documents taken down from an index: when, why, how many rows",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := layout.ValidateIndexName(index); err != nil {
				return fmt.Errorf("--index: %w", err)
			}
			return withStack(ctx, a, func(st *infra.Stack) error {
				l, err := a.client(st).Takedowns(ctx, index)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(a.stdout, l)
				}
				if len(l) == 0 {
					printf(a.stdout, "nothing taken down from index %s\n", index)
					return nil
				}
				printf(a.stdout, "| doc_id | taken down | rows | reason |\n|---|---|---:|---|\n")
				for _, t := range l {
					printf(a.stdout, "| %s | %s | %d | %s |\n", t.DocID, t.At.UTC().Format(time.RFC3339), t.Rows, t.Reason)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&index, "index", "", "the index (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	_ = cmd.MarkFlagRequired("index")
	a.embeddedFlags(cmd, false)
	return cmd
}

// flagNames says a takedown check's field names as this command's flags.
func flagNames(err error) error {
	msg := err.Error()
	for field, flag := range map[string]string{"index: ": "--index: ", "doc_id: ": "--doc-id: ", "reason: ": "--reason: "} {
		if rest, ok := strings.CutPrefix(msg, field); ok {
			return errors.New(flag + rest)
		}
	}
	return err
}
