package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/spf13/pflag"

	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// summariesFlags are eval's flags of the summaries mode.
type summariesFlags struct {
	on         bool
	study      string
	rubric     string
	summarizer string
}

// addSummariesFlags adds the summaries mode's flags to eval.
func addSummariesFlags(fs *pflag.FlagSet) *summariesFlags {
	var s summariesFlags
	fs.BoolVar(&s.on, "summaries", false, "summaries mode: answer --queries (or judged --questions with --qrels) as \"asof ask\" does (heuristic judge, extractive summary) and measure the summaries like the Telegram study (dates, citations), against the judgements (summary lead, support, noise), beside --study's answers")
	fs.StringVar(&s.study, "study", "", "with --summaries: the study's answers Parquet (tg-finance-ru study-answers.parquet) to compare with")
	fs.StringVar(&s.summarizer, "summarizer", "extractive", "with --summaries: who writes the summaries, extractive or auto (the LLM's brief, checked, with --llm or llm.base_url); the judge is the heuristic either way, so both writers read the same contexts")
	fs.StringVar(&s.rubric, "rubric", "none", "with --summaries: llm (the configured LLM grades asof's summaries, and with --study the study's too, on the study's five 1-5 criteria) or none (\"not judged\")")
	return &s
}

// summariesHelp is appended to eval's long help.
const summariesHelp = `

Summaries mode (--summaries --queries FILE [--study FILE], or --summaries --questions FILE
--qrels FILE [--from DAY --to DAY]): every query is answered as of its anchor_date (a judged
question as of its question_date) by the Ask workflow exactly as ` + "`asof ask`" + ` serves it (default options, heuristic judge,
extractive summary), a few at a time (--concurrency), and each summary is measured like the
Telegram study measured its own (its Table 3: share of summaries with dates, dates per
summary, age of the freshest context document and of the freshest date the summary states,
the gap, share of summary dates within 7 and 30 days), with citation checks (claims citing an
existing block, dates absent from the cited blocks). --study adds the study's three systems
for the same queries, with its judge's rubric; --rubric llm has the configured LLM grade asof's
summaries on the same five criteria (strict JSON, one repair turn), else they are "not judged";
with --study it grades the study's summaries too (rows "SYSTEM (graded by llm:MODEL)" beside
the study judge's), so that one grader scores every system.
With judged questions each summary is also scored against the qrels: summary lead (its first
line cites a grade-2 document), summary support (some line does) and summary noise (the share
of cited documents not judged relevant). Writes DIR/summary.json, DIR/table.md and
DIR/per_answer.parquet (also under evals/summaries/<id>/, asof evals get <id>); a rerun asks only what is missing.
--limit N keeps the first N queries. See docs/summaries.md.`

func runEvalSummaries(ctx context.Context, a *app, f evalFlags, s summariesFlags) error {
	if err := checkIndexName(f.index); err != nil {
		return err
	}
	judged := f.questions != "" || f.qrels != ""
	switch {
	case f.queries != "" && judged:
		return errors.New("--summaries reads --queries (unlabelled) or --questions with --qrels (judged), not both")
	case judged && (f.questions == "" || f.qrels == ""):
		return errors.New("--summaries with judged questions needs both --questions and --qrels")
	case f.queries == "" && !judged:
		return errors.New("--summaries needs --queries (query_id, query, anchor_date) or --questions with --qrels")
	case s.rubric != "none" && s.rubric != workflows.RubricLLM:
		return fmt.Errorf("--rubric %q: use llm or none", s.rubric)
	case s.summarizer != "extractive" && s.summarizer != "auto":
		return fmt.Errorf("--summarizer %q: use extractive or auto", s.summarizer)
	}
	from, to, err := evalSpan(f)
	if err != nil {
		return err
	}
	specs := []string{f.queries}
	if judged {
		specs = []string{f.questions, f.qrels}
	}
	if s.study != "" {
		specs = append(specs, s.study)
	}
	files, err := expandCorpora(specs)
	if err != nil {
		return err
	}
	if len(files) != len(specs) {
		return errors.New("--queries (or --questions and --qrels) and --study each name one Parquet file")
	}
	if judged {
		err = checkParquetColumns[schemas.EvalQuestion]("--questions", files[0])
		if err == nil {
			err = checkParquetColumns[schemas.Qrel]("--qrels", files[1], "days_before")
		}
	} else {
		err = checkParquetColumns[schemas.EvalQuery]("--queries", files[0])
	}
	if err != nil {
		return err
	}
	if s.study != "" {
		if err := checkParquetColumns[schemas.StudyAnswer]("--study", files[len(files)-1]); err != nil {
			return err
		}
	}
	out, err := checkOutDir("--out", f.out)
	if err != nil {
		return err
	}
	st, _, stop, err := startServing(ctx, a, f.index, nil)
	if err != nil {
		return err
	}
	defer stop()
	c := a.client(st)
	if err := c.RequireIndex(ctx, f.index); err != nil {
		return err
	}
	inputs, err := stageFiles(ctx, a, c, files)
	if err != nil {
		return err
	}
	in := workflows.EvalSummariesInput{Index: f.index, Limit: f.limit, Concurrency: f.concurrency}
	if s.summarizer == "auto" {
		in.Summarizer = "auto" // part of the id: the LLM's summaries are another evaluation
	}
	if judged {
		in.QuestionsKey, in.QrelsKey, in.From, in.To = inputs[0].Key, inputs[1].Key, from, to
	} else {
		in.QueriesKey = inputs[0].Key
	}
	if s.study != "" {
		in.StudyKey = inputs[len(inputs)-1].Key
	}
	// Equal inputs on the same index version give the same id: a rerun resumes. The rubric is
	// not part of it, so --rubric llm after a plain run grades the answers already there.
	if s.rubric == workflows.RubricLLM {
		in.Rubric = workflows.RubricLLM
	}
	began := time.Now()
	run, err := c.StartSummariesEval(ctx, in)
	if err != nil {
		return err
	}
	printf(a.stderr, "answering the queries of %s on %s and measuring the summaries (eval %s)\n", files[0], f.index, strings.TrimPrefix(run.ID(), asof.SummariesEvalID("")))
	res, err := run.Wait(ctx)
	if err != nil {
		return err
	}
	for _, k := range []string{res.Finish.SummaryKey, res.Finish.TableKey, res.Finish.PerAnswerKey} {
		if err := c.Download(ctx, k, filepath.Join(out, path.Base(k))); err != nil {
			return err
		}
	}
	if f.asJSON {
		data, _ := json.MarshalIndent(res.Finish.Report, "", "  ")
		printf(a.stdout, "%s\n", data)
		return nil
	}
	printf(a.stdout, "Summaries of %s as of each query's anchor: %d queries (%d asked, %d resumed, %d failed), %s\n\n%s\n",
		f.index, res.Finish.Report.Queries, res.Asked, res.Resumed, res.Failed, time.Since(began).Round(time.Second), res.Finish.Markdown)
	printf(a.stdout, "wrote %s, %s and %s\n", filepath.Join(out, "summary.json"), filepath.Join(out, "table.md"), filepath.Join(out, "per_answer.parquet"))
	return nil
}
