package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	asof "github.com/asofrag/asof/client"
	"github.com/asofrag/asof/worker"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/chunk"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/lifecycle"
	"github.com/asofrag/asof/internal/modelchoice"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/redact"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

type indexFlags struct {
	index, period, from, to string
	corpora, maps           []string
	telegram, asJSON        bool
	appendRows, allowFuture bool
	replace, yes            bool
	kind                    string
	size, overlap, min, max int
	concurrency, partSize   int
	maxPerRun               int
	heartbeat               time.Duration
}

func newIndexCmd(a *app) *cobra.Command {
	var f indexFlags
	def := chunk.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "index --index NAME --corpus PATH...",
		Short: "Build or update a time-partitioned index (E5 vectors + BM25) from dated Parquet files",
		Long: `index reads dated documents from Parquet files (local paths or globs), validates every row
(bad rows are quarantined with a reason, never dropped), splits them into chunks, embeds them with
E5 on the asof-embed queue, and writes one immutable shard per period (chunks.parquet,
vectors.f32, its int8 codes vectors.i8, bm25.zip) to the store, then publishes a manifest. Shards are named by the hash of
their content, configuration and model, so a rerun only builds what changed, and a rerun on the
same input is a no-op. It ends with a table that accounts for every row read:
read = indexed + quarantined + skipped.

Input columns are the canonical doc_id, published_at, text (required) and title, source, url,
source_weight, topic, lang, kind, effective_at, supersedes, updated_at (optional); --map maps other names
(--telegram for the Telegram layout).

Documents that change: a row whose doc_id is indexed (or read before) with other content and a
later published_at is that document's next version (an identical row is a duplicate). --kind
standing (or a kind column) reads texts as in force until superseded — regulations, circulars,
policies: no look-back window, newer texts in force not preferred; effective_at (or "w.e.f. …"
in the text) says when one applies, supersedes (doc_ids or identifiers) what it replaces, and
asof also finds the same provision restated later and revised notices; the result says what it
found (asof indexes show NAME --lifecycle lists it).
Each file is checked here first (Parquet, with the required columns after --map); nothing is
uploaded or started for a file that fails.

The model: --embed-model (embed.model, ASOF_EMBED_MODEL) when set, else the model the index was
built with (an index keeps its model: a rerun or an --append embeds as the build did), else, for a
new index on ONNX Runtime whose corpus is English (98% or more of at least 50 documents in a sample
of up to 2,000 rows spread over the files and --from/--to), the English e5-small-v2-q, ~1.3x faster than the
multilingual default on English (pulled when it is not here; the default when it cannot be), else
the default for new indexes; the first line says which and why. The result counts the indexed
documents per language (the lang column, else detected), and as soon as the plan is made a model
that does not read 30% or more of them (an English-only model on a Russian or Chinese corpus)
gets a warning naming the multilingual model to use.`,
		Example: `  asof index --index news --corpus ../shared/data/tg-finance-ru/docs.parquet
  asof index --index rtqa --corpus ../shared/data/realtimeqa/docs.parquet --from 2023-01-01 --to 2023-12-31
  asof index --index tg --corpus 'exports/*.parquet' --telegram --period week
  asof index --index tg --corpus exports/2025-10.parquet --telegram --period week --append
  asof index --index sebi --corpus ../shared/data/supersession-dev/docs.parquet --kind standing`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runIndex(cmd.Context(), a, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.index, "index", "", "index name (lower-case letters, digits, '.', '_', '-'); required")
	fs.StringArrayVar(&f.corpora, "corpus", nil, "Parquet file or glob, or an s3:// or file:// URL whose last element may be a glob (repeatable); required")
	fs.StringArrayVar(&f.maps, "map", nil, "column mapping canonical=input, e.g. text=message (repeatable)")
	fs.BoolVar(&f.appendRows, "append", false, "add these files to the live index: its shards stay, rows it already holds (same doc_id) are duplicates, new rows make new shards")
	fs.BoolVar(&f.replace, "replace", false, "publish this build even if the live index holds documents these files do not (they are dropped: it says how many and asks first; asof indexes rollback undoes it); without it such a build is refused")
	fs.BoolVar(&f.yes, "yes", false, "with --replace: drop the documents these files lack without asking")
	fs.StringVar(&f.kind, "kind", "", "how rows without a kind column are read: news (dated news: fresher preferred, the 365-day look-back; the default) or standing (regulations, circulars, policies: in force until superseded, however old; no look-back, no preference for newer texts in force); an --append keeps the index's")
	fs.BoolVar(&f.allowFuture, "allow-future", false, "index rows published after tomorrow (by default they are quarantined as future_date: usually a date typed wrong)")
	fs.BoolVar(&f.telegram, "telegram", false, "use the Telegram layout (message_id, message, date, channel_name, channel_w, topic)")
	fs.StringVar(&f.period, "period", "month", "shard period: day, week, month, quarter or year")
	fs.StringVar(&f.from, "from", "", "keep rows published on or after this day (YYYY-MM-DD); others are counted as skipped")
	fs.StringVar(&f.to, "to", "", "keep rows published on or before this day (YYYY-MM-DD)")
	fs.IntVar(&f.size, "chunk-size", def.Size, "chunk size in characters")
	fs.IntVar(&f.overlap, "chunk-overlap", def.Overlap, "chunk overlap in characters")
	fs.IntVar(&f.min, "chunk-min", def.Min, "smallest chunk; shorter tails join the previous chunk")
	fs.IntVar(&f.max, "max-chunks-per-doc", def.MaxPieces, "cap on chunks per document, about 1,400 characters each (0: none); the rest of a longer document is not indexed and the result counts it")
	fs.IntVar(&f.concurrency, "concurrency", 2, "shards built at once")
	fs.IntVar(&f.maxPerRun, "max-shards-per-run", 200, "shards one workflow run builds before it continues as new (keeps histories short)")
	fs.IntVar(&f.partSize, "embed-part-size", workflows.DefaultEmbedPartSize, "chunks embedded and stored at a time: the most a lost worker costs, and the texts sorted by length together")
	fs.DurationVar(&f.heartbeat, "embed-heartbeat", time.Minute, "silence after which an embedding worker counts as lost (it heartbeats every quarter of this while a part embeds, for up to 10 min a part)")
	_ = fs.MarkHidden("embed-heartbeat")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as JSON")
	a.embeddedFlags(cmd, false)
	a.embedFlags(cmd)
	return cmd
}

func runIndex(ctx context.Context, a *app, f indexFlags) error {
	if err := checkIndexName(f.index); err != nil {
		return err
	}
	if err := shard.ValidUnit(f.period); err != nil {
		return err
	}
	if f.appendRows && f.replace {
		return errors.New("--append keeps the index's documents and --replace drops those these files lack: pass one")
	}
	kind, err := lifecycle.ParseKind(f.kind)
	if err != nil {
		return fmt.Errorf("--kind: %w", err)
	}
	opts := chunk.Options{Size: f.size, Overlap: f.overlap, Min: f.min, MaxPieces: f.max}
	if err := opts.Validate(); err != nil {
		return err
	}
	mapping := corpus.Mapping{}
	if f.telegram {
		for k, v := range corpus.TelegramMapping {
			mapping[k] = v
		}
	}
	extra, err := corpus.ParseMapping(f.maps)
	if err != nil {
		return err
	}
	for k, v := range extra {
		mapping[k] = v
	}
	var from, to time.Time
	if f.from != "" {
		if from, err = parseDay("from", f.from); err != nil {
			return err
		}
	}
	if f.to != "" {
		if to, err = parseDay("to", f.to); err != nil {
			return err
		}
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		return fmt.Errorf("--to %s is before --from %s", f.to, f.from)
	}
	var local, remote []string
	for _, c := range f.corpora {
		if strings.Contains(c, "://") {
			remote = append(remote, c)
		} else {
			local = append(local, c)
		}
	}
	var files []string
	if len(local) > 0 || len(remote) == 0 {
		if files, err = expandCorpora(local); err != nil {
			return err
		}
	}
	if len(remote) > 0 {
		tmp, err := os.MkdirTemp("", "asof-corpus-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		fetched, err := asof.FetchCorpora(ctx, tmp, remote, a.s3Options())
		if err != nil {
			return err
		}
		files = append(files, fetched...)
	}
	rows, err := checkCorpusFiles(files, mapping)
	if err != nil {
		return err
	}

	began := time.Now()
	look := &corpusLook{log: a.stderr, sample: func(ctx context.Context) ([]schemas.Document, error) {
		return sampleCorpus(ctx, files, rows, indexplan.LoaderOptions(mapping, from, to, nil, time.Now(), f.allowFuture), corpusSampleRows)
	}}
	st, served, stop, err := startServingCorpus(ctx, a, f.index, look, a.stderr)
	if err != nil {
		return err
	}
	defer stop()
	report := planReporter(a, served, f.appendRows)
	c := a.client(st)
	if f.replace {
		if err := confirmReplace(ctx, a, c, &f, files, mapping, from, to); err != nil {
			return err
		}
	}
	inputs, err := stageFiles(ctx, a, c, files)
	if err != nil {
		return err
	}
	inputsKey, err := c.StoreInputList(ctx, inputs)
	if err != nil {
		return err
	}
	run, err := c.StartIndex(ctx, workflows.IndexBuildInput{
		Index: f.index, InputsKey: inputsKey, InputCount: len(inputs), Mapping: mapping, From: from, To: to, Period: f.period,
		Chunk:       schemas.ChunkConfig{Size: f.size, Overlap: f.overlap, Min: f.min, MaxChunksPerDoc: f.max},
		Concurrency: f.concurrency, EmbedPartSize: f.partSize, EmbedHeartbeat: f.heartbeat, MaxShardsPerRun: f.maxPerRun, Append: f.appendRows,
		AllowFuture: f.allowFuture, Replace: f.replace, Kind: kind,
	}, asof.StartIndexOptions{OnRunning: func(id string, same bool) {
		if same {
			printf(a.stderr, "a build of index %s with these inputs is already running (workflow %s): following it\n", f.index, id)
		} else {
			printf(a.stderr, "another build of index %s is running (workflow %s): this one starts when it ends\n", f.index, id)
		}
	}})
	if err != nil {
		return err
	}
	res, err := watchIndex(ctx, a.stderr, c, run, began, report)
	if err != nil {
		return a.indexFailed(st, f.index, "the same command", run.ID(), err)
	}
	if say := report(res.Model, res.Counts.Languages); say != "" { // a build too short for the progress query to see its plan
		printf(a.stderr, "%s\n", say)
	}
	if f.asJSON {
		out, _ := json.MarshalIndent(res, "", "  ")
		printf(a.stdout, "%s\n", out)
		return nil
	}
	printIndexResult(a.stdout, f.index, res, time.Since(began))
	return nil
}

// printLifecycle says how the index reads documents that change: its kind, and what its
// lifecycle table holds (standing texts, versions, supersession links by basis, warnings).
func printLifecycle(w io.Writer, kind string, ref *schemas.LifecycleRef) {
	if kind == schemas.KindStanding {
		printf(w, "kind: standing (texts in force until superseded: no look-back window, newer texts in force not preferred)\n")
	}
	if ref == nil {
		return
	}
	st := ref.Stats
	var parts []string
	n := func(k int, one, many string) {
		if k == 1 {
			parts = append(parts, "1 "+one)
		} else if k > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", k, many))
		}
	}
	n(st.Standing, "standing text", "standing texts")
	n(st.Versions, "version replaced by a later one", "versions replaced by a later one")
	n(st.Superseded, "text superseded", "texts superseded")
	n(st.Restated, "text ranked after an inferred restatement", "texts ranked after an inferred restatement")
	printf(w, "lifecycle: %s\n", strings.Join(parts, ", "))
	if len(st.ByBasis) > 0 {
		printf(w, "  supersession links by basis: %s\n", countsLine(st.ByBasis, []string{lifecycle.BasisColumn, lifecycle.BasisStated, lifecycle.BasisProvision, lifecycle.BasisRevised, lifecycle.BasisRestated}))
	}
	if len(st.Warnings) > 0 {
		printf(w, "  warnings: %s (asof indexes show NAME --lifecycle lists them)\n", countsLine(st.Warnings, nil))
	}
}

// countsLine renders counts as "a 3, b 1", in order's order first, then the other keys sorted.
func countsLine(counts map[string]int, order []string) string {
	var keys []string
	for _, k := range order {
		if counts[k] > 0 {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range counts {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	var parts []string
	for _, k := range append(keys, rest...) {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

// expandCorpora resolves paths and globs to absolute file paths.
func expandCorpora(specs []string) ([]string, error) {
	if len(specs) == 0 {
		return nil, errors.New("--corpus: name at least one Parquet file or glob")
	}
	var files []string
	for _, s := range specs {
		matches, err := filepath.Glob(s)
		if err != nil {
			return nil, fmt.Errorf("--corpus %q: %w", s, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("--corpus %q: no such file", s)
		}
		sort.Strings(matches)
		for _, m := range matches {
			abs, err := filepath.Abs(m)
			if err != nil {
				return nil, err
			}
			if st, err := os.Stat(abs); err != nil || st.IsDir() {
				return nil, fmt.Errorf("--corpus %q: %s is not a file", s, m)
			}
			files = append(files, abs)
		}
	}
	return files, nil
}

// stageFiles puts files in the store (client.Stage), saying which it uploaded.
func stageFiles(ctx context.Context, a *app, c *asof.Client, files []string) ([]workflows.InputFile, error) {
	staged, err := c.Stage(ctx, files)
	if err != nil {
		return nil, err
	}
	for _, s := range staged {
		if s.Uploaded {
			printf(a.stderr, "uploaded %s to %s\n", s.Path, s.Key)
		}
	}
	return asof.InputFiles(staged), nil
}

// planReporter returns what a build says once its plan is known (from the progress query,
// or from the result), as lines to print: on an external cluster, the model its workers embed
// with; and a warning when that model does not read the languages of a large share of the
// documents (modelchoice.Warning). It speaks once; later calls return "". appending: an
// --append, which adds rows to an index that keeps its model (when the index exists).
func planReporter(a *app, served servedModel, appending bool) func(model schemas.ModelRef, langs map[string]int64) string {
	done := false
	return func(model schemas.ModelRef, langs map[string]int64) string {
		if done || model.ID == "" {
			return ""
		}
		done = true
		var lines []string
		known := served.Languages
		if !served.InProcess() {
			known = worker.ModelLanguages(a.cfg, model.ID)
			lines = append(lines, modelchoice.Choice{Model: model.ID, Reason: modelchoice.Workers}.Line(known))
		}
		fit := modelchoice.Check(langs, models.Spec{ID: model.ID, Languages: known})
		if w := modelchoice.Warning(fit, model.ID, worker.MultilingualModel(a.cfg), appending && served.Live != nil); w != "" {
			lines = append(lines, w)
		}
		return strings.Join(lines, "\n")
	}
}

// watchIndex shows the build's progress (client.WatchIndex) until it ends: one line redrawn
// on a terminal, else a line on each change of stage and every 30 s. onPlan, when set, is
// called with the model and the documents' languages while the progress reports the plan, and
// what it returns is printed.
func watchIndex(ctx context.Context, log io.Writer, c *asof.Client, run *asof.IndexRun, began time.Time,
	onPlan func(model schemas.ModelRef, langs map[string]int64) string) (workflows.IndexBuildResult, error) {
	tty := isTerminal(log)
	last := ""
	lastPrint := time.Now()
	var meter progressMeter
	res, err := c.WatchIndex(ctx, run, asof.WatchOptions{OnProgress: func(p asof.IndexProgress) {
		if onPlan != nil && p.Model.ID != "" {
			if say := onPlan(p.Model, p.Languages); say != "" {
				if tty && last != "" {
					fmt.Fprintln(log) // off the progress line
				}
				fmt.Fprintln(log, say)
			}
		}
		line := meter.line(p.Progress, p.Embedded, time.Now(), time.Since(began))
		if line == last && !tty {
			return
		}
		if tty {
			fmt.Fprintf(log, "\r%-100s", line)
		} else if stage(line) != stage(last) || time.Since(lastPrint) >= 30*time.Second {
			fmt.Fprintln(log, line) // not a terminal: a line on each change of stage, then every 30 s
			lastPrint = time.Now()
		}
		last = line
	}})
	if tty && last != "" {
		fmt.Fprintln(log)
	}
	return res, err
}

// indexFailed is the error of a build of index that waitIndex returned err for: a failed
// workflow explained; a stop (Ctrl-C) said in plain words on stderr (what happened to the build
// and what to do: rerun names the command that resumes or follows it), then returned as the
// bare cancellation, which ends the command with exit code 130 and no further line.
func (a *app) indexFailed(st *infra.Stack, index, rerun, workflowID string, err error) error {
	var sw *asof.StoppedWatching
	if !errors.As(err, &sw) {
		return err
	}
	at := ""
	if p := sw.Last; p.ShardsTotal > 0 {
		at = fmt.Sprintf(" at %d of %d shards", p.ShardsDone, p.ShardsTotal)
	}
	if a.runsWorker(st) {
		printf(a.stderr, "\nasof: stopped%s. The build of index %s (workflow %s) is paused, not lost: this data dir's Temporal server keeps it, with the shards and embeddings it stored. Run %s again to resume it from there.\n",
			at, index, workflowID, rerun)
	} else {
		by := "the workers of " + redact.URL(st.Config.Temporal.Address)
		if a.stackBy != "" {
			by = "the worker of the running " + a.stackBy
		}
		printf(a.stderr, "\nasof: stopped following the build%s. It goes on in %s (workflow %s): run %s again to follow it, or asof indexes to see the index once it is published.\n",
			at, by, workflowID, rerun)
	}
	return sw.Cause
}

func stage(line string) string { s, _, _ := strings.Cut(line, " "); return s }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// printIndexResult is the reconciliation table.
func printIndexResult(w io.Writer, index string, r workflows.IndexBuildResult, took time.Duration) {
	if r.Unchanged {
		printf(w, "Index %s is unchanged: %s (seq %d) already lists these shards.\n", index, r.ManifestKey, r.Seq)
	} else {
		printf(w, "Index %s published: %s (seq %d)\n", index, r.ManifestKey, r.Seq)
	}
	printf(w, "\n%-32s %9s %9s %9s %12s\n", "file", "read", "indexed", "skipped", "quarantined")
	for _, f := range r.Files {
		var q int64
		for _, v := range f.Stats.Quarantined {
			q += v
		}
		printf(w, "%-32s %9d %9d %9d %12d\n", f.Name, f.Stats.Read, f.Stats.Documents, f.Stats.Skipped, q)
	}
	c := r.Counts
	printf(w, "%-32s %9d %9d %9d %12d\n", "total", c.Read, c.Indexed, c.Skipped, c.QuarantinedTotal())
	if len(c.Languages) > 0 {
		parts := []string{}
		for _, lc := range modelchoice.Sorted(c.Languages) {
			parts = append(parts, fmt.Sprintf("%s %d", modelchoice.Name(lc.Lang), lc.Docs))
		}
		printf(w, "languages of the documents indexed: %s\n", strings.Join(parts, ", "))
	}
	if c.Deleted > 0 {
		printf(w, "deleted: %d rows of documents taken down (asof docs list), not indexed\n", c.Deleted)
	}
	if !c.Reconciles() {
		printf(w, "WARNING: counts do not reconcile (read %d ≠ indexed + skipped + quarantined + deleted)\n", c.Read)
	}
	if len(c.Quarantined) > 0 {
		var reasons []string
		for k := range c.Quarantined {
			reasons = append(reasons, k)
		}
		sort.Strings(reasons)
		parts := make([]string, len(reasons))
		for i, k := range reasons {
			parts[i] = fmt.Sprintf("%s %d", k, c.Quarantined[k])
		}
		printf(w, "quarantined by reason: %s (rows in %s: asof quarantine show %s)\n", strings.Join(parts, ", "), r.QuarantineKey, r.QuarantineKey)
	}
	printLifecycle(w, r.Kind, r.Lifecycle)
	printf(w, "shards: %d built, %d reused; %d chunks", r.ShardsBuilt, r.ShardsReused, c.Chunks)
	if r.PartsResumed > 0 {
		printf(w, "; %d embedding parts resumed after a lost worker or retry", r.PartsResumed)
	}
	printf(w, "; %s\n", took.Round(100*time.Millisecond))
	if r.Truncated > 0 {
		printf(w, "truncated: %d documents cut at %d chunks each, their rest not indexed (raise --max-chunks-per-doc, or 0 for no cap)\n", r.Truncated, r.MaxChunksPerDoc)
	}
}

// confirmReplace says how many documents a --replace build of files drops from the live index
// and, unless --yes, asks a person on a terminal (elsewhere it needs --yes); nothing dropped,
// nothing asked.
func confirmReplace(ctx context.Context, a *app, c *asof.Client, f *indexFlags, files []string, mapping map[string]string, from, to time.Time) error {
	d, err := c.DropsOfReplace(ctx, f.index, files, mapping, from, to)
	if err != nil {
		return fmt.Errorf("--replace: what it drops: %w", err)
	}
	if d.Dropped == 0 {
		return nil
	}
	what := fmt.Sprintf("--replace drops %d of the %d documents index %s holds (%s%s); asof indexes rollback %s undoes it",
		d.Dropped, d.Live, f.index, strings.Join(d.Sample, ", "), map[bool]string{true: ", …", false: ""}[d.Dropped > len(d.Sample)], f.index)
	if f.yes {
		printf(a.stderr, "%s\n", what)
		return nil
	}
	if !stdinIsTerminal() {
		return fmt.Errorf("%s: add --yes to confirm", what)
	}
	printf(a.stderr, "%s. Go on? [y/N] ", what)
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
		return fmt.Errorf("index %s kept as it was", f.index)
	}
	return nil
}
