package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/spf13/pflag"

	"github.com/asofrag/asof/internal/eval"
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

func runEvalTimelines(ctx context.Context, a *app, f evalFlags, tf timelinesFlags) error {
	if tf.topics == "" {
		return fmt.Errorf("--timelines needs --topics (lang, topic, query)")
	}
	if f.questions != "" || f.qrels != "" || f.queries != "" {
		return fmt.Errorf("--timelines evaluates timelines: leave out --questions, --qrels and --queries")
	}
	refs, err := eval.ReadTimelines(tf.reference)
	if err != nil {
		return fmt.Errorf("--timelines: %w", err)
	}
	topics, err := eval.ReadTimelineTopics(tf.topics)
	if err != nil {
		return fmt.Errorf("--topics: %w", err)
	}
	in := asof.TimelineEval{Index: f.index, Topics: topics, Reference: refs, Dates: tf.dates,
		Started: func(i int, t eval.TimelineTopic, index string, asOf time.Time, n int) {
			printf(a.stderr, "asof: timeline %d/%d: %s-%s (%q on %s as of %s, %d dates)\n", i+1, len(topics), t.Lang, t.Topic, t.Query, index, asOf.Format(time.DateOnly), n)
		}}
	if tf.asOf != "" {
		if in.AsOf, err = parseDay("as-of", tf.asOf); err != nil {
			return err
		}
	}
	if err := asof.CheckTimelineEval(in); err != nil {
		return fmt.Errorf("--%s", err) // "--index: …", "--topics: …", "--dates …"
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	st, _, stop, err := startServing(ctx, a, in.IndexFor(topics[0].Lang), nil)
	if err != nil {
		return err
	}
	defer stop()
	res, err := a.client(st).EvalTimelines(ctx, in)
	if err != nil {
		return err
	}
	var lines bytes.Buffer
	for _, r := range res.Topics {
		for _, e := range r.Entries {
			b, _ := json.Marshal(timelineRow{Lang: r.Lang, Topic: r.Topic, Date: e.Day.Format(time.DateOnly), Text: e.Text})
			lines.Write(append(b, '\n'))
		}
	}
	if err := os.WriteFile(filepath.Join(f.out, "timelines.jsonl"), lines.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	data, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(filepath.Join(f.out, "timelines-summary.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if f.asJSON {
		printf(a.stdout, "%s\n", data)
		return nil
	}
	printf(a.stdout, "| timeline | dates (sys/ref) | date F1 | date R | ±1 day F1 | ±1 day R | align ROUGE-1 F |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range res.Topics {
		s := r.Score
		printf(a.stdout, "| %s-%s | %d/%d | %.3f | %.3f | %.3f | %.3f | %.3f |\n", r.Lang, r.Topic, s.System, s.Reference, s.DateF1, s.DateR, s.Date1F1, s.Date1R, s.AlignF1)
	}
	for _, l := range res.Langs() {
		m := res.PerLang[l]
		printf(a.stdout, "| macro %s (%d) | | %.3f | %.3f | %.3f | %.3f | %.3f |\n", l, m.N, m.DateF1, m.DateR, m.Date1F1, m.Date1R, m.AlignF1)
	}
	m := res.Macro
	printf(a.stdout, "| **macro** (%d) | | **%.3f** | %.3f | **%.3f** | %.3f | %.3f |\n", m.N, m.DateF1, m.DateR, m.Date1F1, m.Date1R, m.AlignF1)
	printf(a.stdout, "\nleakage: %d days or citations after the anchor (must be 0)\nwrote %s and %s\n", res.Leaked, filepath.Join(f.out, "timelines.jsonl"), filepath.Join(f.out, "timelines-summary.json"))
	return nil
}
