package report

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/htmltest"
	"github.com/asofrag/asof/schemas"
)

var update = flag.Bool("update", false, "rewrite testdata/eval.golden.html from the current output")

// fixture is a report of 3 systems over 5 questions (13 rows) and 14 months with a gap.
func fixture() EvalReport {
	day := func(m time.Month, d int) time.Time { return time.Date(2023, m, d, 0, 0, 0, 0, time.UTC) }
	row := func(sys, q string, asOf time.Time, valid bool, ndcg, fresh float64) schemas.EvalRow {
		return schemas.EvalRow{System: sys, QuestionID: q, AsOf: asOf, Valid: valid, HasGrade2: valid,
			NDCG10: ndcg, FreshDays: fresh, LatencyMS: 10}
	}
	return EvalReport{
		Title:     "asof eval — index rtqa",
		Generated: time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("CEST", 2*3600)),
		Index:     "rtqa",
		Questions: 5,
		Systems: []eval.Summary{
			{System: "hybrid", NDCG10: 0.612, Recall10: 0.55, Recall50: 0.8, MRR: 0.7, P10: 0.31,
				FreshDaysMedian: 2, LatencyMSP50: 45, LatencyMSP95: 120.5, Questions: 3, Skipped: 1, MRRQuestions: 3},
			{System: "bm25", NDCG10: 0.48, Recall10: 0.5, Recall50: 0.85, MRR: 0.6, P10: 0.25,
				FreshDaysMedian: 6.5, LatencyMSP50: 12, LatencyMSP95: 30, Questions: 3, Skipped: 1, MRRQuestions: 2},
			{System: "dense-nofilter", NDCG10: 0.52, Recall10: 0.4, Recall50: 0.7, MRR: 0.65, P10: 0.28,
				Leakage10: 0.03, LeakedQuestions: 2, FreshDaysMedian: -1, LatencyMSP50: 40, LatencyMSP95: 90,
				Questions: 3, Skipped: 1, MRRQuestions: 3},
		},
		Rows: []schemas.EvalRow{
			row("hybrid", "q2", day(3, 2), true, 0.5, 0),
			row("bm25", "q2", day(3, 2), true, 0.4, 1),
			row("dense-nofilter", "q2", day(3, 2), true, 0.45, 3),
			row("hybrid", "q1", day(3, 1), true, 0.9, 5),
			row("bm25", "q1", day(3, 1), true, 0.3, 12),
			row("dense-nofilter", "q1", day(3, 1), true, 0.6, -1),
			row("hybrid", "q3", day(4, 5), true, 0.7, 40),
			row("bm25", "q3", day(4, 5), true, 0.4, 400),
			row("dense-nofilter", "q3", day(4, 5), true, 0.5, 200),
			row("hybrid", "q4", day(4, 9), false, 0, 20),
			row("bm25", "q4", day(4, 9), false, 0, 7),
			row("dense-nofilter", "q4", day(4, 9), false, 0, -1),
			row("hybrid", "q5", day(5, 1), true, 1, 2),
		},
		DocsPerMonth: []MonthCount{
			{"2023-02", 1200}, {"2022-12", 800}, {"2023-01", 950}, {"2023-03", 1430},
			{"2023-05", 1310}, {"2023-06", 990}, {"2023-07", 1015}, {"2023-08", 1100},
			{"2023-09", 1250}, {"2023-10", 1180}, {"2023-11", 1400}, {"2023-12", 1390}, {"2024-01", 700},
		},
		Notes: []string{"Questions: every realtimeqa question with at least one judged document.", "Anchor: the question date."},
	}
}

func renderPage(t *testing.T, r EvalReport) string {
	t.Helper()
	var b strings.Builder
	if err := WriteEval(&b, r); err != nil {
		t.Fatalf("WriteEval: %v", err)
	}
	return b.String()
}

// The page readers of internal/htmltest, under the short names these tests use.
var (
	parse    = htmltest.Parse
	findAll  = htmltest.FindAll
	attr     = htmltest.Attr
	hasClass = htmltest.HasClass
	byID     = htmltest.ByID
	text     = htmltest.Text
)

// cells lists the th and td children of a table row.
func cells(tr *html.Node) []*html.Node {
	var out []*html.Node
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
			out = append(out, c)
		}
	}
	return out
}

func TestWriteEvalStructure(t *testing.T) {
	r := fixture()
	doc := parse(t, renderPage(t, r))

	// One <svg> per chart, and no other.
	charts := []string{"chart-ndcg10", "chart-recall10", "chart-mrr", "chart-leakage10", "chart-months", "chart-ages"}
	for _, id := range charts {
		if n := len(findAll(byID(t, doc, id), "svg", nil)); n != 1 {
			t.Errorf("#%s has %d <svg>, want 1", id, n)
		}
	}
	if n := len(findAll(doc, "svg", nil)); n != len(charts) {
		t.Errorf("page has %d <svg>, want %d", n, len(charts))
	}
	// The bar charts draw one bar per system, in display order.
	for _, id := range charts[:4] {
		rects := findAll(byID(t, doc, id), "rect", nil)
		if len(rects) != len(r.Systems) {
			t.Fatalf("#%s has %d bars, want %d", id, len(rects), len(r.Systems))
		}
		for i, rect := range rects {
			if got, want := text(rect), r.Systems[i].System+": "; !strings.HasPrefix(got, want) {
				t.Errorf("#%s bar %d is %q, want prefix %q", id, i, got, want)
			}
		}
	}

	// The metric table: a header row and one row per system.
	metrics := byID(t, doc, "metrics")
	trs := findAll(metrics, "tr", nil)
	if len(trs) != 1+len(r.Systems) {
		t.Fatalf("metric table has %d <tr>, want %d", len(trs), 1+len(r.Systems))
	}
	header := cells(trs[0])
	col := func(label string) int {
		for i, c := range header {
			if text(c) == label {
				return i
			}
		}
		t.Fatalf("metric table has no column %q", label)
		return -1
	}
	ndcg, leak, fresh := col("nDCG@10"), col("leakage@10"), col("fresh days (median)")
	for i, tr := range trs[1:] {
		c := cells(tr)
		if got := text(c[0]); got != r.Systems[i].System {
			t.Errorf("metric row %d is %q, want %q", i, got, r.Systems[i].System)
		}
		// hybrid (row 0) has the best nDCG@10; only it is bold.
		if bold := len(findAll(c[ndcg], "strong", nil)) > 0; bold != (i == 0) {
			t.Errorf("%s nDCG@10 cell bold = %v, want %v", r.Systems[i].System, bold, i == 0)
		}
		// dense-nofilter (row 2) leaks: warning class and an explaining title.
		warn := hasClass(c[leak], "warn")
		if warn != (i == 2) {
			t.Errorf("%s leakage cell warn = %v, want %v", r.Systems[i].System, warn, i == 2)
		}
		if warn && !strings.Contains(attr(c[leak], "title"), "after the question's as-of anchor") {
			t.Errorf("leakage cell title %q does not explain the leak", attr(c[leak], "title"))
		}
	}
	// Lower is better for leakage: the two non-leaking systems are bold, the leaking one not.
	for i, tr := range trs[1:] {
		if bold := len(findAll(cells(tr)[leak], "strong", nil)) > 0; bold != (i != 2) {
			t.Errorf("%s leakage@10 bold = %v, want %v", r.Systems[i].System, bold, i != 2)
		}
	}
	// Fresh days: −1 is "none", shown as —; the lowest median (hybrid, 2) is bold.
	if got := text(cells(trs[3])[fresh]); got != "—" {
		t.Errorf("fresh days of dense-nofilter = %q, want —", got)
	}
	if len(findAll(cells(trs[1])[fresh], "strong", nil)) != 1 {
		t.Error("fresh days of hybrid is not bold")
	}

	// The per-question table sits in <details>, widest spread first.
	questions := byID(t, doc, "questions")
	if len(findAll(questions, "details", nil)) != 1 {
		t.Error("per-question table is not in a <details>")
	}
	var ids, spreads []string
	for _, tr := range findAll(questions, "tr", nil)[1:] {
		c := cells(tr)
		ids = append(ids, text(c[0]))
		spreads = append(spreads, text(c[len(c)-1]))
	}
	if want := []string{"q1", "q3", "q2", "q4", "q5"}; !slices.Equal(ids, want) {
		t.Errorf("per-question order = %v, want %v (spreads %v)", ids, want, spreads)
	}
	if want := []string{"0.600", "0.300", "0.100", "—", "—"}; !slices.Equal(spreads, want) {
		t.Errorf("spreads = %v, want %v", spreads, want)
	}

	// The month chart fills the gap (2023-04) and the footer shows the time in UTC.
	if n := len(findAll(byID(t, doc, "chart-months"), "rect", nil)); n != 14 {
		t.Errorf("month chart has %d columns, want 14 (13 months + the 2023-04 gap)", n)
	}
	if got := text(findAll(doc, "footer", nil)[0]); !strings.Contains(got, "2024-05-06 05:08:09 UTC") {
		t.Errorf("footer %q does not show the generation time in UTC", got)
	}
}

func TestWriteEvalAgeHistogram(t *testing.T) {
	doc := parse(t, renderPage(t, fixture()))
	ages := byID(t, doc, "chart-ages")
	panels := findAll(ages, "g", nil)
	if len(panels) != 3 {
		t.Fatalf("age chart has %d panels, want 3", len(panels))
	}
	// bm25 ages 1, 12, 400, 7 → buckets 1, 8–14, >365, 4–7.
	want := map[string]string{"0": "0", "1": "1", "2–3": "0", "4–7": "1", "8–14": "1", "15–30": "0",
		"31–90": "0", "91–365": "0", ">365": "1", "none": "0"}
	texts := findAll(panels[1], "text", func(n *html.Node) bool { return hasClass(n, "small") })
	if len(texts) != 2*len(want) {
		t.Fatalf("bm25 panel has %d labels, want %d", len(texts), 2*len(want))
	}
	for i := 0; i < len(texts); i += 2 {
		count, bucket := text(texts[i]), text(texts[i+1])
		if want[bucket] != count {
			t.Errorf("bm25 bucket %q = %s, want %s", bucket, count, want[bucket])
		}
	}
}

func TestWriteEvalEscapes(t *testing.T) {
	const evil = `<script>alert("x")</script>`
	r := fixture()
	r.Title = evil
	r.Index = evil
	r.Notes = []string{evil}
	r.Systems[0].System = evil
	for i := range r.Rows {
		if r.Rows[i].System == "hybrid" {
			r.Rows[i].System = evil
		}
	}
	r.Rows[0].QuestionID = "q" + evil
	r.DocsPerMonth = append(r.DocsPerMonth, MonthCount{Month: evil, Docs: 3})
	out := renderPage(t, r)
	if strings.Contains(out, "<script") {
		t.Fatal("output holds an unescaped <script")
	}
	if !strings.Contains(out, "&lt;script&gt;") {
		t.Error("output does not hold the escaped &lt;script&gt;")
	}
	// Escaped, not dropped: the parsed text gives the name back.
	doc := parse(t, out)
	if got := text(cells(findAll(byID(t, doc, "metrics"), "tr", nil)[1])[0]); got != evil {
		t.Errorf("metric row system = %q, want %q", got, evil)
	}
	var found bool
	for _, th := range findAll(byID(t, doc, "questions"), "th", nil) {
		found = found || text(th) == "q"+evil
	}
	if !found {
		t.Error("question id with <script> is missing from the per-question table")
	}
}

func TestWriteEvalDeterministic(t *testing.T) {
	r := fixture()
	first := renderPage(t, r)
	for range 20 { // maps iterate in a new order each time
		if again := renderPage(t, r); again != first {
			t.Fatal("two renders of the same report differ")
		}
	}
}

func TestWriteEvalEmpty(t *testing.T) {
	systemsOnly := fixture()
	systemsOnly.Rows, systemsOnly.DocsPerMonth = nil, nil
	rowsOnly := fixture()
	rowsOnly.Systems, rowsOnly.DocsPerMonth = nil, nil
	tests := []struct {
		name     string
		r        EvalReport
		svgs     int
		sections []string // sections present
		absent   []string
	}{
		{name: "zero", r: EvalReport{}, svgs: 0, sections: []string{"metrics"},
			absent: []string{"charts", "months", "ages", "questions"}},
		{name: "systems without rows or months", r: systemsOnly, svgs: 4, sections: []string{"metrics", "charts"},
			absent: []string{"months", "ages", "questions"}},
		{name: "rows without systems", r: rowsOnly, svgs: 1, sections: []string{"metrics", "ages", "questions"},
			absent: []string{"charts", "months"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parse(t, renderPage(t, tt.r))
			svgs := findAll(doc, "svg", nil)
			if len(svgs) != tt.svgs {
				t.Errorf("%d <svg>, want %d", len(svgs), tt.svgs)
			}
			for _, s := range svgs {
				if len(findAll(s, "rect", nil)) == 0 || len(findAll(s, "text", nil)) == 0 {
					t.Errorf("empty <svg> %q", attr(s, "aria-label"))
				}
			}
			for _, id := range tt.sections {
				byID(t, doc, id)
			}
			for _, id := range tt.absent {
				if n := findAll(doc, "", func(n *html.Node) bool { return attr(n, "id") == id }); len(n) != 0 {
					t.Errorf("section #%s is present", id)
				}
			}
			if got := text(findAll(doc, "title", nil)[0]); tt.r.Title == "" && got != "Evaluation report" {
				t.Errorf("title = %q, want the default", got)
			}
		})
	}
}

func TestWriteEvalQuestionLimit(t *testing.T) {
	r := fixture()
	r.Rows = nil
	for i := range 250 {
		q := fmt.Sprintf("q%03d", i)
		r.Rows = append(r.Rows,
			schemas.EvalRow{System: "hybrid", QuestionID: q, Valid: true, NDCG10: 1},
			schemas.EvalRow{System: "bm25", QuestionID: q, Valid: true, NDCG10: float64(i) / 250})
	}
	doc := parse(t, renderPage(t, r))
	questions := byID(t, doc, "questions")
	trs := findAll(questions, "tr", nil)
	if len(trs) != 1+maxQuestionRows {
		t.Fatalf("per-question table has %d rows, want %d", len(trs)-1, maxQuestionRows)
	}
	// bm25 is worst on q000, so q000 has the widest spread.
	if got := text(cells(trs[1])[0]); got != "q000" {
		t.Errorf("first question = %q, want q000", got)
	}
	if got := text(findAll(questions, "summary", nil)[0]); !strings.Contains(got, "200 of 250") {
		t.Errorf("summary %q does not say 200 of 250", got)
	}
}

func TestWriteEvalMonthLabels(t *testing.T) {
	r := EvalReport{}
	for m := range 60 {
		r.DocsPerMonth = append(r.DocsPerMonth, MonthCount{Month: time.Date(2019, time.Month(m+1), 1, 0, 0, 0, 0, time.UTC).Format("2006-01"), Docs: 10 * m})
	}
	chart := byID(t, parse(t, renderPage(t, r)), "chart-months")
	if n := len(findAll(chart, "rect", nil)); n != 60 {
		t.Errorf("%d columns, want 60", n)
	}
	labels := findAll(chart, "text", func(n *html.Node) bool { return attr(n, "text-anchor") == "middle" })
	if len(labels) == 0 || len(labels) > maxMonthLabels {
		t.Errorf("%d month labels, want 1..%d", len(labels), maxMonthLabels)
	}
	if got := text(labels[0]); got != "2019-01" {
		t.Errorf("first month label = %q, want 2019-01", got)
	}
}

var errWrite = errors.New("disk full")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteEvalWriteError(t *testing.T) {
	if err := WriteEval(failWriter{}, fixture()); !errors.Is(err, errWrite) {
		t.Errorf("WriteEval to a failing writer = %v, want %v", err, errWrite)
	}
}

func TestWriteEvalGolden(t *testing.T) {
	got := []byte(renderPage(t, fixture()))
	path := filepath.Join("testdata", "eval.golden.html")
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

func TestBucketOf(t *testing.T) {
	tests := []struct {
		name string
		days float64
		want string
	}{
		{"none", -1, "none"},
		{"zero", 0, "0"},
		{"one", 1, "1"},
		{"two", 2, "2–3"},
		{"three", 3, "2–3"},
		{"seven", 7, "4–7"},
		{"eight", 8, "8–14"},
		{"fourteen", 14, "8–14"},
		{"fifteen", 15, "15–30"},
		{"thirty", 30, "15–30"},
		{"thirty-one", 31, "31–90"},
		{"ninety-one", 91, "91–365"},
		{"year", 365, "91–365"},
		{"over a year", 366, ">365"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bucketOf(tt.days)
			got := noneLabel
			if b < len(ageBuckets) {
				got = ageBuckets[b].label
			}
			if got != tt.want {
				t.Errorf("bucketOf(%v) = %q, want %q", tt.days, got, tt.want)
			}
		})
	}
}

func TestBestMask(t *testing.T) {
	tests := []struct {
		name   string
		vals   []float64
		ok     []bool
		better better
		want   []bool
	}{
		{"higher", []float64{0.5, 0.7, 0.6}, []bool{true, true, true}, higher, []bool{false, true, false}},
		{"lower", []float64{0.5, 0.7, 0.6}, []bool{true, true, true}, lower, []bool{true, false, false}},
		{"tie when printed", []float64{0.7001, 0.7004, 0.6}, []bool{true, true, true}, higher, []bool{true, true, false}},
		{"all equal", []float64{0, 0, 0}, []bool{true, true, true}, lower, []bool{false, false, false}},
		{"skips not ok", []float64{-1, 5, 9}, []bool{false, true, true}, lower, []bool{false, true, false}},
		{"unranked", []float64{1, 2}, []bool{true, true}, unranked, []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bestMask(tt.vals, tt.ok, 3, tt.better); !slices.Equal(got, tt.want) {
				t.Errorf("bestMask = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMonthSeries(t *testing.T) {
	tests := []struct {
		name string
		in   []MonthCount
		want string
	}{
		{"empty", nil, ""},
		{"sorted and summed", []MonthCount{{"2023-02", 1}, {"2023-01", 2}, {"2023-02", 3}}, "2023-01:2 2023-02:4"},
		{"gap filled", []MonthCount{{"2023-03", 1}, {"2022-12", 2}}, "2022-12:2 2023-01:0 2023-02:0 2023-03:1"},
		{"unparsable kept as is", []MonthCount{{"2023-03", 1}, {"spring", 2}, {"2023-01", 3}}, "2023-01:3 2023-03:1 spring:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var parts []string
			for _, m := range monthSeries(tt.in) {
				parts = append(parts, m.Month+":"+strconv.Itoa(m.Docs))
			}
			if got := strings.Join(parts, " "); got != tt.want {
				t.Errorf("monthSeries = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNiceTop(t *testing.T) {
	tests := []struct {
		name      string
		peak      int
		top, step int
	}{
		{"zero", 0, 1, 1},
		{"one", 1, 1, 1},
		{"three", 3, 3, 1},
		{"hundreds", 1430, 1500, 500},
		{"round", 2000, 2000, 500},
		{"big", 123456, 150000, 50000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top, step := niceTop(tt.peak)
			if top != tt.top || step != tt.step {
				t.Errorf("niceTop(%d) = %d, %d, want %d, %d", tt.peak, top, step, tt.top, tt.step)
			}
			if top < tt.peak || top/step > 5 {
				t.Errorf("niceTop(%d) = %d, %d: top below peak or more than 5 intervals", tt.peak, top, step)
			}
		})
	}
}

func BenchmarkWriteEval(b *testing.B) {
	r := fixture()
	for i := range 1000 {
		for _, s := range []string{"hybrid", "bm25", "dense-nofilter"} {
			r.Rows = append(r.Rows, schemas.EvalRow{System: s, QuestionID: fmt.Sprintf("b%04d", i),
				Valid: true, NDCG10: float64((i*7+len(s))%100) / 100, FreshDays: float64(i % 400)})
		}
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteEval(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
}
