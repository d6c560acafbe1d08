package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/render"
)

// listFlags are the flags of `answers list` and `evals list`.
type listFlags struct {
	index  string
	limit  int
	asJSON bool
}

func (f *listFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.index, "index", "", "only those of this index")
	cmd.Flags().IntVar(&f.limit, "limit", apispec.DefaultListLimit, fmt.Sprintf("how many, newest first (at most %d)", apispec.MaxListLimit))
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print JSON instead of a table")
}

// check checks the flags as GET /v1/answers and /v1/evals check their query.
func (f listFlags) check() (apispec.List, error) {
	return apispec.ListRequest{Index: f.index, Limit: strconv.Itoa(f.limit)}.Check(apispec.FlagLabel)
}

// listRun is the RunE of `answers list` and `evals list`: it checks f, lists what list finds
// in the store and prints it as JSON (--json) or as a table of header and one row a thing;
// with nothing listed it says there are no what (of the index) and hint. Each cell is put on
// one line without control characters (render.OneLine).
func listRun[T any](a *app, f *listFlags, list func(context.Context, blob.Bucket, string, int) ([]T, error),
	what, hint string, header []string, row func(T) []string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		l, err := f.check()
		if err != nil {
			return err
		}
		ctx := cmd.Context()
		return withStore(ctx, a, func(b blob.Bucket) error {
			items, err := list(ctx, b, l.Index, l.Limit)
			if err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(a.stdout, items)
			}
			if len(items) == 0 {
				of := ""
				if l.Index != "" {
					of = " of index " + l.Index
				}
				printf(a.stdout, "no %s%s in %s (%s)\n", what, of, b, hint)
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, strings.Join(header, "\t"))
			for _, it := range items {
				cells := row(it)
				for i, c := range cells { // what the store holds, printed to a terminal: one line, no control character
					cells[i] = render.OneLine(c)
				}
				fmt.Fprintln(tw, strings.Join(cells, "\t"))
			}
			return tw.Flush()
		})
	}
}

// savedLabel is when something was stored, in UTC to the second.
func savedLabel(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.DateTime)
}

func newAnswersCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "answers list|get",
		Short: "List and print the stored answers (every ask, digest topic and summaries evaluation keeps one)",
		Long: `Every Ask run stores its answer under runs/<run-id>/answer.json: each asof ask, each topic of
a digest, each query of a summaries evaluation, each POST /v1/ask. 'answers list' lists them,
newest first; 'answers get RUN_ID' prints one as asof ask printed it (Markdown), as the stored
JSON (--json), or as a self-contained HTML page (--html FILE, --open).`,
		Example: `  asof answers list
  asof answers list --index news --limit 5
  asof answers get asof-ask-news-20260331T080000.000Z
  asof answers get asof-ask-news-20260331T080000.000Z --open`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newAnswersListCmd(a), newAnswersGetCmd(a))
	return cmd
}

func newAnswersListCmd(a *app) *cobra.Command {
	var f listFlags
	cmd := &cobra.Command{
		Use:   "list [--index NAME] [--limit N]",
		Short: "List the stored answers, newest first: run id, index, as-of day, mode, when saved, query",
		Example: `  asof answers list
  asof answers list --index news --limit 50 --json`,
		Args: cobra.NoArgs,
		RunE: listRun(a, &f, catalog.Answers, "answers", "every `asof ask` stores one",
			[]string{"RUN ID", "INDEX", "AS OF", "MODE", "SAVED (UTC)", "QUERY"}, func(s catalog.StoredAnswer) []string {
				query := render.Truncate(s.Query, 60)
				if s.Problem != "" {
					query = s.Problem
				}
				return []string{s.RunID, orDash(s.Index), orDash(s.AsOf), orDash(s.Mode), savedLabel(s.Saved), query}
			}),
	}
	f.register(cmd)
	return cmd
}

func newAnswersGetCmd(a *app) *cobra.Command {
	var out fetchFlags
	cmd := &cobra.Command{
		Use:   "get RUN_ID",
		Short: "Print a stored answer as Markdown (as asof ask prints it), JSON or HTML",
		Example: `  asof answers get asof-ask-news-20260331T080000.000Z
  asof answers get asof-ask-news-20260331T080000.000Z --json
  asof answers get asof-ask-news-20260331T080000.000Z --html answer.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if err := apispec.CheckRunID(id); err != nil {
				return err
			}
			if err := out.check(); err != nil {
				return err
			}
			ctx := cmd.Context()
			return withStore(ctx, a, func(b blob.Bucket) error {
				data, err := catalog.AnswerDoc(ctx, b, id, out.format())
				if errors.Is(err, catalog.ErrNoAnswer) {
					return fmt.Errorf("%w (asof answers list shows them)", err)
				}
				if err != nil {
					return err
				}
				_, err = out.write(a, data, "asof-answer-*.html", "answer "+id)
				return err
			})
		},
	}
	out.register(cmd, "print the stored answer.json instead of Markdown")
	return cmd
}

func newEvalsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "evals list|get",
		Short: "List and print the stored evaluations' results (asof eval, asof eval --summaries)",
		Long: `asof eval keeps its results under evals/<eval-id>/ (summary.json, per_query.parquet, report.html)
and asof eval --summaries under evals/summaries/<eval-id>/ (summary.json, table.md,
per_answer.parquet). 'evals list' lists both kinds, newest first (an unfinished one says so);
'evals get ID' prints one's tables (Markdown: a retrieval evaluation's as asof eval prints
them, a summaries evaluation's table.md), its summary.json (--json), or a retrieval
evaluation's report.html (--html FILE, --open).`,
		Example: `  asof evals list
  asof evals get 0123456789abcdef
  asof evals get 0123456789abcdef --open`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newEvalsListCmd(a), newEvalsGetCmd(a))
	return cmd
}

func newEvalsListCmd(a *app) *cobra.Command {
	var f listFlags
	cmd := &cobra.Command{
		Use:   "list [--index NAME] [--limit N]",
		Short: "List the stored evaluations, newest first: id, kind, index, questions, systems, size, when saved",
		Example: `  asof evals list
  asof evals list --index rtqa --json`,
		Args: cobra.NoArgs,
		RunE: listRun(a, &f, catalog.Evals, "evaluations", "run one with `asof eval`",
			[]string{"ID", "KIND", "INDEX", "QUESTIONS", "SYSTEMS", "SIZE", "SAVED (UTC)", "NOTE"}, func(e catalog.StoredEval) []string {
				return []string{e.ID, e.Kind, orDash(e.Index), strconv.Itoa(e.Questions),
					orDash(render.Truncate(strings.Join(e.Systems, ","), 40)), sizeLabel(e.Bytes), savedLabel(e.Saved), e.Problem}
			}),
	}
	f.register(cmd)
	return cmd
}

func newEvalsGetCmd(a *app) *cobra.Command {
	var out fetchFlags
	cmd := &cobra.Command{
		Use:   "get ID",
		Short: "Print a stored evaluation's tables (Markdown), summary.json (--json) or report.html (--html, --open)",
		Example: `  asof evals get 0123456789abcdef
  asof evals get 0123456789abcdef --json | jq '.systems'
  asof evals get 0123456789abcdef --html report.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if err := apispec.CheckEvalID(id); err != nil {
				return err
			}
			if err := out.check(); err != nil {
				return err
			}
			ctx := cmd.Context()
			return withStore(ctx, a, func(b blob.Bucket) error {
				data, kind, err := catalog.EvalDoc(ctx, b, id, out.format())
				if errors.Is(err, catalog.ErrNoEval) {
					return fmt.Errorf("%w (asof evals list shows them)", err)
				}
				if err != nil {
					return err
				}
				_, err = out.write(a, data, "asof-report-eval-"+id+"-*.html", kind+" evaluation "+id)
				return err
			})
		},
	}
	out.register(cmd, "print the stored summary.json instead of Markdown")
	return cmd
}
