package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/demo"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// demoIndex is the index `asof demo` builds.
const demoIndex = "demo"

func newDemoCmd(a *app) *cobra.Command {
	var (
		out   string
		judge judgeFlags
	)
	cmd := &cobra.Command{
		Use:   "demo [--out DIR]",
		Short: "The whole pipeline on a small generated corpus: index, a digest as of a day, two questions",
		Long: `demo runs asof end to end on the embedded default (Temporal, S3 gateway and a worker in this
process) over a small fictional news corpus it generates, always the same: Nordavia's central bank
raising its key rate twice, a finance minister replaced, a delayed bridge, a drought — in English
and Russian, reposted across channels with small edits, from January to mid-April 2026.

It indexes the corpus (E5 + BM25, monthly shards; a second run reuses them), writes a digest of
four topics as of ` + demo.Anchor + ` (printed here; digest.html in --out), then asks an evolution
question ("then vs now") and a window question. The corpus goes on after ` + demo.Anchor + ` (a rate
cut on 2026-04-09); nothing from after the anchor may appear, and you can check that it does not.

A second file holds documents that change: a post edited the next day (its version 2), a
correction, and two central-bank circulars — standing texts, in force until superseded — the
second replacing the first "with effect from 1 March 2026". The last questions read them as of
their days: the reserve requirement on 2026-02-25 (the old circular, the new one not yet in
force) and on ` + demo.Anchor + ` (the new one; the old superseded), and the edited post.

Without an LLM configured (llm.base_url), judging is the offline heuristic and summaries are
extractive; both are labelled so.`,
		Example: `  asof demo
  asof demo --out /tmp/asof-demo && xdg-open /tmp/asof-demo/digest.html
  asof ask --index demo --as-of 2026-04-15 "central bank key rate"   # after the demo: the April cut appears`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd.Context(), a, out, judge) },
	}
	cmd.Flags().StringVar(&out, "out", "", "folder for the corpus, topics.yaml and the digest files (default <data-dir>/demo)")
	judge.register(cmd.Flags())
	a.embeddedFlags(cmd, false)
	a.embedFlags(cmd)
	return cmd
}

func runDemo(ctx context.Context, a *app, out string, jf judgeFlags) error {
	jo, summarizer, err := jf.options()
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(a.cfg.DataDir, "demo")
	}
	out, err = checkOutDir("--out", out)
	if err != nil {
		return err
	}
	began := time.Now()
	docs := demo.Documents()
	var buf bytes.Buffer
	if err := demo.WriteParquet(&buf, docs); err != nil {
		return err
	}
	corpusFile := filepath.Join(out, "nordavia-news.parquet")
	if err := os.WriteFile(corpusFile, buf.Bytes(), 0o644); err != nil {
		return err
	}
	changes := demo.Changes()
	buf.Reset()
	if err := demo.WriteParquet(&buf, changes); err != nil {
		return err
	}
	changesFile := filepath.Join(out, "nordavia-changes.parquet")
	if err := os.WriteFile(changesFile, buf.Bytes(), 0o644); err != nil {
		return err
	}
	topicsFile := filepath.Join(out, "topics.yaml")
	if err := os.WriteFile(topicsFile, demo.TopicsYAML(), 0o644); err != nil {
		return err
	}
	topics, err := readTopics(topicsFile)
	if err != nil {
		return err
	}
	anchor := demo.AnchorTime()
	printf(a.stderr, "asof demo: %d generated news items (%s..%s, English and Russian) in %s\n", len(docs),
		docs[0].PublishedAt.Format(time.DateOnly), docs[len(docs)-1].PublishedAt.Format(time.DateOnly), corpusFile)
	printf(a.stderr, "asof demo: %d documents that change (an edited post, a correction, two central-bank circulars in force until superseded) in %s\n",
		len(changes), changesFile)

	st, served, stop, err := startServing(ctx, a, demoIndex, a.stderr)
	if err != nil {
		return err
	}
	defer stop()

	// 1. Index.
	printf(a.stderr, "\n== 1/3 index %q: validate, chunk, embed, shard by month ==\n", demoIndex)
	c := a.client(st)
	inputs, err := stageFiles(ctx, a, c, []string{corpusFile, changesFile})
	if err != nil {
		return err
	}
	run, err := c.StartIndex(ctx, workflows.IndexBuildInput{
		Index: demoIndex, Inputs: inputs, Period: "month", Chunk: schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100},
	}, asof.StartIndexOptions{})
	if err != nil {
		return err
	}
	report := planReporter(a, served, false)
	res, err := watchIndex(ctx, a.stderr, c, run, time.Now(), report)
	if err != nil {
		return a.indexFailed(st, demoIndex, "asof demo", run.ID(), err)
	}
	if say := report(res.Model, res.Counts.Languages); say != "" {
		printf(a.stderr, "%s\n", say)
	}
	printIndexResult(a.stderr, demoIndex, res, time.Since(began))

	// 2. Digest as of the anchor.
	printf(a.stderr, "\n== 2/3 digest of %d topics as of %s ==\n\n", len(topics), demo.Anchor)
	dbegin := time.Now()
	drun, err := c.StartDigest(ctx, workflows.DigestInput{Name: "demo", Index: demoIndex, Topics: topics, AsOf: anchor, Judge: jo, Summarizer: summarizer})
	if err != nil {
		return err
	}
	dres, err := drun.Wait(ctx)
	if err != nil {
		return err
	}
	if err := showDigest(ctx, a, c, dres, out, false, time.Since(dbegin)); err != nil {
		return err
	}

	// 3. Questions: then vs now, a hard window, and documents that change read as of their days.
	printf(a.stderr, "\n== 3/3 questions as of %s, and documents that change as of their days ==\n\n", demo.Anchor)
	for _, q := range demo.Queries() {
		in := workflows.AskInput{Index: demoIndex, Query: q.Query, AsOf: anchor, Mode: q.Mode, Judge: jo, Summarizer: summarizer}
		if q.AsOf != "" {
			if in.AsOf, err = corpus.ParseDate(q.AsOf); err != nil {
				return err
			}
		}
		if q.From != "" {
			if in.From, err = corpus.ParseDate(q.From); err != nil {
				return err
			}
		}
		if q.To != "" {
			if in.To, err = corpus.ParseDate(q.To); err != nil {
				return err
			}
		}
		qbegan := time.Now()
		ans, err := c.Ask(ctx, in)
		if err != nil {
			return fmt.Errorf("question %q: %w", q.Query, err)
		}
		printf(a.stdout, "---\n\n**%s**\n\n", q.Title)
		printAnswer(a.stdout, ans, time.Since(qbegan))
		printf(a.stdout, "\n")
	}
	printf(a.stderr, "demo finished in %s. The digest: %s (and digest.md, digest.json)\n", time.Since(began).Round(time.Second),
		filepath.Join(out, "digest.html"))
	printf(a.stderr, "next: asof ask --index %s --as-of 2026-04-15 \"central bank key rate\"  (after the anchor, the April cut appears)\n", demoIndex)
	return nil
}
