package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

type evalFlags struct {
	index, questions, qrels, out, from, to string
	queries                                string
	systems                                []string
	limit, batch, concurrency              int
	seed                                   uint64
	asJSON                                 bool
}

func newEvalCmd(a *app) *cobra.Command {
	var f evalFlags
	var sf *summariesFlags
	var tf *timelinesFlags
	cmd := &cobra.Command{
		Use:   "eval --index NAME --questions FILE --qrels FILE --out DIR",
		Short: "Evaluate retrieval systems as of each question's date against graded judgements",
		Long: `eval runs the Eval workflow: every judged question is a query as of its question_date,
answered by each system (a document's rank is its best chunk's), and scored against the qrels:
nDCG@10 (ideal ranking from all judged documents), Recall@10/50, MRR (grade 2), P@10,
leakage@10 (share of the top 10 published after the anchor; must be 0 with a mask), the
freshest result's age, and latency. Batches of questions run as parallel activities, a failed
batch retries alone, and a rerun with the same inputs resumes from the finished batches.

Systems (--systems, each optionally +dedup and/or +judge):
  bm25, dense, hybrid (RRF without time), temporal_rrf (recency mode), decay, auto (the query
  parser picks the mode), bm25_nomask, hybrid_nomask (no as-of mask: what leakage costs);
  +dedup folds near-duplicates first, +judge drops what the offline judge grades 0

The index must exist, and the files must be Parquet with the columns the flags below name,
before anything is uploaded or started.

Writes DIR/summary.json, DIR/per_query.parquet and DIR/report.html (a self-contained page with
the metric table and charts), also kept under evals/<id>/ in the store (asof evals list|get).`,
		Example: `  asof eval --index rtqa --questions ../shared/data/realtimeqa/questions.parquet \
      --qrels ../shared/data/realtimeqa/qrels.parquet --from 2022-03-18 --to 2023-03-03 --out eval-out
  asof eval --index rtqa --questions q.parquet --qrels r.parquet --systems bm25,temporal_rrf,temporal_rrf+dedup --limit 100 --out e
  asof eval --index 'tls-{lang}' --timelines ../shared/data/cl-tls-dev/timelines.parquet \
      --topics ../shared/data/cl-tls-dev/topics.parquet --out tls-out`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tf.reference != "" {
				if sf.on {
					return fmt.Errorf("--timelines or --summaries, not both")
				}
				return runEvalTimelines(cmd.Context(), a, f, *tf)
			}
			if sf.on {
				return runEvalSummaries(cmd.Context(), a, f, *sf)
			}
			return runEval(cmd.Context(), a, f)
		},
	}
	cmd.Long += summariesHelp + timelinesHelp
	fs := cmd.Flags()
	sf = addSummariesFlags(fs)
	tf = addTimelinesFlags(fs)
	fs.StringVar(&f.index, "index", "", "index to evaluate (required)")
	fs.StringVar(&f.questions, "questions", "", "questions Parquet (question_id, question_date, question)")
	fs.StringVar(&f.qrels, "qrels", "", "judgements Parquet (question_id, doc_id, grade)")
	fs.StringVar(&f.queries, "queries", "", "instead of --questions/--qrels: unlabelled queries Parquet (query_id, query, anchor_date); measures context freshness only")
	fs.StringVar(&f.out, "out", "", "folder for summary.json, per_query.parquet and report.html (required)")
	fs.StringSliceVar(&f.systems, "systems", evalrun.DefaultSystems, "systems to compare")
	fs.IntVar(&f.limit, "limit", 0, "evaluate at most this many judged questions, sampled with --sample-seed (0: all)")
	fs.Uint64Var(&f.seed, "sample-seed", 1, "seed of the --limit sample")
	fs.StringVar(&f.from, "from", "", "only questions dated on or after this day (e.g. the index's first day)")
	fs.StringVar(&f.to, "to", "", "only questions dated on or before this day")
	fs.IntVar(&f.batch, "batch-size", 25, "questions per batch activity")
	fs.IntVar(&f.concurrency, "concurrency", 2, "batches at once")
	fs.BoolVar(&f.asJSON, "json", false, "print summary.json instead of the table")
	for _, n := range []string{"index", "out"} {
		_ = cmd.MarkFlagRequired(n)
	}
	a.embeddedFlags(cmd, false)
	a.embedFlags(cmd)
	return cmd
}

func runEval(ctx context.Context, a *app, f evalFlags) error {
	began := time.Now()
	res, out, err := evaluate(ctx, a, f)
	if err != nil {
		return err
	}
	if f.asJSON {
		data, _ := json.MarshalIndent(res.Finish.Summary, "", "  ")
		printf(a.stdout, "%s\n", data)
		return nil
	}
	printEval(a.stdout, res, out, time.Since(began))
	return nil
}

// evalSpan reads --from and --to (empty: unbounded).
func evalSpan(f evalFlags) (from, to time.Time, err error) {
	if f.from != "" {
		if from, err = parseDay("from", f.from); err != nil {
			return from, to, err
		}
	}
	if f.to != "" {
		if to, err = parseDay("to", f.to); err != nil {
			return from, to, err
		}
	}
	return from, to, nil
}

// evaluate checks the inputs, runs the Eval workflow (resuming an equal earlier run) and copies
// its files to f.out, which it returns as an absolute path.
func evaluate(ctx context.Context, a *app, f evalFlags) (workflows.EvalResult, string, error) {
	var none workflows.EvalResult
	if err := checkIndexName(f.index); err != nil {
		return none, "", err
	}
	for _, s := range f.systems {
		if _, err := evalrun.ParseSystem(s); err != nil {
			return none, "", fmt.Errorf("--systems: %w", err)
		}
	}
	from, to, err := evalSpan(f)
	if err != nil {
		return none, "", err
	}
	specs := []string{f.questions, f.qrels}
	switch {
	case f.queries != "" && (f.questions != "" || f.qrels != ""):
		return none, "", errors.New("--queries (unlabelled) or --questions with --qrels (judged), not both")
	case f.queries != "":
		specs = []string{f.queries}
	case f.questions == "" || f.qrels == "":
		return none, "", errors.New("name --questions and --qrels (judged questions), or --queries (unlabelled queries with anchor dates)")
	}
	files, err := expandCorpora(specs)
	if err != nil {
		return none, "", err
	}
	if f.queries != "" {
		err = checkParquetColumns[schemas.EvalQuery]("--queries", files[0])
	} else if err = checkParquetColumns[schemas.EvalQuestion]("--questions", files[0]); err == nil {
		err = checkParquetColumns[schemas.Qrel]("--qrels", files[1], "days_before") // days_before: not read
	}
	if err != nil {
		return none, "", err
	}
	out, err := checkOutDir("--out", f.out)
	if err != nil {
		return none, "", err
	}
	st, _, stop, err := startServing(ctx, a, f.index, nil)
	if err != nil {
		return none, "", err
	}
	defer stop()
	c := a.client(st)
	if err := c.RequireIndex(ctx, f.index); err != nil {
		return none, "", err
	}
	inputs, err := stageFiles(ctx, a, c, files)
	if err != nil {
		return none, "", err
	}
	in := workflows.EvalInput{Index: f.index, QuestionsKey: inputs[0].Key, Systems: f.systems, Unlabelled: f.queries != "",
		Limit: f.limit, Seed: f.seed, From: from, To: to, BatchSize: f.batch, Concurrency: f.concurrency}
	if !in.Unlabelled {
		in.QrelsKey = inputs[1].Key
	}
	run, err := c.StartEval(ctx, in)
	if err != nil {
		return none, "", err
	}
	names := strings.Join(f.systems, ", ")
	if len(f.systems) > 12 {
		names = fmt.Sprintf("%d systems (%s, …)", len(f.systems), strings.Join(f.systems[:8], ", "))
	}
	printf(a.stderr, "evaluating %s with %s (eval %s)\n", f.index, names, strings.TrimPrefix(run.ID(), asof.EvalID("")))
	res, err := run.Wait(ctx)
	if err != nil {
		return none, "", err
	}
	for _, k := range []string{res.Finish.SummaryKey, res.Finish.PerQueryKey, res.Finish.ReportKey} {
		if err := c.Download(ctx, k, filepath.Join(out, path.Base(k))); err != nil {
			return none, "", err
		}
	}
	return res, out, nil
}

func printEval(w io.Writer, res workflows.EvalResult, out string, took time.Duration) {
	s := res.Finish.Summary
	kind := "judged questions"
	if s.Unlabelled {
		kind = "unlabelled queries"
	}
	printf(w, "Evaluation of %s: %d %s in %d batches (%d resumed), %s\n\n", s.Index, s.Questions, kind, res.Batches, res.Resumed, took.Round(time.Second))
	printf(w, "%s", evalrun.Tables(s.Summary, s.Order, s.Unlabelled))
	printf(w, "\nwrote %s, %s and %s\n", filepath.Join(out, "summary.json"), filepath.Join(out, "per_query.parquet"), filepath.Join(out, "report.html"))
}
