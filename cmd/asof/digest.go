package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/suggest"
	"github.com/asofrag/asof/workflows"
)

type digestFlags struct {
	index, topics, asOf, name, timeZone, out string
	concurrency, history                     int
	asJSON                                   bool
	judge                                    judgeFlags
}

func newDigestCmd(a *app) *cobra.Command {
	var f digestFlags
	cmd := &cobra.Command{
		Use:   "digest --index NAME --topics topics.yaml [--as-of YYYY-MM-DD] [--out DIR]",
		Short: "Answer a list of topics as of a day and write one Markdown + HTML digest",
		Long: `digest runs the Digest workflow: one Ask per topic (a few at a time, each judged and
summarized with dated citations), then one digest: per topic what is new, a timeline, the cited
sources with their dates and channels, and how fresh the evidence is. It is written to the store
under digests/<name>/<as-of day>/ (digest.json, digest.md, digest.html), printed as Markdown and,
with --out, copied to a folder. Without --as-of the anchor is the workflow's own current day in
--time-zone, which is what a scheduled digest (asof schedule) uses.

'asof digest list [NAME]' lists the stored digests (every name, or one name's days) and
'asof digest get NAME [DAY]' prints one (the latest day by default) as Markdown, --json or --html.

The topics file:

  topics:
    - name: Key rate
      query: central bank key rate decision
    - name: Урожай
      query: прогноз урожая зерна
      mode: recency        # optional: auto (default), recency, decay, window, evolution, …`,
		Example: `  asof digest --index news --topics topics.yaml --as-of 2026-03-31 --out digest-out
  asof digest --index tg --topics topics.yaml --time-zone Europe/Moscow --json
  asof digest list
  asof digest get morning 2026-03-31`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDigest(cmd.Context(), a, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.index, "index", "", "index to ask (required)")
	fs.StringVar(&f.topics, "topics", "", "topics YAML file (required)")
	fs.StringVar(&f.asOf, "as-of", "", "anchor day YYYY-MM-DD (default: today in --time-zone)")
	fs.StringVar(&f.name, "name", "digest", "digest name: it is stored under digests/<name>/<day>/")
	fs.StringVar(&f.timeZone, "time-zone", "UTC", "IANA time zone that decides which day is today")
	fs.StringVar(&f.out, "out", "", "also write digest.md, digest.html and digest.json to this folder")
	fs.IntVar(&f.concurrency, "concurrency", 2, "topics answered at once")
	fs.IntVar(&f.history, "history", 0, "also show each topic's history: its timeline of this many days as of the digest's day, as asof timeline builds it (0: none)")
	fs.BoolVar(&f.asJSON, "json", false, "print the digest as JSON instead of Markdown")
	f.judge.register(fs)
	_ = cmd.MarkFlagRequired("index")
	_ = cmd.MarkFlagRequired("topics")
	a.embeddedFlags(cmd, false)
	a.embedFlags(cmd)
	cmd.AddCommand(newDigestListCmd(a), newDigestGetCmd(a))
	return cmd
}

// readTopics reads and checks a topics file.
func readTopics(file string) ([]digest.Topic, error) {
	fh, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("--topics: %w", err)
	}
	defer fh.Close()
	topics, err := digest.ParseTopics(fh)
	var uk *suggest.UnknownKeyError
	if errors.As(err, &uk) {
		return nil, fmt.Errorf("%s %w", file, err) // "topics.yaml line 3: unknown key …"
	}
	if err != nil {
		return nil, fmt.Errorf("--topics %s: %w", file, err)
	}
	return topics, nil
}

func (f digestFlags) input() (workflows.DigestInput, error) {
	topics, err := readTopics(f.topics)
	if err != nil {
		return workflows.DigestInput{}, err
	}
	req := apispec.DigestRequest{Name: f.name, Index: f.index, Topics: topics, AsOf: f.asOf, Today: f.asOf == "", TimeZone: f.timeZone, History: f.history}
	checked, err := req.Check(apispec.FlagLabel)
	if err != nil {
		return workflows.DigestInput{}, err
	}
	in := workflows.DigestInputFrom(checked)
	if f.concurrency < 1 {
		return in, fmt.Errorf("--concurrency %d must be at least 1", f.concurrency)
	}
	in.Concurrency = f.concurrency
	if in.Judge, in.Summarizer, err = f.judge.options(); err != nil {
		return in, err
	}
	return in, nil
}

func runDigest(ctx context.Context, a *app, f digestFlags) error {
	in, err := f.input()
	if err != nil {
		return err
	}
	if f.out != "" {
		if f.out, err = checkOutDir("--out", f.out); err != nil {
			return err
		}
	}
	st, _, stop, err := startServing(ctx, a, in.Index, nil)
	if err != nil {
		return err
	}
	defer stop()
	c := a.client(st)
	began := time.Now()
	run, err := c.StartDigest(ctx, in)
	if err != nil {
		return err
	}
	today := ""
	if in.AsOf.IsZero() {
		today = fmt.Sprintf(", as of today in %s (no --as-of)", in.TimeZone)
	}
	label := "digest " + in.Name
	if in.Name == "digest" { // the default name: not "digest digest"
		label = "digest"
	}
	printf(a.stderr, "%s: %d topics on index %s%s (workflow %s)\n", label, len(in.Topics), in.Index, today, run.ID())
	res, err := run.Wait(ctx)
	if err != nil {
		return err
	}
	return showDigest(ctx, a, c, res, f.out, f.asJSON, time.Since(began))
}

// showDigest prints a written digest (Markdown, or JSON) and copies it to out when set.
func showDigest(ctx context.Context, a *app, c *asof.Client, res workflows.DigestResult, out string, asJSON bool, took time.Duration) error {
	key := res.Keys.Markdown
	if asJSON {
		key = res.Keys.JSON
	}
	data, err := blob.ReadAll(ctx, c.Store, key)
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	if _, err := a.stdout.Write(data); err != nil {
		return err
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		for _, k := range []string{res.Keys.Markdown, res.Keys.HTML, res.Keys.JSON} {
			if err := c.Download(ctx, k, filepath.Join(out, path.Base(k))); err != nil {
				return err
			}
		}
	}
	w := a.stderr
	if asJSON {
		w = io.Discard
	}
	printf(w, "\n%d topics (%d failed) as of %s in %s; stored under %s/", res.Topics, res.Failed, res.AsOf.Format(time.DateOnly),
		took.Round(time.Millisecond), path.Dir(res.Keys.Markdown))
	if out != "" {
		printf(w, "; wrote %s", filepath.Join(out, "digest.html"))
	}
	printf(w, "\n")
	return nil
}
