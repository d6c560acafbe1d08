package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	asof "github.com/asofrag/asof/client"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

func newQuarantineCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "quarantine show RUN",
		Short: "The rows an index build refused, with their reasons",
		Long: `asof index quarantines every row it cannot index (a missing or unparsable date, empty text, a
duplicate id, …) with its reason, and prints where: "rows in quarantine/<run-id>/rejects.parquet".
'quarantine show' prints those rows: the file and row number, the doc_id, the reason and what
was wrong. RUN is the run id or that key.`,
		Example: `  asof quarantine show quarantine/5f0c…/rejects.parquet
  asof quarantine show 5f0c… --reason missing_date --json`,
	}
	cmd.AddCommand(newQuarantineShowCmd(a))
	return cmd
}

func newQuarantineShowCmd(a *app) *cobra.Command {
	var (
		reason string
		limit  int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Print the rows an index build run quarantined",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := catalog.QuarantineRun(args[0]); err != nil {
				return err
			}
			if limit < 0 {
				return fmt.Errorf("--limit %d: give 0 (all) or more", limit)
			}
			ctx := cmd.Context()
			return withStore(ctx, a, func(b blob.Bucket) error {
				rows, key, err := (&asof.Client{Store: b}).Quarantine(ctx, args[0])
				if errors.Is(err, catalog.ErrNoQuarantine) {
					return fmt.Errorf("%w (the run id is the folder under quarantine/ that asof index printed)", err)
				}
				if err != nil {
					return err
				}
				byReason := map[string]int{}
				var shown []schemas.QuarantineRow
				for _, r := range rows {
					byReason[r.Reason]++
					if (reason == "" || r.Reason == reason) && (limit == 0 || len(shown) < limit) {
						shown = append(shown, r)
					}
				}
				if asJSON {
					if shown == nil {
						shown = []schemas.QuarantineRow{}
					}
					return writeJSON(a.stdout, shown)
				}
				reasons := make([]string, 0, len(byReason))
				for r := range byReason {
					reasons = append(reasons, r)
				}
				sort.Strings(reasons)
				var parts []string
				for _, r := range reasons {
					parts = append(parts, fmt.Sprintf("%s %d", r, byReason[r]))
				}
				printf(a.stdout, "%d rows quarantined (%s) in %s\n\n", len(rows), strings.Join(parts, ", "), key)
				printf(a.stdout, "| file | row | doc_id | reason | detail |\n|---|---:|---|---|---|\n")
				for _, r := range shown {
					cell := func(s string) string { return strings.ReplaceAll(render.OneLine(s), "|", `\|`) }
					printf(a.stdout, "| %s | %d | %s | %s | %s |\n", cell(r.SourceFile), r.RowNumber, cell(r.DocID), cell(r.Reason), cell(render.Truncate(r.Detail, 120)))
				}
				if n := len(rows) - len(shown); n > 0 {
					printf(a.stdout, "\n%d more not shown (--reason, --limit)\n", n)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "only rows quarantined for this reason (missing_date, empty_text, duplicate_id, …)")
	cmd.Flags().IntVar(&limit, "limit", 100, "print at most this many rows (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rows as JSON")
	a.embeddedFlags(cmd, false)
	return cmd
}
