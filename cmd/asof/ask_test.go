package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// askCorpus is a small English news corpus with a story that continues after the anchor.
var askCorpus = []schemas.Document{
	{DocID: "windsor-1", PublishedAt: day("2023-02-27"), Title: "The Windsor Framework: Rishi Sunak's Brexit deal explained", Text: "Rishi Sunak and Ursula von der Leyen agreed the Windsor Framework, a new deal on post-Brexit trade rules for Northern Ireland.", Source: "theweek.co.uk"},
	{DocID: "windsor-2", PublishedAt: day("2023-02-28"), Title: "Has Rishi Sunak got Brexit done?", Text: "The prime minister hailed the Windsor Framework with the European Union as a decisive breakthrough for Northern Ireland.", Source: "theweek.co.uk"},
	{DocID: "windsor-later", PublishedAt: day("2023-03-22"), Title: "MPs back Windsor Framework in Commons vote", Text: "Parliament approved the Stormont brake, a key part of Rishi Sunak's Windsor Framework deal with the European Union.", Source: "bbc.co.uk"},
	{DocID: "protocol-2022", PublishedAt: day("2022-06-13"), Title: "Northern Ireland Protocol Bill published", Text: "The government published a bill to override parts of the Brexit deal's Northern Ireland Protocol with the European Union.", Source: "bbc.co.uk"},
	{DocID: "election-2015", PublishedAt: day("2015-05-08"), Title: "Conservatives win general election", Text: "David Cameron's Conservatives won a majority in the 2015 general election in the United Kingdom.", Source: "bbc.co.uk"},
	{DocID: "football", PublishedAt: day("2023-03-01"), Title: "Derby ends in a draw", Text: "The football derby ended one all after a late equaliser.", Source: "sport.example"},
	{DocID: "pie", PublishedAt: day("2023-03-02"), Title: "Apple pie recipe", Text: "Bake the apple pie with cinnamon for forty minutes.", Source: "food.example"},
}

// TestAskCommandWithModel indexes a small corpus and asks it as of a date on the embedded
// default: nothing after the anchor comes back, the Windsor Framework articles lead, an
// "in 2015" question returns only 2015, an empty period says so, and evolution splits in two.
func TestAskCommandWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	file := writeParquetFile(t, dir, "news.parquet", askCorpus)
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	if code, out, errOut := runCLI(t, nil, append([]string{"index", "--index", "news", "--corpus", file}, common...)...); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	ask := func(args ...string) schemas.Answer {
		t.Helper()
		code, out, errOut := runCLI(t, nil, append(append([]string{"ask", "--index", "news", "--json"}, common...), args...)...)
		if code != 0 {
			t.Fatalf("ask %v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		var ans schemas.Answer
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatalf("ask %v: %v\n%s", args, err, out)
		}
		return ans
	}

	a := ask("--as-of", "2023-03-03", "What is the name of Rishi Sunak's new Brexit deal with the European Union?")
	if a.Mode != "recency" || len(a.Results) == 0 {
		t.Fatalf("mode %s, %d results", a.Mode, len(a.Results))
	}
	for _, r := range a.Results {
		if r.PublishedAt.After(day("2023-03-03")) {
			t.Fatalf("%s published %s, after the anchor", r.DocID, r.PublishedAt)
		}
	}
	if !strings.HasPrefix(a.Results[0].DocID, "windsor-") || !strings.HasPrefix(a.Results[1].DocID, "windsor-") {
		t.Fatalf("Windsor Framework articles should lead: %v", docIDs(a))
	}
	if !strings.Contains(a.Context, "[1] date=") || !strings.Contains(a.Summary, "Windsor") || a.SummaryMethod != "extractive" {
		t.Fatalf("context/summary:\n%s\n%s", a.Context, a.Summary)
	}
	later := ask("--as-of", "2023-03-31", "What is the name of Rishi Sunak's new Brexit deal with the European Union?")
	if docIDs(later)[0] != "windsor-later" {
		t.Fatalf("as of 2023-03-31 the fresh vote article should lead: %v", docIDs(later))
	}

	// A named year centers the search on it: its article first, the rest of the past after.
	w := ask("--as-of", "2023-03-03", "general election in 2015")
	if w.Mode != "recency" || len(w.Results) == 0 || w.Results[0].DocID != "election-2015" || w.Reading != "period" ||
		!strings.Contains(w.Interpretation, `a question about "in 2015" (2015-01-01..2015-12-31), searched around 2014-12-25..2016-04-01`) {
		t.Fatalf("in 2015: mode %s, %v (%s)", w.Mode, docIDs(w), w.Interpretation)
	}
	// Nothing was published around 2016: the nearest report, of 2015, leads; a window asked
	// for is the period itself, and empty.
	e := ask("--as-of", "2023-03-03", "general election in 2016")
	if e.Mode != "recency" || len(e.Results) == 0 || e.Results[0].DocID != "election-2015" {
		t.Fatalf("in 2016: mode %s, %v (%s)", e.Mode, docIDs(e), e.Interpretation)
	}
	// A question about the past: the whole past by relevance, however old its evidence.
	p := ask("--as-of", "2023-03-03", "When was the general election won by the conservatives?")
	if p.Mode != "hybrid" || p.Reading != "past" || len(p.Results) == 0 || p.Results[0].DocID != "election-2015" {
		t.Fatalf("when: mode %s (%s), %v (%s)", p.Mode, p.Reading, docIDs(p), p.Interpretation)
	}
	e = ask("--as-of", "2023-03-03", "--mode", "window", "general election in 2016")
	if len(e.Results) != 0 || !strings.Contains(e.Message, "No documents in that period") {
		t.Fatalf("in 2016, window: %v %q", docIDs(e), e.Message)
	}
	ev := ask("--as-of", "2023-03-03", "--mode", "evolution", "--evolution-k", "1", "Brexit deal for Northern Ireland")
	if len(ev.Results) != 2 || ev.Results[0].Group != "then" || ev.Results[1].Group != "now" || !ev.Results[0].PublishedAt.Before(ev.Results[1].PublishedAt) {
		t.Fatalf("evolution: %+v", ev.Results)
	}

	// As a separate process, stdout is exactly one JSON object: nothing the embedded servers
	// print at start-up may reach it (`asof ask --json | jq`).
	sub := exec.Command(os.Args[0], append(append([]string{"ask", "--index", "news", "--json"}, common...), "--as-of", "2023-03-03", "Brexit deal")...)
	sub.Env = append(os.Environ(), "ASOF_TEST_MAIN=1")
	stdout, err := sub.Output()
	var parsed schemas.Answer
	if err != nil || json.Unmarshal(stdout, &parsed) != nil || len(parsed.Results) == 0 {
		t.Fatalf("asof ask --json in a process: %v\nstdout:\n%s", err, stdout)
	}

	code, out, _ := runCLI(t, nil, append(append([]string{"ask", "--index", "news"}, common...), "--as-of", "2023-03-03", "Brexit deal")...)
	if code != 0 || !regexp.MustCompile(`\| \[\d+\] \| 2023-0`).MatchString(out) || !strings.Contains(out, "read as: recency") {
		t.Fatalf("Markdown answer: exit %d\n%s", code, out)
	}
	code, _, errOut := runCLI(t, nil, append(append([]string{"ask", "--index", "missing"}, common...), "x")...)
	if code == 0 || !strings.Contains(errOut, `index "missing" does not exist`) {
		t.Fatalf("missing index: exit %d %s", code, errOut)
	}
}

func docIDs(a schemas.Answer) []string {
	var ids []string
	for _, r := range a.Results {
		ids = append(ids, r.DocID)
	}
	return ids
}
