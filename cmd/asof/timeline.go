package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/timeline"
	"github.com/asofrag/asof/workflows"
)

func newTimelineCmd(a *app) *cobra.Command {
	var (
		index, topic, asOf, from, format, out string
		dates, sentences, pool                int
		bm25                                  bool
	)
	cmd := &cobra.Command{
		Use:   `timeline --index NAME --topic "…" --as-of YYYY-MM-DD`,
		Short: "The dated events of a topic as of a day: the days many sources report, with their sentences, cited",
		Long: `timeline lists what happened about a topic, day by day, with what was known on the as-of day:
no document published after the end of that day (UTC), and no day after it, can appear. It runs
the Timeline workflow: the topic is embedded with the index's model, the passages about it are
found over the whole past up to the anchor (or from --from: dense and BM25 fused, no preference
for what is fresh), and each passage votes for the days it reports: the days its sentences
mention ("yesterday", "le 15 février", "lunedì scorso", «в прошлую пятницу», 上周三, "on
Tuesday", read from its publication day, in English, Russian, Chinese, Spanish, French and
Italian) and, at half weight, the day it was published. The days most documents report are
shown, each with the sentence its sources agree with most (--sentences: up to 3) and its
citations.

--dates sets how many days (default: one a week of the span found, 10 to 40). The timeline is
printed as Markdown, as an HTML page with a time axis (--format html), or as JSON
(--format json), and stored under runs/<workflow-id>/timeline.json.`,
		Example: `  asof timeline --index news --topic "Libia" --as-of 2011-09-01
  asof timeline --index news --topic "ключевая ставка" --as-of 2025-09-04 --dates 15 --format html --out rate.html
  asof timeline --index news --topic "Brexit" --as-of 2020-02-01 --from 2019-01-01 --format json | jq '.entries[].day'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			req := apispec.TimelineRequest{Index: index, Topic: topic, AsOf: asOf, From: from, Dates: dates, Sentences: sentences, Pool: pool, BM25: bm25}
			checked, err := req.Check(apispec.FlagLabel)
			if err != nil {
				return err
			}
			in := workflows.TimelineInputFrom(checked)
			if format != "md" && format != "html" && format != "json" {
				return fmt.Errorf("--format %q: use md, html or json", format)
			}
			st, _, stop, err := startServing(ctx, a, index, nil)
			if err != nil {
				return err
			}
			defer stop()
			tl, err := a.client(st).Timeline(ctx, in)
			if err != nil {
				return err
			}
			w := a.stdout
			if out != "" {
				f, err := os.Create(out)
				if err != nil {
					return fmt.Errorf("--out: %w", err)
				}
				defer f.Close()
				w = f
			}
			switch format {
			case "json":
				if err := writeJSON(w, tl); err != nil {
					return err
				}
			case "html":
				page, err := timeline.HTML(tl)
				if err != nil {
					return err
				}
				printf(w, "%s", page)
			default:
				printf(w, "%s", timeline.Markdown(tl))
			}
			if out != "" {
				printf(a.stderr, "asof: timeline of %q as of %s: %d days, written to %s\n", tl.Topic, asOf, len(tl.Entries), out)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&index, "index", "", "the index (required)")
	fs.StringVar(&topic, "topic", "", "what the timeline is about: a name or a few words (required)")
	fs.StringVar(&asOf, "as-of", "", "anchor day YYYY-MM-DD (required): nothing published or dated after it is shown")
	fs.StringVar(&from, "from", "", "the first day to search and show (default: the whole past)")
	fs.IntVar(&dates, "dates", 0, "how many days to show (0: one a week of the span found, 10 to 40)")
	fs.IntVar(&sentences, "sentences", 0, "sentences per day, 1 to 3 (0: 1)")
	fs.IntVar(&pool, "pool", 0, "passages about the topic to read (0: 300)")
	fs.BoolVar(&bm25, "bm25", false, "search the topic's words only (BM25), without embedding it")
	fs.StringVar(&format, "format", "md", "md (Markdown), html (a page with a time axis) or json")
	fs.StringVar(&out, "out", "", "write to this file instead of stdout")
	_ = cmd.MarkFlagRequired("index")
	_ = cmd.MarkFlagRequired("topic")
	_ = cmd.MarkFlagRequired("as-of")
	a.embeddedFlags(cmd, false)
	a.embedFlags(cmd)
	return cmd
}
