package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/expand"
	"github.com/asofrag/asof/internal/querycap"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

type askFlags struct {
	index, asOf, mode, from, to string
	queryFile                   string
	year, k, windowDays, topN   int
	evolutionK                  int
	clusterGap                  time.Duration
	maxPerSource                int
	sources                     []string
	asJSON, noInt8              bool
	judge                       judgeFlags
	expandQueries               int
	hyde                        bool
}

// judgeFlags are the judge and summarizer flags of ask and digest.
type judgeFlags struct {
	mode, failure, summarizer string
	pool, batch, attempts     int
}

func (j *judgeFlags) register(fs *pflag.FlagSet) {
	def := workflows.DefaultJudgeOptions()
	fs.StringVar(&j.mode, "judge", def.Mode, "judge the candidates: auto (the LLM when llm.base_url is set, else the offline heuristic), llm, heuristic or off")
	fs.StringVar(&j.failure, "judge-failure", def.Failure, "a judge batch that still fails after its retries: keep its candidates unjudged, drop them, or fail the answer")
	fs.IntVar(&j.pool, "judge-pool", def.Pool, "candidates judged (chosen as the context would choose them)")
	fs.IntVar(&j.batch, "judge-batch", def.Batch, "candidates per Judge activity (batches run in parallel on asof-llm)")
	fs.IntVar(&j.attempts, "judge-attempts", def.MaxAttempts, "tries per judge batch, the first included")
	fs.StringVar(&j.summarizer, "summarizer", "auto", "auto (the LLM when llm.base_url is set, else extractive) or extractive")
}

func (j judgeFlags) options() (*workflows.JudgeOptions, string, error) {
	o := workflows.JudgeOptions{Mode: j.mode, Pool: j.pool, Batch: j.batch, Failure: j.failure, MaxAttempts: j.attempts}
	if err := o.Validate(); err != nil {
		return nil, "", fmt.Errorf("--judge…: %w", err)
	}
	if j.summarizer != "auto" && j.summarizer != "extractive" {
		return nil, "", fmt.Errorf("--summarizer %q: use auto or extractive", j.summarizer)
	}
	return &o, j.summarizer, nil
}

func newAskCmd(a *app) *cobra.Command {
	var f askFlags
	def := retrieve.DefaultOptions()
	cmd := &cobra.Command{
		Use:   `ask --index NAME --as-of YYYY-MM-DD "query"`,
		Short: "Answer a question as of a date: hybrid E5 + BM25 retrieval with time, deduplicated, cited",
		Long: `ask answers a question with what was known on the as-of day: no document published after
the end of that day (UTC) can reach the answer. It runs the Ask workflow: read the query (mode and
dates), embed it (E5, "query: "), then retrieve from the index's shards that overlap the allowed
dates (dense and BM25 branches, each masked before its top-N), fold near-duplicates (reposts),
judge every candidate 0/1/2 (batches in parallel on the asof-llm queue: the LLM set in
llm.base_url, or an offline heuristic over query-term coverage and dense similarity; grade 0
leaves the context), build a dated context and summarize it with citations (the LLM, checked
for citations and dates, or the extractive summarizer).

Modes (--mode):
  auto       default: read dates and cues from the query ("in 2015", "last quarter", "since
             2020", "latest", "how has … changed", "в прошлом месяце", "сейчас") and pick below
  recency    RRF of dense, BM25 and a time rank (same-day documents share a rank), 365-day window
  decay      (1-α)·cosine + α/(1+λ·years) over the window
  window     only documents inside --year / --from..--to (or the dates in the query)
  evolution  the 50 most relevant, split into the oldest and the newest: "then" vs "now"
  hybrid     dense + BM25 without time; dense, bm25: one branch alone

The answer is printed as Markdown (or one JSON object with --json) and stored under
runs/<workflow-id>/ in the store (asof answers list|get print it again). The Markdown uses the context's numbers throughout: a result
in the context is marked [n], the summary cites [n], and a Sources list gives each cited [n]'s
date, sources, title and address. --index and --mode are checked, and the index must exist,
before the workflow starts.`,
		Example: `  asof ask --index rtqa --as-of 2023-03-03 "What is the name of Rishi Sunak's new Brexit deal?"
  asof ask --index rtqa --as-of 2023-12-31 "elections in 2015"
  asof ask --index tg --as-of 2025-09-04 --mode evolution "как менялась ключевая ставка"
  asof ask --index tg --as-of 2025-09-04 --json "ключевая ставка" | jq '.results[0]'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.queryFile != "" && len(args) > 0 {
				return errors.New("give the question as an argument or with --query-file, not both")
			}
			if f.queryFile == "" && len(args) == 0 {
				return errors.New(`no question: give it as an argument ("…"), "-" to read it from stdin, or --query-file FILE`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := questionOf(a.stderr, args, f.queryFile, os.Stdin)
			if err != nil {
				return err
			}
			return runAsk(cmd.Context(), a, f, q)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.index, "index", "", "index to ask (required)")
	fs.StringVar(&f.queryFile, "query-file", "", `read the question from this file ("-": stdin), for a long or multi-line question`)
	fs.StringVar(&f.asOf, "as-of", "", "anchor day YYYY-MM-DD, 1000-01-01 to 9999-12-31 (default: today, UTC, said on stderr)")
	fs.StringVar(&f.mode, "mode", "auto", "auto, recency, decay, window, evolution, hybrid, dense or bm25")
	fs.IntVar(&f.year, "year", 0, "window: only documents of this year")
	fs.StringVar(&f.from, "from", "", "only documents published on or after this day")
	fs.StringVar(&f.to, "to", "", "only documents published on or before this day")
	fs.IntVar(&f.k, "k", def.K, "results to return")
	fs.IntVar(&f.evolutionK, "evolution-k", def.EvolutionK, "evolution: results per group (then, now)")
	fs.IntVar(&f.windowDays, "window-days", def.WindowDays, "how far back recency/decay look (0: unbounded)")
	fs.IntVar(&f.topN, "top-n", def.TopNEach, "candidates per branch before fusion")
	fs.IntVar(&f.maxPerSource, "max-per-source", 0, "at most this many results per source (0: no cap)")
	fs.StringSliceVar(&f.sources, "source", nil, "only these sources (repeatable)")
	fs.DurationVar(&f.clusterGap, "cluster-gap", 0, "merge results of one source published at most this far apart (e.g. 30m: a Telegram post split into messages), with a density bonus; 0: off")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object instead of Markdown")
	fs.BoolVar(&f.noInt8, "no-int8", false, "dense search scans the shards' float32 vectors, not their int8 codes (re-scored in float32: the same results with high probability, docs/kernels.md)")
	f.judge.register(fs)
	_ = cmd.MarkFlagRequired("index")
	a.embeddedFlags(cmd, false)
	fs.IntVar(&f.expandQueries, "expand-queries", 0, "with an LLM: also search with this many of its rephrasings of the question (0..5), fused by reciprocal rank; off by default (not measured on a real LLM yet)")
	fs.BoolVar(&f.hyde, "hyde", false, "with an LLM: also search with a hypothetical answer it writes, embedded as a passage (HyDE); never shown or cited")
	a.embedFlags(cmd)
	a.rerankFlags(cmd)
	return cmd
}

func runAsk(ctx context.Context, a *app, f askFlags, query string) error {
	req := apispec.AskRequest{
		Query: query, Index: f.index, AsOf: f.asOf, Today: f.asOf == "", Mode: f.mode, Year: f.year, From: f.from, To: f.to,
		K: &f.k, EvolutionK: &f.evolutionK, WindowDays: &f.windowDays, TopN: &f.topN, MaxPerSource: &f.maxPerSource,
		Sources: f.sources, NoInt8: f.noInt8,
	}
	if f.clusterGap != 0 {
		req.ClusterGap = f.clusterGap.String()
	}
	checked, err := req.Check(apispec.FlagLabel)
	if err != nil {
		return err
	}
	in, err := workflows.AskInputFrom(checked)
	if err != nil {
		return err
	}
	if err := querycap.Check("the query", strings.TrimSpace(query)); err != nil {
		return err
	}
	if f.expandQueries < 0 || f.expandQueries > expand.MaxQueries {
		return fmt.Errorf("--expand-queries %d: 0..%d", f.expandQueries, expand.MaxQueries)
	}
	if f.expandQueries > 0 || f.hyde {
		in.Expand = &workflows.ExpandOptions{Queries: f.expandQueries, HyDE: f.hyde}
	}
	if in.Judge, in.Summarizer, err = f.judge.options(); err != nil {
		return err
	}

	st, _, stop, err := startServing(ctx, a, f.index, nil)
	if err != nil {
		return err
	}
	defer stop()
	began := time.Now()
	ans, err := a.client(st).Ask(ctx, in)
	if err != nil {
		return err
	}
	if in.AsOfToday {
		printf(a.stderr, "asof: as of today, %s (no --as-of)\n", ans.AsOf.UTC().Format(time.DateOnly))
	}
	if ans.Counts.Allowed == 0 {
		if hint := catalog.RangeHint(ctx, st.Bucket, f.index); hint != "" {
			printf(a.stderr, "asof: %s\n", hint)
		}
	}
	if f.asJSON {
		out, _ := json.MarshalIndent(ans, "", "  ")
		printf(a.stdout, "%s\n", out)
		return nil
	}
	printAnswer(a.stdout, ans, time.Since(began))
	return nil
}

// printAnswer prints an answer as Markdown (render.AnswerMarkdown, the form `asof answers get`
// prints a stored one in).
func printAnswer(w io.Writer, ans schemas.Answer, took time.Duration) {
	printf(w, "%s", render.AnswerMarkdown(ans, took))
}

// MaxQuestionBytes bounds a question read from a file or stdin.
const MaxQuestionBytes = 64 << 10

// questionOf is the question: from the file (or "-": stdin) when one is named, or the arguments
// ("-" alone: stdin), its lines joined by spaces; an empty one is an error.
func questionOf(w io.Writer, args []string, file string, stdin io.Reader) (string, error) {
	if file == "" && !(len(args) == 1 && args[0] == "-") {
		return joinQuery(w, args), nil
	}
	var r io.Reader = stdin
	from := "stdin"
	if file != "" && file != "-" {
		fh, err := os.Open(file)
		if err != nil {
			return "", fmt.Errorf("--query-file: %w", err)
		}
		defer fh.Close()
		r, from = fh, file
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxQuestionBytes+1))
	if err != nil {
		return "", fmt.Errorf("read the question from %s: %w", from, err)
	}
	if len(data) > MaxQuestionBytes {
		return "", fmt.Errorf("the question in %s is over %d KB", from, MaxQuestionBytes>>10)
	}
	q := strings.Join(strings.Fields(string(data)), " ")
	if q == "" {
		return "", fmt.Errorf("the question in %s is empty", from)
	}
	return q, nil
}

// joinQuery is the question: one argument as it is, or several (an unquoted query) joined by
// spaces, with a note on w.
func joinQuery(w io.Writer, args []string) string {
	q := strings.Join(args, " ")
	if len(args) > 1 {
		printf(w, "asof: asking %q (%d words joined; quote the query to keep it as typed)\n", q, len(args))
	}
	return q
}
