package digest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// topicSection is the part of a Markdown digest under topic i's heading (1-based).
func topicSection(t *testing.T, md string, i int, name string) string {
	t.Helper()
	head := fmt.Sprintf("\n## %d. %s\n", i, name)
	start := strings.Index(md, head)
	if start < 0 {
		t.Fatalf("no heading %q in\n%s", head, md)
	}
	rest := md[start+len(head):]
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// claimLine is c's line, its cites numbered as the summary shows them (num).
func claimLine(c schemas.Claim, num render.Numbering) string {
	var cites strings.Builder
	for _, n := range num.Shown(c.Cites) {
		fmt.Fprintf(&cites, "[%d]", n)
	}
	return fmt.Sprintf("- %s — %s %s\n", c.Date.Format("2006-01-02"), c.Text, cites.String())
}

func TestMarkdownClaimsAndSources(t *testing.T) {
	d := fixture()
	md := Markdown(d)
	if !strings.HasPrefix(md, "# Digest morning — index news, as of 2024-06-30\n") {
		t.Errorf("title line is %q", strings.SplitN(md, "\n", 2)[0])
	}
	if !strings.Contains(md, "Time zone Europe/Berlin · 3 topics · run digest/morning/2024-06-30\n") {
		t.Error("no meta line with the time zone, topic count and run")
	}
	for i, tp := range d.Topics {
		if tp.Error != "" {
			continue
		}
		sec := topicSection(t, md, i+1, tp.Name)
		b := tp.Brief
		for _, c := range append(append(append(append([]schemas.Claim(nil), b.New...), b.Timeline...), b.Then...), b.Now...) {
			if line := claimLine(c, render.NumberingOf(b)); !strings.Contains(sec, line) {
				t.Errorf("topic %q lacks the claim line %q", tp.Name, line)
			}
		}
		_, list, _ := strings.Cut(sec, "### Sources\n")
		for k, at := 1, 0; k <= len(tp.Sources); k++ { // numbered 1..n in the order listed
			i := strings.Index(list, fmt.Sprintf("- [%d] ", k))
			if i < at {
				t.Errorf("topic %q does not list [%d] after [%d]:\n%s", tp.Name, k, k-1, list)
			}
			at = i
		}
		for _, s := range tp.Sources {
			line := fmt.Sprintf("- [%d] %s · %s · %s · %s\n", render.NumberingOf(b).Of(s.N), s.PublishedAt.Format("2006-01-02"), strings.Join(s.Sources, ", "), s.Title, s.URL)
			if !strings.Contains(sec, line) {
				t.Errorf("topic %q lacks the source line %q", tp.Name, line)
			}
		}
		if !strings.Contains(sec, "\nSummary: "+b.Method+"\n") {
			t.Errorf("topic %q does not name its summary method %q", tp.Name, b.Method)
		}
	}
	ecb := topicSection(t, md, 1, "ECB interest rates")
	for _, want := range []string{
		"Query: what did the ECB decide on interest rates\nRead as: recency (no date in query)\n",
		"### New in the last 7 days\n- 2024-06-29 — Lagarde", // freshest first
		"\nFreshness: freshest evidence 1 day old, 50% within 7 days, 6 distinct days; median 13.5 days, 67% within 30 days, 6 context blocks\n",
		"\nJudge: llm:qwen2.5-7b-instruct — 24 judged, 9 kept, 15 dropped, 0 failed\n",
	} {
		if !strings.Contains(ecb, want) {
			t.Errorf("ECB topic lacks %q", want)
		}
	}
	// The timeline runs oldest first.
	var last string
	for _, line := range strings.Split(between(t, ecb, "### Timeline\n", "\n\n"), "\n") {
		if day := line[2:12]; day < last {
			t.Errorf("timeline line %q comes after %s", line, last)
		} else {
			last = day
		}
	}
	cbr := topicSection(t, md, 2, "Ключевая ставка ЦБ")
	for _, want := range []string{
		"\n_The LLM summary cited a block after the anchor and was replaced by the extractive one._\n\n### Then\n- 2022-02-28 — ",
		"### Now\n- 2024-06-14 — ", // freshest first
		"\nJudge: heuristic — 10 judged, 6 kept, 4 dropped, 8 failed (1 of 2 batches failed, policy keep); first failure: candidates 11..18: activity StartToClose timeout\n",
	} {
		if !strings.Contains(cbr, want) {
			t.Errorf("evolution topic lacks %q", want)
		}
	}
	if strings.Contains(cbr, "### Timeline") || strings.Contains(cbr, "### New") {
		t.Error("evolution topic has more than Then and Now")
	}
}

// between is the text of s after the first from and before the next to.
func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	if i < 0 {
		t.Fatalf("no %q in %q", from, s)
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		s = s[:j]
	}
	return s
}

func TestMarkdownError(t *testing.T) {
	d := fixture()
	sec := topicSection(t, Markdown(d), 3, "Chip export rules")
	want := "Query: new US chip export restrictions\nRead as: auto\n\nError: ask failed: activity RetrieveDense timed out after 3 attempts (StartToClose 2m0s)\n"
	if sec != "\n"+want {
		t.Errorf("failed topic renders as\n%q\nwant\n%q", sec, "\n"+want)
	}
}

func TestMarkdownTopics(t *testing.T) {
	base := func() schemas.DigestTopic { return fixture().Topics[0] }
	tests := []struct {
		name   string
		edit   func(*schemas.DigestTopic)
		has    []string
		hasNot []string
	}{
		{name: "nothing new", edit: func(tp *schemas.DigestTopic) { tp.Brief.New = nil },
			has: []string{"### New in the last 7 days\n_Nothing new in the last 7 days._\n\n### Latest\n- 2024-06-06", "### Timeline\n- 2023-09-14"}},
		{name: "not enough", edit: func(tp *schemas.DigestTopic) {
			tp.Brief = schemas.Brief{Method: "extractive", NotEnough: true}
			tp.Sources, tp.Freshness = nil, Freshness(nil, anchor)
		},
			has:    []string{"\nNot enough information in the documents up to 2024-06-30 to answer.\n\nFreshness: no evidence\n"},
			hasNot: []string{"### New", "### Timeline", "### Sources"}},
		{name: "one-day window", edit: func(tp *schemas.DigestTopic) { tp.Brief.NewDays = 1 },
			has: []string{"### New in the last day\n- 2024-06-29"}},
		{name: "a source without a title is named by its snippet, never its id", edit: func(tp *schemas.DigestTopic) { tp.Sources[0].Title = "" },
			has:    []string{"- [2] 2024-06-28 · reuters, ft · The European Central Bank kept its deposit rate at 3.75% on Thursday. · https://"},
			hasNot: []string{"reuters-20240628-ecb"}},
		{name: "message", edit: func(tp *schemas.DigestTopic) { tp.Message = "no documents in that\nperiod" },
			has: []string{"Read as: recency (no date in query)\n\nMessage: no documents in that period\n"}},
		{name: "timeline from new and earlier", edit: func(tp *schemas.DigestTopic) { tp.Brief.Timeline = nil },
			has: []string{"### Timeline\n- 2023-09-14 — The ECB raised"}},
		{name: "unsorted timeline is sorted", edit: func(tp *schemas.DigestTopic) {
			tl := tp.Brief.Timeline
			tl[0], tl[4] = tl[4], tl[0]
		},
			has: []string{"### Timeline\n- 2023-09-14 — The ECB raised"}},
		{name: "cite without a source", edit: func(tp *schemas.DigestTopic) { tp.Brief.New[0].Cites = []int{3, 9} },
			has: []string{"- 2024-06-29 — Lagarde said the ECB is in no rush to lower borrowing costs further. [1][2]\n"}},
		{name: "no name", edit: func(tp *schemas.DigestTopic) { tp.Name = "" },
			has: []string{"\n## 1. what did the ECB decide on interest rates\n"}},
		{name: "judge off, no url, no sources", edit: func(tp *schemas.DigestTopic) {
			tp.Judge = schemas.JudgeReport{Method: "off"}
			tp.Sources = tp.Sources[:1]
			tp.Sources[0].URL, tp.Sources[0].Sources = "", nil
		},
			has: []string{"Judge: off\n", "- [2] 2024-06-28 · ECB holds rates, signals patience\n"}},
		{name: "escape sequences in a stored name and query", edit: func(tp *schemas.DigestTopic) {
			tp.Name, tp.Query = "Rates\x1b[2J\u009b31m", "key rate \x1b]0;TITLE\x07 via api\u202e"
		},
			has:    []string{"\n## 1. Rates[2J31m\n", "Query: key rate ]0;TITLE via api\n"},
			hasNot: []string{"\x1b", "\x07", "\u009b", "\u202e"}},
		{name: "mode differs from the reading", edit: func(tp *schemas.DigestTopic) { tp.Mode = "hybrid" },
			has: []string{"Read as: recency (no date in query) · mode hybrid\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := base()
			tt.edit(&tp)
			md := Markdown(schemas.Digest{Name: "n", Index: "i", AsOf: anchor, Topics: []schemas.DigestTopic{tp}})
			for _, s := range tt.has {
				if !strings.Contains(md, s) {
					t.Errorf("output lacks %q:\n%s", s, md)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(md, s) {
					t.Errorf("output holds %q:\n%s", s, md)
				}
			}
		})
	}
}

func TestMarkdownDeterministic(t *testing.T) {
	first := Markdown(fixture())
	for range 20 {
		if Markdown(fixture()) != first {
			t.Fatal("two renders of the same digest differ")
		}
	}
}

func TestMarkdownGolden(t *testing.T) {
	golden(t, "digest.golden.md", []byte(Markdown(fixture())))
}

// golden compares got with testdata/name, rewriting the file first under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s; inspect the diff, then run go test -run Golden -update", path)
	}
}
