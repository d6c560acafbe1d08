package sumeval_test

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestDates reads the date forms of real summaries: the study's (Russian prose and ISO
// timelines) and asof's ("- YYYY-MM-DD — sentence [n]"), with the anchor 2025-09-04.
func TestDates(t *testing.T) {
	anchor := day("2025-09-04")
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"study prose, day month year", "29 мая 2025 года, согласно данным Риа Новости, официальный курс доллара от ЦБ опустился ниже 79 рублей", []string{"2025-05-29"}},
		{"two days, one year", "опустившись ниже 81 рубля 30 апреля и 18 марта 2025 года, согласно данным", []string{"2025-04-30", "2025-03-18"}},
		{"day month without year, before anchor", "К 24 июля курс юаня к рублю составил", []string{"2025-07-24"}},
		{"day month without year, after anchor: the year before", "прогноз на USD/EUR к 3 декабря (Раньше всех", []string{"2024-12-03"}},
		{"study timeline bullet with a second date", "* 2025-08-05 — ЦБ РФ с 7 августа сократил объём продажи валюты", []string{"2025-08-05", "2025-08-07"}},
		{"study header", "* Актуальная дата: 2025-09-04", []string{"2025-09-04"}},
		{"asof bullet", "- 2025-09-03 — Банк России сохранил ключевую ставку на уровне 18%. [3]", []string{"2025-09-03"}},
		{"dotted", "Заседание совета директоров 12.09.2025 г.", []string{"2025-09-12"}},
		{"English day month year", "The central bank raised the key rate to 18% on 28 June 2024. [1]", []string{"2024-06-28"}},
		{"English month day year", "On Sep 4, 2025 the rouble fell; on September 1st it rose.", []string{"2025-09-04", "2025-09-01"}},
		{"English abbreviated with dot", "Jan. 5 and 4 Sept. 2025", []string{"2025-01-05", "2025-09-04"}},
		{"month and year only is no day", "в июле 2025 года ЦБ установил курс, в 2024 году", nil},
		{"month name running on is no month", "12 маяков и 3 марта", []string{"2025-03-03"}},
		{"impossible day", "31.02.2025 и 2025-13-01", nil},
		{"29 February without a year before a leap year", "29 февраля", nil},
		{"numbers that are not dates", "ставка 18%, курс 78,5 рубля, 1,5% ВВП, 12–14%", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range sumeval.Dates(tt.text, anchor, false) {
				got = append(got, d.Day.Format(time.DateOnly))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Dates(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// studySummary is the head of a real study summary (rag, q000), shortened.
const studySummary = `### 1) Запрос и актуальная дата
* Запрос: Актуальный курс доллара
* Актуальная дата: 2025-09-04

### 2) Дайджест
Последнее время, с июля по июнь 2025 года, курс доллара продолжал снижаться. 29 мая 2025 года, согласно данным Риа Новости, официальный курс доллара от ЦБ опустился ниже 79 рублей, составив 78,5 рубля.

### 3) Таймлайн
* 2024-11-14 — курс доллара выше 100 рублей
* 2025-07-28 — курс доллара ниже внебиржевого на полтора рубля
* 2025-09-04 — курс на сегодня`

// studyContext is the head of that answer's context (three of its blocks).
const studyContext = `АКТУАЛЬНАЯ ДАТА ОБЗОРА: 2025-09-04
ВОПРОС/ЗАПРОС:
Актуальный курс доллара

ИСТОЧНИКИ:
[1] date=2025-09-04 channel=Блумберг
 document=Курс доллара на сегодня.

[2] date=2025-07-28 channel(s)=Банки, деньги, два офшора
 document=Свежий курс доллара от ЦБ оказался меньше внебиржевого на полтора рубля. @bankrollo

[5] date=2024-11-14 channel=Экономика 
 document=Курс доллара теперь стоит выше 100 рублей. С 29 мая курс ниже.
`

// asofBrief is an extractive summary of asof as of 2025-09-04: one new claim, two earlier
// ones (the second cites a block the context lacks), all three again in the timeline. A reader
// sees "New in the last 7 days" and "Timeline" (render.ViewOf), four claims.
func asofBrief() *schemas.Brief {
	c := func(date, text string, n int) schemas.Claim {
		return schemas.Claim{Date: day(date).Add(9 * time.Hour), Text: text, Cites: []int{n}}
	}
	now := c("2025-09-03", "ЦБ сохранил ставку; заседание 12 сентября.", 1)
	rouble := c("2025-08-20", "Курс доллара опустился ниже 80 рублей 19 августа.", 2)
	oil := c("2025-08-01", "Нефть подешевела.", 7)
	return &schemas.Brief{Method: "extractive", AsOf: day("2025-09-04"), NewDays: 7,
		New: []schemas.Claim{now}, Earlier: []schemas.Claim{rouble, oil}, Timeline: []schemas.Claim{oil, rouble, now}}
}

// timeline is a brief of the given timeline claims and no "new" window.
func timeline(cs ...schemas.Claim) *schemas.Brief {
	return &schemas.Brief{Method: "extractive", AsOf: day("2025-09-04"), Timeline: cs}
}

var asofBlocks = []sumeval.Block{
	{N: 1, Date: day("2025-09-03"), Text: "ЦБ сохранил ставку; заседание 12 сентября."},
	{N: 2, Date: day("2025-08-20"), Text: "Курс доллара опустился ниже 80 рублей 18 августа."},
}

func TestParseStudyContext(t *testing.T) {
	bs := sumeval.ParseStudyContext(studyContext)
	var got []string
	for _, b := range bs {
		got = append(got, b.Date.Format(time.DateOnly))
	}
	if want := []string{"2025-09-04", "2025-07-28", "2024-11-14"}; !slices.Equal(got, want) || bs[2].N != 5 {
		t.Fatalf("blocks %v (last N %d), want %v (5)", got, bs[2].N, want)
	}
	if bs[1].Text != "Банки, деньги, два офшора\n document=Свежий курс доллара от ЦБ оказался меньше внебиржевого на полтора рубля. @bankrollo" {
		t.Errorf("block 2 text %q", bs[1].Text)
	}
}

func TestDateMetrics(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name  string
		a     sumeval.Answer
		rules sumeval.Rules
		want  sumeval.DateMetrics
	}{
		{"study, header dropped, anchor in the body kept",
			sumeval.Answer{Format: sumeval.FormatStudy, Anchor: day("2025-09-04"), Blocks: sumeval.ParseStudyContext(studyContext), Summary: studySummary},
			sumeval.DefaultRules(),
			// 2025-05-29 (98 days), 2024-11-14 (294), 2025-07-28 (38), 2025-09-04 (0); "с июля по июнь" has no day.
			sumeval.DateMetrics{Dates: 4, MinAgeContext: 0, MinAgeSummary: 0, Gap: 0, Within7: 0.25, Within30: 0.25}},
		{"study rules: ISO only, every anchor date dropped",
			sumeval.Answer{Format: sumeval.FormatStudy, Anchor: day("2025-09-04"), Blocks: sumeval.ParseStudyContext(studyContext), Summary: studySummary},
			sumeval.StudyRules(),
			sumeval.DateMetrics{Dates: 2, MinAgeContext: 0, MinAgeSummary: 38, Gap: 38, Within7: 0, Within30: 0}},
		{"asof extractive: the claims a reader sees, new then timeline",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: asofBlocks, Brief: asofBrief()},
			sumeval.DefaultRules(),
			// New: 09-03 (1), 12 September (2024-09-12: after the anchor in 2025, so the year
			// before: 357); Timeline: 08-01 (34), 08-20 (15), 08-19 (16); the new claim is not
			// shown again there, and the Earlier section is not shown: neither is counted.
			sumeval.DateMetrics{Dates: 5, MinAgeContext: 1, MinAgeSummary: 1, Gap: 0, Within7: 1.0 / 5, Within30: 3.0 / 5}},
		{"asof extractive under the study's rules: claim dates are ISO, the anchor's are dropped",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: asofBlocks,
				Brief: timeline(schemas.Claim{Date: day("2025-09-04"), Text: "Сегодня 4 сентября.", Cites: []int{1}}, schemas.Claim{Date: day("2025-09-03"), Text: "Вчера.", Cites: []int{1}})},
			sumeval.StudyRules(),
			sumeval.DateMetrics{Dates: 1, MinAgeContext: 1, MinAgeSummary: 1, Gap: 0, Within7: 1, Within30: 1}},
		{"asof not enough: the anchor line is a header",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Brief: &schemas.Brief{AsOf: day("2025-09-04"), NotEnough: true}},
			sumeval.DefaultRules(),
			sumeval.DateMetrics{MinAgeContext: nan, MinAgeSummary: nan, Gap: nan, Within7: nan, Within30: nan}},
		{"asof empty answer: its note names the window, not evidence",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"),
				Brief: &schemas.Brief{Method: "none", AsOf: day("2025-09-04"), NotEnough: true, Note: "No documents in that period (2027-01-01..2025-09-04) as of 2025-09-04."}},
			sumeval.DefaultRules(),
			sumeval.DateMetrics{MinAgeContext: nan, MinAgeSummary: nan, Gap: nan, Within7: nan, Within30: nan}},
		{"asof answer without a brief",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: asofBlocks},
			sumeval.DefaultRules(),
			sumeval.DateMetrics{MinAgeContext: 1, MinAgeSummary: nan, Gap: nan, Within7: nan, Within30: nan}},
		{"future summary date counts but has no age",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: asofBlocks[:1],
				Brief: timeline(schemas.Claim{Date: day("2025-09-03"), Text: "Заседание 2025-10-24.", Cites: []int{1}})},
			sumeval.DefaultRules(),
			sumeval.DateMetrics{Dates: 2, MinAgeContext: 1, MinAgeSummary: 1, Gap: 0, Within7: 1, Within30: 1}},
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sumeval.DateMetricsOf(tt.a, tt.rules)
			if got.Dates != tt.want.Dates || !same(got.MinAgeContext, tt.want.MinAgeContext) || !same(got.MinAgeSummary, tt.want.MinAgeSummary) ||
				!same(got.Gap, tt.want.Gap) || !same(got.Within7, tt.want.Within7) || !same(got.Within30, tt.want.Within30) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestCitations(t *testing.T) {
	tests := []struct {
		name string
		a    sumeval.Answer
		want sumeval.CitationMetrics
	}{
		{"asof: the date the block's text states is supported, one it does not state is not, [7] names no block",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: asofBlocks, Brief: asofBrief()},
			// 4 claims shown (new, then the timeline of 3); [7] is bad. Unsupported: 19 августа
			// (block 2 states 18 августа) and 2025-08-01 (its claim cites no existing block).
			// "12 сентября" is read as 2024-09-12 in the summary (as of 2025-09-04) and in block 1
			// (as of 2025-09-03): supported, twice.
			sumeval.CitationMetrics{Claims: 3, Cited: 2, BadCitations: 1, DatesChecked: 5, DatesUnsupported: 2}},
		{"asof: a claim that cites nothing supports no date",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: asofBlocks, Brief: timeline(schemas.Claim{Date: day("2025-08-20"), Text: "Курс упал."})},
			sumeval.CitationMetrics{Claims: 1, DatesChecked: 1, DatesUnsupported: 1}},
		{"asof: several citations",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: asofBlocks, Brief: timeline(
				schemas.Claim{Date: day("2025-08-20"), Text: "Курс 18 августа.", Cites: []int{1, 2}}, schemas.Claim{Date: day("2025-09-03"), Text: "Ставка.", Cites: []int{1, 2}})},
			sumeval.CitationMetrics{Claims: 2, Cited: 2, DatesChecked: 3}},
		{"asof: the note and the not-enough line are not claims",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: asofBlocks,
				Brief: &schemas.Brief{AsOf: day("2025-09-04"), NotEnough: true, Note: "Weak match [3] on 2025-09-01."}},
			sumeval.CitationMetrics{}},
		{"asof: a day without a year means the same day in the block and in the summary",
			sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: []sumeval.Block{{N: 1, Date: day("2025-03-01"), Text: "Выплата 15 марта."}},
				Brief: timeline(schemas.Claim{Date: day("2025-03-01"), Text: "Выплата 15 марта.", Cites: []int{1}})},
			// "15 марта" is 2025-03-15 as of 2025-09-04 and 2024-03-15 as of the block's 2025-03-01.
			sumeval.CitationMetrics{Claims: 1, Cited: 1, DatesChecked: 2}},
		{"study: no markers, dates checked against the whole context",
			sumeval.Answer{Format: sumeval.FormatStudy, Anchor: day("2025-09-04"), Blocks: sumeval.ParseStudyContext(studyContext), Summary: studySummary},
			// claims: 2 digest sentences + 3 timeline bullets (header dropped); dates 05-29 (block 5
			// states "С 29 мая", read as of 2024-11-14 → 2024-05-29: unsupported), 11-14 ✓, 07-28 ✓, 09-04 ✓.
			sumeval.CitationMetrics{Claims: 5, DatesChecked: 4, DatesUnsupported: 1, WholeContext: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sumeval.CitationsOf(tt.a); got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestScoresWhatTheReaderSaw renders briefs of every shape as Markdown, the way a reader
// gets them, reads the claim lines back with a parser of this test's own, and checks that
// sumeval, which reads the Brief, scores exactly those lines: the same claims in the same
// order, and as many dates as the claim lines state.
func TestScoresWhatTheReaderSaw(t *testing.T) {
	anchor := day("2025-09-04")
	legacy := asofBrief()
	legacy.NewDays, legacy.AsOf = 0, time.Time{} // stored before the window and the day were recorded
	tests := []struct {
		name  string
		brief *schemas.Brief
		lines int
	}{
		{"extractive: new, then the timeline without the new claim again", asofBrief(), 3},
		{"a brief stored before new_days", legacy, 3},
		{"evolution", &schemas.Brief{AsOf: anchor, Then: asofBrief().Earlier, Now: asofBrief().New}, 3},
		{"weak match with a note", &schemas.Brief{AsOf: anchor, NewDays: 7, Note: "Weak match 2025-09-01.", New: []schemas.Claim{}, Timeline: asofBrief().Earlier}, 2},
		{"not enough with partial claims", &schemas.Brief{AsOf: anchor, NewDays: 1, NotEnough: true, Timeline: asofBrief().New}, 1},
		{"timeline empty: built from new and earlier", &schemas.Brief{AsOf: anchor, NewDays: 7, New: asofBrief().New, Earlier: asofBrief().Earlier}, 3},
		{"nothing new: the latest leads", &schemas.Brief{AsOf: anchor, NewDays: 7, New: []schemas.Claim{}, Earlier: asofBrief().Earlier, Timeline: asofBrief().Earlier}, 2},
		{"not enough", &schemas.Brief{AsOf: anchor, NotEnough: true}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks := []schemas.ContextBlock{{N: 1, PublishedAt: day("2025-09-03"), Title: "ЦБ 2025-09-03"}, {N: 2, PublishedAt: day("2025-08-20")}}
			md := render.Markdown(*tt.brief, blocks)
			var seen []string // the claim lines of the rendered summary
			for line := range strings.Lines(md) {
				line = strings.TrimSuffix(line, "\n")
				if line == "### Sources" {
					break
				}
				if rest, ok := strings.CutPrefix(line, "- "); ok {
					seen = append(seen, rest)
				}
			}
			a := sumeval.Answer{Format: sumeval.FormatAsof, Anchor: anchor, Blocks: asofBlocks, Brief: tt.brief}
			var scored []string
			for _, c := range sumeval.Claims(a) {
				// sumeval keeps the block numbers; the reader sees them numbered 1..n.
				scored = append(scored, render.ClaimLine(schemas.Claim{Date: c.Date, Text: c.Text, Cites: render.NumberingOf(*tt.brief).Shown(c.Cites)}))
			}
			if !slices.Equal(scored, seen) || len(seen) != tt.lines {
				t.Fatalf("sumeval scores\n%q\nthe reader saw (%d lines wanted)\n%q\nin\n%s", scored, tt.lines, seen, md)
			}
			dates := len(sumeval.Dates(strings.Join(seen, "\n"), anchor, false))
			if got := sumeval.DateMetricsOf(a, sumeval.DefaultRules()).Dates; got != dates {
				t.Errorf("%d dates scored, the claim lines state %d:\n%s", got, dates, md)
			}
			if a.Text() != render.Markdown(*tt.brief, nil) {
				t.Errorf("the grader reads\n%s\nnot the rendered summary", a.Text())
			}
		})
	}
}

// TestMeanJSON: a Mean crosses a workflow boundary (activity result) and must come back equal.
func TestMeanJSON(t *testing.T) {
	for _, m := range []sumeval.Mean{{}, {Sum: 0.1 + 0.2, N: 3}} {
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back sumeval.Mean
		if err := json.Unmarshal(data, &back); err != nil || back != m {
			t.Errorf("%s decoded to %+v (%v), want %+v", data, back, err, m)
		}
	}
}
