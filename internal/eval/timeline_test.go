package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func days(ss ...string) map[time.Time]string {
	m := map[time.Time]string{}
	for _, s := range ss {
		d, text, _ := bytes.Cut([]byte(s), []byte("="))
		m[day(string(d))] = string(text)
	}
	return m
}

func TestScoreTimeline(t *testing.T) {
	cases := []struct {
		name        string
		sys, ref    map[time.Time]string
		p, r, p1    float64
		r1          float64
		ap, ar, cf1 float64
	}{
		{"identical", days("2011-02-17=protests in benghazi", "2011-03-19=air strikes"), days("2011-02-17=protests in benghazi", "2011-03-19=air strikes"),
			1, 1, 1, 1, 1, 1, 1},
		{"a day late counts within a day only", days("2011-02-18=protests"), days("2011-02-17=protests"),
			0, 0, 1, 1, 1, 1, 1},
		{"two days late is no match", days("2011-02-19=protests"), days("2011-02-17=protests"),
			0, 0, 0, 0, 0, 0, 1},
		{"one system day cannot match two", days("2011-02-17=a b"), days("2011-02-16=a", "2011-02-18=b"),
			0, 0, 1, 0.5, 0.5, 0.5, 1},
		{"exact pairs preferred", days("2011-02-17=x", "2011-02-18=y"), days("2011-02-17=x", "2011-02-18=y"),
			1, 1, 1, 1, 1, 1, 1},
		{"clipped overlap", days("2011-02-17=the the the war"), days("2011-02-17=The war, the end"),
			1, 1, 1, 1, 0.75, 0.75, 0.75},
		{"empty system", days(), days("2011-02-17=x"), 0, 0, 0, 0, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ScoreTimeline(c.sys, c.ref)
			for _, x := range []struct {
				name      string
				got, want float64
			}{{"date_p", s.DateP, c.p}, {"date_r", s.DateR, c.r}, {"date1_p", s.Date1P, c.p1}, {"date1_r", s.Date1R, c.r1},
				{"align_p", s.AlignP, c.ap}, {"align_r", s.AlignR, c.ar}, {"concat_f1", s.ConcatF1, c.cf1}} {
				if math.Abs(x.got-x.want) > 1e-9 {
					t.Errorf("%s = %v, want %v", x.name, x.got, x.want)
				}
			}
		})
	}
}

func TestMatchDaysMaximal(t *testing.T) {
	// S: 1 2 3, R: 2 3 4. Exact pairs 2-2 and 3-3 give 2 pairs; 1-2, 2-3, 3-4 give 3. The
	// matching is the larger one.
	s := []time.Time{day("2011-01-01"), day("2011-01-02"), day("2011-01-03")}
	r := []time.Time{day("2011-01-02"), day("2011-01-03"), day("2011-01-04")}
	if got := MatchDays(s, r); len(got) != 3 {
		t.Fatalf("got %v, want 3 pairs", got)
	}
}

// TestScoreTimelineAgreesWithScorer scores random system timelines against the CL-TLS dev
// references with ScoreTimeline and with the benchmark's own scorer
// (../shared/data/cl-tls-dev/score_timeline.py), and requires the same figures. It needs the
// data and a Python with pandas and pyarrow (`make setup-scorers` makes one in .asof/scorers);
// it skips without them.
func TestScoreTimelineAgreesWithScorer(t *testing.T) {
	dir := "../../../shared/data/cl-tls-dev"
	if _, err := os.Stat(filepath.Join(dir, "timelines.parquet")); err != nil {
		t.Skip("no ../shared/data/cl-tls-dev")
	}
	py := scorerPython(t)
	refs, err := ReadTimelines(filepath.Join(dir, "timelines.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var lines bytes.Buffer
	system := map[TimelineKey]map[time.Time]string{}
	words := []string{"gadafi", "libia", "bengasi", "trípoli", "la", "de", "el", "otan", "rebeldes", "muertos", "kadhafi", "libye", "gheddafi"}
	for key, ref := range refs {
		sys := map[time.Time]string{}
		for d := range ref {
			for _, off := range []int{0, 1, -1, 2} {
				if rng.IntN(3) == 0 {
					text := ""
					for range 3 + rng.IntN(8) {
						text += words[rng.IntN(len(words))] + " "
					}
					nd := d.AddDate(0, 0, off)
					sys[nd] += text
				}
			}
		}
		system[key] = sys
		for d, text := range sys {
			b, _ := json.Marshal(map[string]string{"lang": key.Lang, "topic": key.Topic, "date": d.Format(time.DateOnly), "text": text})
			lines.Write(append(b, '\n'))
		}
	}
	f := filepath.Join(t.TempDir(), "system.jsonl")
	if err := os.WriteFile(f, lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join(dir, "score_timeline.py"), filepath.Join(dir, "timelines.parquet"), f, "--per-topic").Output()
	if err != nil {
		t.Fatalf("score_timeline.py: %v", err)
	}
	var res struct {
		PerTopic map[string]map[string]float64 `json:"per_topic"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.PerTopic) != len(refs) {
		t.Fatalf("scorer scored %d topics, want %d", len(res.PerTopic), len(refs))
	}
	for key, ref := range refs {
		want := res.PerTopic[key.Lang+"-"+key.Topic]
		got := ScoreTimeline(system[key], ref)
		for name, g := range map[string]float64{"date_p": got.DateP, "date_r": got.DateR, "date_f1": got.DateF1,
			"date1_p": got.Date1P, "date1_r": got.Date1R, "date1_f1": got.Date1F1,
			"align_r1_p": got.AlignP, "align_r1_r": got.AlignR, "align_r1_f": got.AlignF1, "concat_r1_f": got.ConcatF1} {
			if math.Abs(g-want[name]) > 1e-4 { // the scorer rounds to 4 places
				t.Errorf("%s %s: ScoreTimeline %.5f, score_timeline.py %.4f", key, name, g, want[name])
			}
		}
	}
}

// scorerPython is a Python that can run the CL-TLS scorer (pandas, pyarrow), or the test skips.
func scorerPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"../../.asof/scorers/bin/python", "python3"} {
		if p, err := exec.LookPath(py); err == nil {
			if exec.Command(p, "-c", "import pandas, pyarrow").Run() == nil {
				abs, _ := filepath.Abs(p)
				return abs
			}
		}
	}
	t.Skip("no Python with pandas and pyarrow (make setup-scorers)")
	return ""
}

func (k TimelineKey) String() string { return fmt.Sprintf("%s-%s", k.Lang, k.Topic) }

func TestReadTimelineTopics(t *testing.T) {
	dir := "../../../shared/data/cl-tls-dev"
	if _, err := os.Stat(filepath.Join(dir, "topics.parquet")); err != nil {
		t.Skip("no ../shared/data/cl-tls-dev")
	}
	ts, err := ReadTimelineTopics(filepath.Join(dir, "topics.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 3 || ts[0].Query == "" || ts[0].LastArticle.IsZero() {
		t.Fatalf("topics %+v", ts)
	}
	if _, err := ReadTimelineTopics(filepath.Join(dir, "timelines.parquet")); err == nil {
		t.Fatal("a timelines file read as topics")
	}
}

func TestMacroTimelines(t *testing.T) {
	m := MacroTimelines([]TimelineScore{{DateF1: 0.5, Date1F1: 1}, {DateF1: 0.1, Date1F1: 0.5}})
	if m.N != 2 || math.Abs(m.DateF1-0.3) > 1e-12 || math.Abs(m.Date1F1-0.75) > 1e-12 {
		t.Fatalf("%+v", m)
	}
	if MacroTimelines(nil).N != 0 {
		t.Fatal("empty")
	}
}
