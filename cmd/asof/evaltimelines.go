package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/workflows"
)

// timelinesFlags are eval's timeline mode (--timelines).
type timelinesFlags struct {
	reference, topics, asOf string
	dates                   int
}

func addTimelinesFlags(fs *pflag.FlagSet) *timelinesFlags {
	var t timelinesFlags
	fs.StringVar(&t.reference, "timelines", "", "timeline mode: the reference timelines Parquet (lang, topic, date, text: CL-TLS's timelines.parquet); needs --topics")
	fs.StringVar(&t.topics, "topics", "", "with --timelines: the topics Parquet (lang, topic, query; last_article optional: the anchor)")
	fs.IntVar(&t.dates, "dates", 0, "with --timelines: days per timeline (0: as many as the reference has, the benchmark's protocol)")
	fs.StringVar(&t.asOf, "as-of", "", "with --timelines: the anchor of every timeline (default: the topic's last_article, else its last reference day)")
	return &t
}

// timelinesHelp is appended to eval's long help.
const timelinesHelp = `

Timeline mode (--timelines FILE --topics FILE --index NAME --out DIR): every topic's timeline
is built by the Timeline workflow exactly as ` + "`asof timeline`" + ` builds it, as of the topic's
last_article day (or --as-of), and scored against the reference as CL-TLS scores it: date
precision, recall and F1 on the exact day and within a day, and alignment ROUGE-1 (and its
scorer, score_timeline.py, gives the same figures on DIR/timelines.jsonl). --index may hold
{lang}: tls-{lang} evaluates each language's topics on its own index. Writes DIR/timelines.jsonl
(the system's timelines, one day a line) and DIR/timelines-summary.json (per topic and macro).`

// timelineRow is one day of a system timeline as CL-TLS's scorer reads it.
type timelineRow struct {
	Lang  string `json:"lang"`
	Topic string `json:"topic"`
	Date  string `json:"date"`
	Text  string `json:"text"`
}

// timelineTopicScore is a topic's figures in timelines-summary.json.
type timelineTopicScore struct {
	Lang      string             `json:"lang"`
	Topic     string             `json:"topic"`
	Index     string             `json:"index"`
	AsOf      string             `json:"as_of"`
	Reference int                `json:"reference_dates"`
	Score     eval.TimelineScore `json:"score"`
	// Leaked counts the days and citations after the anchor (always 0: the as-of invariant).
	Leaked int    `json:"leaked"`
	RunID  string `json:"run_id"`
}

func runEvalTimelines(ctx context.Context, a *app, f evalFlags, tf timelinesFlags) error {
	if tf.topics == "" {
		return fmt.Errorf("--timelines needs --topics (lang, topic, query)")
	}
	if f.questions != "" || f.qrels != "" || f.queries != "" {
		return fmt.Errorf("--timelines evaluates timelines: leave out --questions, --qrels and --queries")
	}
	if tf.dates < 0 {
		return fmt.Errorf("--dates %d must not be negative", tf.dates)
	}
	refs, err := eval.ReadTimelines(tf.reference)
	if err != nil {
		return fmt.Errorf("--timelines: %w", err)
	}
	topics, err := eval.ReadTimelineTopics(tf.topics)
	if err != nil {
		return fmt.Errorf("--topics: %w", err)
	}
	var anchor time.Time
	if tf.asOf != "" {
		if anchor, err = parseDay("as-of", tf.asOf); err != nil {
			return err
		}
	}
	indexOf := func(lang string) string { return strings.ReplaceAll(f.index, "{lang}", lang) }
	for _, t := range topics {
		if err := checkIndexName(indexOf(t.Lang)); err != nil {
			return err
		}
		if _, ok := refs[t.Key()]; !ok {
			return fmt.Errorf("--topics: %s-%s has no reference timeline in %s", t.Lang, t.Topic, tf.reference)
		}
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	st, _, stop, err := startServing(ctx, a, indexOf(topics[0].Lang), nil)
	if err != nil {
		return err
	}
	defer stop()
	c := a.client(st)
	var lines bytes.Buffer
	var rows []timelineTopicScore
	var scores []eval.TimelineScore
	total := 0
	for i, t := range topics {
		ref := refs[t.Key()]
		asOf := anchor
		if asOf.IsZero() {
			asOf = t.LastArticle
		}
		if asOf.IsZero() {
			for d := range ref {
				if d.After(asOf) {
					asOf = d
				}
			}
		}
		n := tf.dates
		if n == 0 {
			n = len(ref)
		}
		printf(a.stderr, "asof: timeline %d/%d: %s-%s (%q on %s as of %s, %d dates)\n", i+1, len(topics), t.Lang, t.Topic, t.Query, indexOf(t.Lang), asofday.Start(asOf).Format(time.DateOnly), n)
		tl, err := c.Timeline(ctx, workflows.TimelineInput{Index: indexOf(t.Lang), Topic: t.Query, AsOf: asofday.Start(asOf), Dates: n})
		if err != nil {
			return fmt.Errorf("timeline %s-%s: %w", t.Lang, t.Topic, err)
		}
		sys := map[time.Time]string{}
		leaked := 0
		for _, e := range tl.Entries {
			if !asofday.Allows(tl.AsOf, e.Day) {
				leaked++
			}
			for _, c := range e.Citations {
				if !asofday.Allows(tl.AsOf, c.PublishedAt) {
					leaked++
				}
			}
			sys[e.Day] = e.Text
			b, _ := json.Marshal(timelineRow{Lang: t.Lang, Topic: t.Topic, Date: e.Day.Format(time.DateOnly), Text: e.Text})
			lines.Write(append(b, '\n'))
		}
		s := eval.ScoreTimeline(sys, ref)
		scores = append(scores, s)
		rows = append(rows, timelineTopicScore{Lang: t.Lang, Topic: t.Topic, Index: indexOf(t.Lang), AsOf: tl.AsOf.Format(time.DateOnly), Reference: len(ref), Score: s, Leaked: leaked, RunID: tl.RunID})
		total += leaked
	}
	if err := os.WriteFile(filepath.Join(f.out, "timelines.jsonl"), lines.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	langs := map[string][]eval.TimelineScore{}
	for _, r := range rows {
		langs[r.Lang] = append(langs[r.Lang], r.Score)
	}
	summary := struct {
		Topics  []timelineTopicScore          `json:"topics"`
		Macro   eval.TimelineMacro            `json:"macro"`
		Leaked  int                           `json:"leaked"`
		PerLang map[string]eval.TimelineMacro `json:"per_lang"`
	}{Topics: rows, Macro: eval.MacroTimelines(scores), Leaked: total, PerLang: map[string]eval.TimelineMacro{}}
	for l, ss := range langs {
		summary.PerLang[l] = eval.MacroTimelines(ss)
	}
	data, _ := json.MarshalIndent(summary, "", "  ")
	if err := os.WriteFile(filepath.Join(f.out, "timelines-summary.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if f.asJSON {
		printf(a.stdout, "%s\n", data)
		return nil
	}
	printf(a.stdout, "| timeline | dates (sys/ref) | date F1 | date R | ±1 day F1 | ±1 day R | align ROUGE-1 F |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		s := r.Score
		printf(a.stdout, "| %s-%s | %d/%d | %.3f | %.3f | %.3f | %.3f | %.3f |\n", r.Lang, r.Topic, s.System, s.Reference, s.DateF1, s.DateR, s.Date1F1, s.Date1R, s.AlignF1)
	}
	ls := make([]string, 0, len(langs))
	for l := range langs {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	for _, l := range ls {
		m := summary.PerLang[l]
		printf(a.stdout, "| macro %s (%d) | | %.3f | %.3f | %.3f | %.3f | %.3f |\n", l, m.N, m.DateF1, m.DateR, m.Date1F1, m.Date1R, m.AlignF1)
	}
	m := summary.Macro
	printf(a.stdout, "| **macro** (%d) | | **%.3f** | %.3f | **%.3f** | %.3f | %.3f |\n", m.N, m.DateF1, m.DateR, m.Date1F1, m.Date1R, m.AlignF1)
	printf(a.stdout, "\nleakage: %d days or citations after the anchor (must be 0)\nwrote %s and %s\n", total, filepath.Join(f.out, "timelines.jsonl"), filepath.Join(f.out, "timelines-summary.json"))
	return nil
}
