package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/layout"
)

// withStore opens the store alone (the data dir's running stack's, or the embedded gateway,
// or --store) for a command that reads what was written and needs no Temporal.
func withStore(ctx context.Context, a *app, fn func(b blob.Bucket) error) error {
	st, err := infra.Start(ctx, a.cfg, infra.StartOptions{NoTemporal: true})
	if err != nil {
		return portClash(err, false)
	}
	defer st.Close()
	return fn(st.Bucket)
}

func newDigestListCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [NAME]",
		Short: "List the stored digests: every name, or the days of one",
		Example: `  asof digest list
  asof digest list morning
  asof digest list morning --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
				if err := layout.ValidateDigestName(name); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			return withStore(ctx, a, func(b blob.Bucket) error {
				days, err := catalog.Digests(ctx, b, name)
				if err != nil {
					return err
				}
				if len(days) == 0 {
					if name != "" {
						return fmt.Errorf("no digest named %s in %s (asof digest list shows the names)", name, b)
					}
					if asJSON {
						return writeJSON(a.stdout, []catalog.DigestName{})
					}
					printf(a.stdout, "no digests in %s (write one with `asof digest` or `asof schedule`)\n", b)
					return nil
				}
				if name == "" {
					names := catalog.DigestNames(days)
					if asJSON {
						return writeJSON(a.stdout, names)
					}
					tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "NAME\tDAYS\tFIRST\tLAST")
					for _, n := range names {
						fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", n.Name, n.Days, n.First, n.Last)
					}
					return tw.Flush()
				}
				for i := range days {
					if err := days[i].Fill(ctx, b); err != nil {
						return err
					}
				}
				if asJSON {
					return writeJSON(a.stdout, days)
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "DAY\tINDEX\tTOPICS\tFAILED\tSIZE\tNOTE")
				for _, d := range days {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", d.Day, orDash(d.Index), d.Topics, d.Failed, sizeLabel(d.Bytes), d.Problem)
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func newDigestGetCmd(a *app) *cobra.Command {
	var asJSON bool
	var html string
	cmd := &cobra.Command{
		Use:   "get NAME [DAY]",
		Short: "Print a stored digest (the latest day unless DAY is given) as Markdown, JSON or HTML",
		Example: `  asof digest get morning
  asof digest get morning 2026-03-31 --json
  asof digest get morning --html morning.html`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := layout.ValidateDigestName(name); err != nil {
				return err
			}
			var want time.Time
			if len(args) == 2 {
				var err error
				if want, err = parseDay("day", args[1]); err != nil {
					return err
				}
			}
			if asJSON && html != "" {
				return errors.New("--json and --html each choose what is written: give one")
			}
			ctx := cmd.Context()
			return withStore(ctx, a, func(b blob.Bucket) error {
				wantDay := ""
				if !want.IsZero() {
					wantDay = want.UTC().Format(time.DateOnly)
				}
				day, days, err := catalog.Pick(ctx, b, name, wantDay)
				if errors.Is(err, catalog.ErrNoDigest) {
					return fmt.Errorf("%w (asof digest list shows the names)", err)
				}
				if err != nil {
					return err
				}
				file, w := layout.DigestMarkdownFile, a.stdout
				switch {
				case asJSON:
					file = layout.DigestJSONFile
				case html != "":
					file = layout.DigestHTMLFile
				}
				data, err := catalog.DigestFile(ctx, b, name, day, file)
				if err != nil {
					return err
				}
				if html != "" && html != "-" {
					if err := os.WriteFile(html, data, 0o644); err != nil {
						return fmt.Errorf("--html: %w", err)
					}
					printf(a.stderr, "wrote %s (digest %s of %s)\n", html, name, day)
					return nil
				}
				_, err = w.Write(data)
				if err == nil && len(args) == 1 && !asJSON && html == "" {
					printf(a.stderr, "\ndigest %s of %s, the latest of %d days (asof digest list %s)\n", name, day, len(days), name)
				}
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print digest.json instead of Markdown")
	cmd.Flags().StringVar(&html, "html", "", "write the self-contained HTML page to this file instead (- for stdout)")
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
