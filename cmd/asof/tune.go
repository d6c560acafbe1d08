package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/schemas"
)

// defaultGrid is the sweep of fusion parameters `asof tune` runs without --grid: the BM25 and
// time weights against a dense weight of 1 (only ratios matter), the RRF constant, the
// time-rank style and the branch depth. 240 variants.
var defaultGrid = []string{"wb=0.5,0.75,1,1.5", "wt=0.3,0.6,1,1.5,2", "k=10,30,60", "tr=competition,days", "top=100,500"}

type tuneFlags struct {
	evalFlags
	system          string
	grid, reference []string
	choose, confirm string
	show            int
	objective       string
}

func newTuneCmd(a *app) *cobra.Command {
	var f tuneFlags
	cmd := &cobra.Command{
		Use:   "tune --index NAME --questions FILE --qrels FILE --out DIR",
		Short: "Sweep fusion parameters through the Eval workflow: choose on one span of questions, confirm on another",
		Long: `tune runs the Eval workflow (batches retried alone, a rerun resumes) with one system per
point of a parameter grid — the system ask serves (--system, default temporal_rrf) with its
options changed by the point — and with the --reference systems as they are served today.

The questions are split by date: the grid is ranked on the --choose span (--objective: by
default the mean of nDCG@10 over the questions that have a grade-2 document and over every
judged question, then MRR), and every variant is also scored on the
--confirm span, which the choice never saw. A choice that holds on --confirm is a candidate for
the defaults; one that does not is overfitting. Judged questions dated 2024 and later are not in
../shared/data: a held-back set measures the defaults separately.

Grid axes (--grid key=v1,v2,…, repeatable): wd, wb, wt (dense, BM25, time weights), k (RRF
constant), top (candidates per branch), tr (time rank: competition or days), win (window days),
fb (time-weight boost for queries that ask for fresh news; auto only), alpha, lambda (decay),
rm3 (words added by pseudo-relevance feedback on the BM25 branch; 0 off), fbdocs (its feedback
documents).

Writes DIR/tune.md (the table), DIR/tune.json (every variant on both spans), and the Eval
workflow's summary.json and per_query.parquet.`,
		Example: `  asof tune --index rtqa --questions ../shared/data/realtimeqa/questions.parquet \
      --qrels ../shared/data/realtimeqa/qrels.parquet --out tune-out
  asof tune --index rtqa --questions q.parquet --qrels r.parquet --system auto --grid fb=1,1.5,2,3 --out tune-auto`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTune(cmd.Context(), a, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.index, "index", "", "index to tune on (required)")
	fs.StringVar(&f.questions, "questions", "", "questions Parquet (question_id, question_date, question) (required)")
	fs.StringVar(&f.qrels, "qrels", "", "judgements Parquet (question_id, doc_id, grade) (required)")
	fs.StringVar(&f.out, "out", "", "folder for tune.md, tune.json and the evaluation's files (required)")
	fs.StringVar(&f.system, "system", "temporal_rrf", "the system whose options the grid changes")
	fs.StringArrayVar(&f.grid, "grid", defaultGrid, "a grid axis key=v1,v2,… (repeatable)")
	fs.StringSliceVar(&f.reference, "reference", []string{"temporal_rrf", "auto", "bm25_time"}, "systems scored as served today, for comparison")
	fs.StringVar(&f.choose, "choose", "2020-01-01..2022-12-31", "questions dated in this span choose the parameters")
	fs.StringVar(&f.confirm, "confirm", "2023-01-01..2023-12-31", "questions dated in this span confirm the choice")
	fs.IntVar(&f.show, "show", 15, "variants in the printed table")
	fs.StringVar(&f.objective, "objective", eval.ObjectiveBoth, "what the choose span maximizes: both (mean of nDCG@10 over grade-2 questions and over all judged ones), g2, or all")
	fs.IntVar(&f.batch, "batch-size", 25, "questions per batch activity")
	fs.IntVar(&f.concurrency, "concurrency", 2, "batches at once")
	for _, n := range []string{"index", "questions", "qrels", "out"} {
		_ = cmd.MarkFlagRequired(n)
	}
	a.embeddedFlags(cmd, false)
	a.embedFlags(cmd)
	return cmd
}

// parseSpan reads "YYYY-MM-DD..YYYY-MM-DD".
func parseSpan(name, s string) (eval.Span, error) {
	from, to, ok := strings.Cut(s, "..")
	if !ok {
		return eval.Span{}, fmt.Errorf("--%s %q: want FROM..TO (e.g. 2020-01-01..2022-12-31)", name, s)
	}
	sp := eval.Span{Name: name}
	var err error
	if sp.From, err = corpus.ParseDate(from); err != nil {
		return sp, fmt.Errorf("--%s: %w", name, err)
	}
	if sp.To, err = corpus.ParseDate(to); err != nil {
		return sp, fmt.Errorf("--%s: %w", name, err)
	}
	if sp.To.Before(sp.From) {
		return sp, fmt.Errorf("--%s %q ends before it starts", name, s)
	}
	return sp, nil
}

func runTune(ctx context.Context, a *app, f tuneFlags) error {
	choose, err := parseSpan("choose", f.choose)
	if err != nil {
		return err
	}
	confirm, err := parseSpan("confirm", f.confirm)
	if err != nil {
		return err
	}
	if !choose.To.Before(confirm.From) && !confirm.To.Before(choose.From) {
		return fmt.Errorf("--choose %s and --confirm %s overlap: the confirming questions must be unseen", f.choose, f.confirm)
	}
	if !slices.Contains(eval.Objectives, f.objective) {
		return fmt.Errorf("--objective %q: one of %s", f.objective, strings.Join(eval.Objectives, ", "))
	}
	var axes []eval.Axis
	for _, g := range f.grid {
		ax, err := eval.ParseAxis(g)
		if err != nil {
			return fmt.Errorf("--grid: %w", err)
		}
		axes = append(axes, ax)
	}
	variants, err := eval.Grid(f.system, axes)
	if err != nil {
		return fmt.Errorf("--grid: %w", err)
	}
	for _, v := range variants {
		if _, err := evalrun.ParseSystem(v); err != nil {
			return fmt.Errorf("--grid: %w", err)
		}
	}
	systems := append(slices.Clone(f.reference), variants...)
	ef := f.evalFlags
	ef.systems = systems
	from, to := choose.From, choose.To
	if confirm.From.Before(from) {
		from = confirm.From
	}
	if confirm.To.After(to) {
		to = confirm.To
	}
	ef.from, ef.to = from.Format(time.DateOnly), to.Format(time.DateOnly)
	printf(a.stderr, "tuning %s: %d variants (%s) and %d reference systems, choosing on %s, confirming on %s\n",
		f.system, len(variants), strings.Join(f.grid, " "), len(f.reference), f.choose, f.confirm)
	began := time.Now()
	res, out, err := evaluate(ctx, a, ef)
	if err != nil {
		return err
	}
	rows, err := parquet.ReadFile[schemas.EvalRow](filepath.Join(out, "per_query.parquet"))
	if err != nil {
		return fmt.Errorf("read the evaluation's rows: %w", err)
	}
	scored := make([]eval.Scored, len(rows))
	for i, r := range rows {
		scored[i] = eval.Scored{System: r.System, AsOf: r.AsOf, PerQuery: eval.PerQuery{ID: r.QuestionID, Valid: r.Valid, HasGrade2: r.HasGrade2,
			NDCG10: r.NDCG10, Recall10: r.Recall10, MRR: r.MRR, Leakage10: r.Leakage10, NDCG10Group: r.NDCG10Group}}
	}
	ranked := eval.Tune(scored, variants, choose, confirm, f.objective)
	refs := eval.Tune(scored, f.reference, choose, confirm, f.objective)
	rep := tuneReport{Index: f.index, System: f.system, Grid: f.grid, Choose: f.choose, Confirm: f.confirm, EvalID: res.Finish.Summary.EvalID,
		Questions: res.Finish.Summary.Questions, Took: time.Since(began).Round(time.Second).String(), Objective: f.objective, Variants: ranked, References: refs}
	if len(ranked) > 0 {
		rep.Delta = pairedDelta(scored, ranked[0].System, f.system, confirm)
	}
	data, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(filepath.Join(out, "tune.json"), data, 0o644); err != nil {
		return err
	}
	md, err := os.Create(filepath.Join(out, "tune.md"))
	if err != nil {
		return err
	}
	writeTune(md, rep, len(ranked))
	if err := md.Close(); err != nil {
		return err
	}
	writeTune(a.stdout, rep, f.show)
	printf(a.stdout, "\nwrote %s and %s\n", filepath.Join(out, "tune.md"), filepath.Join(out, "tune.json"))
	return nil
}

// tuneReport is tune.json.
type tuneReport struct {
	Index      string       `json:"index"`
	System     string       `json:"system"`
	Grid       []string     `json:"grid"`
	Choose     string       `json:"choose"`
	Confirm    string       `json:"confirm"`
	EvalID     string       `json:"eval_id"`
	Questions  int          `json:"questions"`
	Took       string       `json:"took"`
	Objective  string       `json:"objective"`
	Variants   []eval.Tuned `json:"variants"`
	References []eval.Tuned `json:"references"`
	// Delta is the best variant minus the system as served, on the confirm span's grade-2
	// questions (nDCG@10), with its paired-bootstrap 95% interval.
	Delta *tuneDelta `json:"delta,omitempty"`
}

type tuneDelta struct {
	Of, Against        string
	Questions          int
	Mean, Lo95, Hi95   float64
	MetricAndQuestions string
}

// pairedDelta compares two systems' nDCG@10 on the span's grade-2 questions.
func pairedDelta(rows []eval.Scored, of, against string, sp eval.Span) *tuneDelta {
	per := map[string]map[string]float64{of: {}, against: {}}
	for _, r := range rows {
		if m, ok := per[r.System]; ok && r.Valid && r.HasGrade2 && sp.Holds(r.AsOf) {
			m[r.ID] = r.NDCG10
		}
	}
	var ids []string
	for id := range per[of] {
		if _, ok := per[against][id]; ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	a, b := make([]float64, len(ids)), make([]float64, len(ids))
	for i, id := range ids {
		a[i], b[i] = per[of][id], per[against][id]
	}
	mean, lo, hi := eval.PairedDelta(b, a, 0, 1) // the mean of a[i] − b[i]
	return &tuneDelta{Of: of, Against: against, Questions: len(ids), Mean: mean, Lo95: lo, Hi95: hi, MetricAndQuestions: "nDCG@10, " + sp.Name + " questions with a grade-2 document"}
}

func writeTune(w io.Writer, r tuneReport, show int) {
	printf(w, "Sweep of %s on index %s (%d judged questions, eval %s, %s): chosen on %s (objective %s), confirmed on %s.\n\n", r.System, r.Index, r.Questions, r.EvalID, r.Took, r.Choose, r.Objective, r.Confirm)
	printf(w, "| system | choose nDCG@10 (grade-2 q.) | choose nDCG@10 (all) | choose MRR | confirm nDCG@10 (grade-2 q.) | confirm nDCG@10 (all) | confirm MRR | confirm R@10 | confirm nDCG@10 group credit |\n")
	printf(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(t eval.Tuned, mark string) {
		printf(w, "| %s%s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", mark, t.System, t.Choose.NDCG10G2, t.Choose.NDCG10, t.Choose.MRR,
			t.Confirm.NDCG10G2, t.Confirm.NDCG10, t.Confirm.MRR, t.Confirm.Recall10, t.Confirm.NDCG10Group)
	}
	for _, t := range r.References {
		row(t, "(served) ")
	}
	for i, t := range r.Variants[:min(show, len(r.Variants))] {
		row(t, fmt.Sprintf("#%d ", i+1))
	}
	if len(r.Variants) > 0 {
		printf(w, "\nQuestions: choose %d (%d with a grade-2 document), confirm %d (%d).\n", r.Variants[0].Choose.Questions, r.Variants[0].Choose.G2Questions,
			r.Variants[0].Confirm.Questions, r.Variants[0].Confirm.G2Questions)
	}
	if d := r.Delta; d != nil {
		printf(w, "%s − %s on %s (%d): %+.3f (95%% CI %+.3f … %+.3f).\n", d.Of, d.Against, d.MetricAndQuestions, d.Questions, d.Mean, d.Lo95, d.Hi95)
	}
	if len(r.Variants) > 1 {
		worst := slices.MinFunc(r.Variants, func(a, b eval.Tuned) int {
			return cmp.Compare(a.Choose.Objective(r.Objective), b.Choose.Objective(r.Objective))
		})
		printf(w, "Range of the objective over the grid (choose): %.3f … %.3f.\n", worst.Choose.Objective(r.Objective), r.Variants[0].Choose.Objective(r.Objective))
	}
}
