package intent

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// anchor is the default "as of" day: Wednesday 2024-05-15 (ISO week 20 runs 05-13..05-19).
var anchor = day0("2024-05-15")

func day0(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParse(t *testing.T) {
	const R, W, E = Recency, Window, Evolution
	tests := []struct {
		name     string
		q        string
		asOf     string // "" means anchor
		mode     Mode
		from, to string // "" means zero
		empty    bool
		text     string
	}{
		// Plain queries and years.
		{"plain", "  key rate  decision ", "", R, "", "", false, "key rate  decision"},
		{"in year", "inflation in 2015", "", W, "2015-01-01", "2015-12-31", false, "inflation"},
		{"during year", "GDP during 2015?", "", W, "2015-01-01", "2015-12-31", false, "GDP?"},
		{"year word", "2015 year results", "", W, "2015-01-01", "2015-12-31", false, "results"},
		{"of year", "crisis of 2008", "", W, "2008-01-01", "2008-12-31", false, "crisis"},
		{"for year", "Budget for 2019, approved", "", W, "2019-01-01", "2019-12-31", false, "Budget, approved"},
		{"bare year is not a date", "the 2008 crisis", "", R, "", "", false, "the 2008 crisis"},
		{"count is not a year", "top 500 companies in 500 cities", "", R, "", "", false, "top 500 companies in 500 cities"},
		{"decade is named in passing, not a year", "music in the 2020s", "", R, "2020-01-01", "2024-05-15", false, "music in the 2020s"},
		{"year out of range", "in 2200", "", R, "", "", false, "in 2200"},
		{"over a count is not a year", "over 2000 companies", "", R, "", "", false, "over 2000 companies"},
		{"на a count is not a year", "скидка на 2000 рублей", "", R, "", "", false, "скидка на 2000 рублей"},
		{"на year with год", "бюджет на 2025 год", "2025-06-01", W, "2025-01-01", "2025-06-01", false, "бюджет"},
		{"на a month is the coming one", "Что решили страны ОПЕК+ по добыче нефти на август?", "2025-07-08", R, "2025-08-01", "2025-08-31", true, "Что решили страны ОПЕК+ по добыче нефти на август?"},
		{"на the current month", "план на июль", "2025-07-08", W, "2025-07-01", "2025-07-08", false, "план"},
		{"в a month is the last one", "добыча нефти в августе", "2025-07-08", W, "2024-08-01", "2024-08-31", false, "добыча нефти"},
		{"only a date keeps text", "in 2015", "", W, "2015-01-01", "2015-12-31", false, "in 2015"},
		{"future year is what was said before it", "elections in 2030", "", R, "2030-01-01", "2030-12-31", true, "elections in 2030"},
		{"two ranges merge", "rates in 2015 and in 2020", "", W, "2015-01-01", "2020-12-31", false, "rates"},
		{"from year alone", "articles from 2020", "", W, "2020-01-01", "2020-12-31", false, "articles"},
		{"ru year locative", "инфляция в 2015 году", "", W, "2015-01-01", "2015-12-31", false, "инфляция"},
		{"ru year accusative", "ставка за 2015 год", "", W, "2015-01-01", "2015-12-31", false, "ставка"},
		{"ru bare year after preposition", "ВВП в 2015", "", W, "2015-01-01", "2015-12-31", false, "ВВП"},
		{"ru year with г.", "отчёт за 2015 г. опубликован", "", W, "2015-01-01", "2015-12-31", false, "отчёт опубликован"},
		{"ru glued г", "выборы 2018г", "", W, "2018-01-01", "2018-12-31", false, "выборы"},
		{"ru future year", "в 2030 году", "", R, "2030-01-01", "2030-12-31", true, "в 2030 году"},

		// Quarters and halves.
		{"Q4", "inflation Q4 2023", "", W, "2023-10-01", "2023-12-31", false, "inflation"},
		{"4Q", "4Q 2023 earnings", "", W, "2023-10-01", "2023-12-31", false, "earnings"},
		{"fourth quarter of", "earnings in the fourth quarter of 2023", "", W, "2023-10-01", "2023-12-31", false, "earnings"},
		{"4th quarter", "4th quarter 2023 GDP", "", W, "2023-10-01", "2023-12-31", false, "GDP"},
		{"Q1 boundary", "Q1 2024", "", W, "2024-01-01", "2024-03-31", false, "Q1 2024"},
		{"Q1 ends on anchor", "Q1 2024 sales", "2024-03-31", W, "2024-01-01", "2024-03-31", false, "sales"},
		{"Q1 clamped", "Q1 2024 sales", "2024-03-30", W, "2024-01-01", "2024-03-30", false, "sales"},
		{"Q2 after anchor", "Q2 2024 sales", "2024-03-31", R, "2024-04-01", "2024-06-30", true, "Q2 2024 sales"},
		{"Q3 future", "in Q3 2024", "", R, "2024-07-01", "2024-09-30", true, "in Q3 2024"},
		{"ru quarter", "4 квартал 2023", "", W, "2023-10-01", "2023-12-31", false, "4 квартал 2023"},
		{"ru quarter ё", "выручка в четвёртом квартале 2023 года", "", W, "2023-10-01", "2023-12-31", false, "выручка"},
		{"ru quarter е", "выручка в четвертом квартале 2023 года", "", W, "2023-10-01", "2023-12-31", false, "выручка"},
		{"ru roman quarter", "прибыль за III квартал 2023 г.", "", W, "2023-07-01", "2023-09-30", false, "прибыль"},
		{"ru quarter 2-й", "прибыль во 2-м квартале 2023 года", "", W, "2023-04-01", "2023-06-30", false, "прибыль"},
		{"H1 clamped", "H1 2024 sales", "", W, "2024-01-01", "2024-05-15", false, "sales"},
		{"first half of", "sales first half of 2023", "", W, "2023-01-01", "2023-06-30", false, "sales"},
		{"2H", "2H 2023 outlook", "", W, "2023-07-01", "2023-12-31", false, "outlook"},
		{"ru half", "первое полугодие 2024", "", W, "2024-01-01", "2024-05-15", false, "первое полугодие 2024"},
		{"ru half locative", "рост во втором полугодии 2023 года", "", W, "2023-07-01", "2023-12-31", false, "рост"},
		{"yearless quarter", "банки в первом квартале", "", W, "2024-01-01", "2024-03-31", false, "банки"},

		// Months and days.
		{"month year", "March 2024 inflation", "", W, "2024-03-01", "2024-03-31", false, "inflation"},
		{"in month year", "inflation in March 2024", "", W, "2024-03-01", "2024-03-31", false, "inflation"},
		{"leap February", "inflation in Feb 2024", "", W, "2024-02-01", "2024-02-29", false, "inflation"},
		{"common February", "inflation in February 2023", "", W, "2023-02-01", "2023-02-28", false, "inflation"},
		{"1900 not leap", "February 1900", "", W, "1900-02-01", "1900-02-28", false, "February 1900"},
		{"2000 leap", "February of 2000 prices", "", W, "2000-02-01", "2000-02-29", false, "prices"},
		{"30-day month", "April 2024 jobs", "", W, "2024-04-01", "2024-04-30", false, "jobs"},
		{"abbrev with dot", "Sept. 2023 jobs", "", W, "2023-09-01", "2023-09-30", false, "jobs"},
		{"current month clamped", "May 2024 jobs", "", W, "2024-05-01", "2024-05-15", false, "jobs"},
		{"yearless month", "inflation in March", "", W, "2024-03-01", "2024-03-31", false, "inflation"},
		{"yearless month last year", "inflation in March", "2024-02-10", W, "2023-03-01", "2023-03-31", false, "inflation"},
		{"yearless abbrev is not a month", "rates in mar", "", R, "", "", false, "rates in mar"},
		{"ru month locative", "инфляция в марте 2024 года", "", W, "2024-03-01", "2024-03-31", false, "инфляция"},
		{"ru month genitive", "данные с 1 марта 2024", "", W, "2024-03-01", "2024-05-15", false, "данные"},
		{"ru month nominative", "март 2024", "", W, "2024-03-01", "2024-03-31", false, "март 2024"},
		{"ru May", "в мае 2023 года", "", W, "2023-05-01", "2023-05-31", false, "в мае 2023 года"},
		{"ru yearless May", "ставка в мае", "", W, "2024-05-01", "2024-05-15", false, "ставка"},
		{"ru марш is not March", "марш 2024", "", R, "", "", false, "марш 2024"},
		{"day month year", "rally on March 5, 2024", "", W, "2024-03-05", "2024-03-05", false, "rally"},
		{"ru day month year", "заседание 26 апреля 2024 года", "", W, "2024-04-26", "2024-04-26", false, "заседание"},
		{"ISO day", "CPI on 2024-03-01", "", W, "2024-03-01", "2024-03-01", false, "CPI"},
		{"ISO bare", "2024-02-29 report", "", W, "2024-02-29", "2024-02-29", false, "report"},
		{"ISO invalid day", "2023-02-29 report", "", R, "", "", false, "2023-02-29 report"},
		{"ISO month", "CPI 2024-03", "", W, "2024-03-01", "2024-03-31", false, "CPI"},
		{"dotted day", "заседание 15.03.2024", "", W, "2024-03-15", "2024-03-15", false, "заседание"},

		// Ranges.
		{"between months", "rates between March and May 2024", "", W, "2024-03-01", "2024-05-15", false, "rates"},
		{"from month to month", "from March to May 2023", "", W, "2023-03-01", "2023-05-31", false, "from March to May 2023"},
		{"month range across new year", "sales from December to February 2024", "", W, "2023-12-01", "2024-02-29", false, "sales"},
		{"ru month range", "ставка с марта по май 2023", "", W, "2023-03-01", "2023-05-31", false, "ставка"},
		{"ru yearless month range", "инфляция с января по март", "", W, "2024-01-01", "2024-03-31", false, "инфляция"},
		{"ru month dash range", "инфляция за январь-март 2024", "", W, "2024-01-01", "2024-03-31", false, "инфляция"},
		{"from year to year", "oil from 2019 to 2021", "", W, "2019-01-01", "2021-12-31", false, "oil"},
		{"between years", "oil between 2019 and 2021", "", W, "2019-01-01", "2021-12-31", false, "oil"},
		{"hyphen years", "oil 2019-2021", "", W, "2019-01-01", "2021-12-31", false, "oil"},
		{"en dash years", "oil 2019–2021", "", W, "2019-01-01", "2021-12-31", false, "oil"},
		{"backwards years", "oil from 2021 to 2019", "", W, "2019-01-01", "2021-12-31", false, "oil"},
		{"years to now", "oil from 2019 to now", "", W, "2019-01-01", "2024-05-15", false, "oil"},
		{"ru year range", "нефть с 2019 по 2021 год", "", W, "2019-01-01", "2021-12-31", false, "нефть"},
		{"ru year range dash", "нефть в 2019-2021 годах", "", W, "2019-01-01", "2021-12-31", false, "нефть"},
		{"ISO range", "news from 2024-03-01 to 2024-03-15", "", W, "2024-03-01", "2024-03-15", false, "news"},
		{"range into future", "plan from 2023 to 2030", "", W, "2023-01-01", "2024-05-15", false, "plan"},
		{"since year", "rates since 2020", "", W, "2020-01-01", "2024-05-15", false, "rates"},
		{"since month", "rates since March 2024", "", W, "2024-03-01", "2024-05-15", false, "rates"},
		{"since future", "rates since 2030", "", R, "2030-01-01", "2024-05-15", true, "rates since 2030"},
		{"from year onwards", "rates from 2020 onwards", "", W, "2020-01-01", "2024-05-15", false, "rates"},
		{"after year", "rates after 2022", "", W, "2023-01-01", "2024-05-15", false, "rates"},
		{"before year", "rates before 2020", "", W, "", "2019-12-31", false, "rates"},
		{"until year", "rates until 2020", "", W, "", "2020-12-31", false, "rates"},
		{"before future clamps", "rates before 2030", "", W, "", "2024-05-15", false, "rates"},
		{"ru since year", "ставка с 2020 года", "", W, "2020-01-01", "2024-05-15", false, "ставка"},
		{"ru before year", "ставка до 2020 года", "", W, "", "2019-12-31", false, "ставка"},
		{"since last year", "rates since last year", "", W, "2023-01-01", "2024-05-15", false, "rates"},
		{"ru since last year", "ставка с прошлого года", "", W, "2023-01-01", "2024-05-15", false, "ставка"},

		// Relative ranges.
		{"today", "rates today", "", R, "2024-05-15", "2024-05-15", false, "rates"},
		{"yesterday", "rates yesterday", "", R, "2024-05-14", "2024-05-14", false, "rates"},
		{"this week", "news this week", "", R, "2024-05-13", "2024-05-15", false, "news"},
		{"past week", "news over the past week", "", R, "2024-05-09", "2024-05-15", false, "news"},
		{"last week", "news last week", "", R, "2024-05-06", "2024-05-12", false, "news"},
		{"past 30 days", "news in the past 30 days", "", W, "2024-04-16", "2024-05-15", false, "news"},
		{"last 3 months", "news in the last 3 months", "", W, "2024-02-16", "2024-05-15", false, "news"},
		{"past two weeks", "news for the past two weeks", "", W, "2024-05-02", "2024-05-15", false, "news"},
		{"past 2 years", "news over the past 2 years", "", W, "2022-05-16", "2024-05-15", false, "news"},
		{"past year", "news from the past year", "", W, "2023-05-16", "2024-05-15", false, "news"},
		{"this month", "news this month", "", W, "2024-05-01", "2024-05-15", false, "news"},
		{"last month", "news last month", "", W, "2024-04-01", "2024-04-30", false, "news"},
		{"this year", "news this year", "", W, "2024-01-01", "2024-05-15", false, "news"},
		{"current year", "GDP in the current year", "", W, "2024-01-01", "2024-05-15", false, "GDP"},
		{"last year", "news last year", "", W, "2023-01-01", "2023-12-31", false, "news"},
		{"this quarter", "sales this quarter", "", W, "2024-04-01", "2024-05-15", false, "sales"},
		{"last quarter", "sales last quarter", "", W, "2024-01-01", "2024-03-31", false, "sales"},
		{"ru today", "новости сегодня", "", R, "2024-05-15", "2024-05-15", false, "новости"},
		{"ru yesterday", "что было вчера", "", R, "2024-05-14", "2024-05-14", false, "что было"},
		{"ru this week", "новости на этой неделе", "", R, "2024-05-13", "2024-05-15", false, "новости"},
		{"ru past week", "новости за последнюю неделю", "", R, "2024-05-09", "2024-05-15", false, "новости"},
		{"ru last week", "новости на прошлой неделе", "", R, "2024-05-06", "2024-05-12", false, "новости"},
		{"ru past 30 days", "новости за последние 30 дней", "", W, "2024-04-16", "2024-05-15", false, "новости"},
		{"ru past three years words", "ставка за последние три года", "", W, "2021-05-16", "2024-05-15", false, "ставка"},
		{"ru this month", "новости в этом месяце", "", W, "2024-05-01", "2024-05-15", false, "новости"},
		{"ru last month", "новости в прошлом месяце", "", W, "2024-04-01", "2024-04-30", false, "новости"},
		{"ru this year", "инфляция в этом году", "", W, "2024-01-01", "2024-05-15", false, "инфляция"},
		{"ru current year", "инфляция в текущем году", "", W, "2024-01-01", "2024-05-15", false, "инфляция"},
		{"ru last year", "инфляция в прошлом году", "", W, "2023-01-01", "2023-12-31", false, "инфляция"},
		{"ru last quarter", "прибыль в прошлом квартале", "", W, "2024-01-01", "2024-03-31", false, "прибыль"},
		{"ru past year", "ставка за последний год", "", W, "2023-05-16", "2024-05-15", false, "ставка"},

		// Calendar edges.
		{"last month in January", "news last month", "2024-01-10", W, "2023-12-01", "2023-12-31", false, "news"},
		{"ru last month in January", "новости в прошлом месяце", "2024-01-10", W, "2023-12-01", "2023-12-31", false, "новости"},
		{"last month is leap February", "news last month", "2024-03-31", W, "2024-02-01", "2024-02-29", false, "news"},
		{"past month from March 31", "news in the past month", "2024-03-31", W, "2024-03-01", "2024-03-31", false, "news"},
		{"past month from May 31", "news in the past month", "2024-05-31", W, "2024-05-01", "2024-05-31", false, "news"},
		{"past year from leap day", "news in the past year", "2024-02-29", W, "2023-03-01", "2024-02-29", false, "news"},
		{"last quarter in January", "sales last quarter", "2024-01-15", W, "2023-10-01", "2023-12-31", false, "sales"},
		{"this quarter on its last day", "sales this quarter", "2024-03-31", W, "2024-01-01", "2024-03-31", false, "sales"},
		{"this quarter on its first day", "sales this quarter", "2024-04-01", W, "2024-04-01", "2024-04-01", false, "sales"},
		{"last year on January 1", "news last year", "2024-01-01", W, "2023-01-01", "2023-12-31", false, "news"},
		{"this week on Monday", "news this week", "2024-05-13", R, "2024-05-13", "2024-05-13", false, "news"},
		{"last week on Monday", "news last week", "2024-05-13", R, "2024-05-06", "2024-05-12", false, "news"},
		{"this week on Sunday", "news this week", "2024-05-19", R, "2024-05-13", "2024-05-19", false, "news"},
		{"last week on Sunday", "news last week", "2024-05-19", R, "2024-05-06", "2024-05-12", false, "news"},
		{"last week across new year", "news last week", "2025-01-01", R, "2024-12-23", "2024-12-29", false, "news"},
		{"this week across new year", "news this week", "2025-01-01", R, "2024-12-30", "2025-01-01", false, "news"},
		{"yesterday across new year", "news yesterday", "2024-01-01", R, "2023-12-31", "2023-12-31", false, "news"},

		// Recency cues.
		{"latest", "latest key rate decision", "", R, "", "", false, "key rate decision"},
		{"current", "current inflation", "", R, "", "", false, "inflation"},
		{"now", "what is the rate now?", "", R, "", "", false, "what is the rate?"},
		{"up to date", "up-to-date guidance", "", R, "", "", false, "guidance"},
		{"today's", "today's headlines", "", R, "", "", false, "headlines"},
		{"as of today", "rate as of today", "", R, "", "", false, "rate"},
		{"recent weeks", "layoffs in recent weeks", "", R, "", "", false, "layoffs"},
		{"only a cue keeps text", "latest", "", R, "", "", false, "latest"},
		{"ru actual", "актуальная ключевая ставка", "", R, "", "", false, "ключевая ставка"},
		{"ru now", "что сейчас с рублём", "", R, "", "", false, "что с рублём"},
		{"ru current", "текущая инфляция", "", R, "", "", false, "инфляция"},
		{"ru latest news", "последние новости о ставке", "", R, "", "", false, "о ставке"},
		{"ru fresh", "свежие данные по инфляции", "", R, "", "", false, "данные по инфляции"},
		{"ru recent months", "ставка за последние месяцы", "", R, "", "", false, "ставка"},
		{"ru as of today", "ставка на сегодня", "", R, "", "", false, "ставка"},

		// Change cues.
		{"how has changed since", "how has the key rate changed since 2020", "", E, "2020-01-01", "2024-05-15", false, "the key rate"},
		{"how did change", "how did inflation change", "", E, "", "", false, "inflation"},
		{"how has evolved", "How has AI regulation evolved?", "", E, "", "", false, "AI regulation?"},
		{"evolution of", "evolution of the key rate", "", E, "", "", false, "the key rate"},
		{"over time", "inflation over time", "", E, "", "", false, "inflation"},
		{"over the years", "ruble over the years", "", E, "", "", false, "ruble"},
		{"then and now", "rates then and now", "", E, "", "", false, "rates"},
		{"history with range", "history of the ruble between 2014 and 2016", "", E, "2014-01-01", "2016-12-31", false, "the ruble"},
		{"change over past years", "how has the key rate changed over the past 5 years", "", E, "2019-05-16", "2024-05-15", false, "the key rate"},
		{"what changed", "what changed since 2020", "", E, "2020-01-01", "2024-05-15", false, "what changed since 2020"},
		{"ru what changed", "что изменилось в банках", "", E, "", "", false, "в банках"},
		{"how to change is not a change cue", "how to change password", "", R, "", "", false, "how to change password"},
		{"ru how changed since", "как изменилась ключевая ставка с 2020 года", "", E, "2020-01-01", "2024-05-15", false, "ключевая ставка"},
		{"ru how changed apart", "как за десять лет изменилась ставка", "", E, "", "", false, "за десять лет ставка"},
		{"ru how was changing", "как менялся курс рубля", "", E, "", "", false, "курс рубля"},
		{"ru evolution", "эволюция ключевой ставки", "", E, "", "", false, "ключевой ставки"},
		{"ru dynamics with range", "динамика инфляции за последние 3 года", "", E, "2021-05-16", "2024-05-15", false, "инфляции"},
		{"ru how to change is not a change cue", "как изменить пароль", "", R, "", "", false, "как изменить пароль"},

		// Precedence.
		{"range beats recency", "latest news in March 2024", "", W, "2024-03-01", "2024-03-31", false, "news"},
		{"change beats recency", "how has the current rate changed", "", E, "", "", false, "the rate"},
		{"change with future range is empty", "how has the rate changed since 2030", "", E, "2030-01-01", "2024-05-15", true, "the rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asOf := anchor
			if tt.asOf != "" {
				asOf = day0(tt.asOf)
			}
			r := Parse(tt.q, asOf)
			got := []any{r.Mode, r.From, r.To, r.Empty, r.Text}
			want := []any{tt.mode, day0(tt.from), day0(tt.to), tt.empty, tt.text}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse(%q) = %s %s..%s empty=%v text=%q\nwant            %s %s..%s empty=%v text=%q\n%s",
					tt.q, r.Mode, fmtDay(r.From), fmtDay(r.To), r.Empty, r.Text,
					tt.mode, tt.from, tt.to, tt.empty, tt.text, r.Explain())
			}
		})
	}
}

func fmtDay(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

func TestCues(t *testing.T) {
	tests := []struct {
		name, q string
		want    []string
	}{
		{"none", "key rate", nil},
		{"window", "Inflation In 2015", []string{"In 2015"}},
		{"recency", "Latest news, now", []string{"Latest", "now"}},
		{"change and range in order", "How has the key rate Changed since 2020", []string{"How has", "Changed", "since 2020"}},
		{"ru change touching", "Как изменилась ставка", []string{"Как изменилась"}},
		{"recency does not decide a window", "latest news in March 2024", []string{"in March 2024"}},
		{"recency does not decide evolution", "how did the current rate change", []string{"how did", "change"}},
		{"ru quarter ё kept as written", "в четвёртом квартале 2023 года", []string{"в четвёртом квартале 2023 года"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse(tt.q, anchor).Cues; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q).Cues = %q, want %q", tt.q, got, tt.want)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	tests := []struct{ q, want string }{
		{"inflation in 2015", `window 2015-01-01..2015-12-31 (from "in 2015")`},
		{"key rate", `recency (no date in query)`},
		{"latest key rate", `recency, fresher preferred (from "latest")`},
		{"how has the key rate changed since 2020", `evolution since 2020-01-01 (from "how has", "changed", "since 2020")`},
		{"как менялась ставка", `evolution (from "как менялась")`},
		{"rates before 2020", `window until 2019-12-31 (from "before 2020")`},
		{"rates yesterday", `recency, fresher preferred 2024-05-14 (from "yesterday")`},
		{"rates in the past 10 days", `window since 2024-05-06 (from "in the past 10 days")`},
		{"rates this week", `recency, fresher preferred since 2024-05-13 (from "this week")`},
		{"rates this week in 2023", `window since 2023-01-01 (from "this week", "in 2023")`},
		{"elections in 2030", `recency 2030-01-01..2030-12-31: after 2024-05-15, so what was published by then (from "in 2030")`},
	}
	for _, tt := range tests {
		if got := Parse(tt.q, anchor).Explain(); got != tt.want {
			t.Errorf("Parse(%q).Explain() =\n  %s\nwant\n  %s", tt.q, got, tt.want)
		}
	}
}

// TestFresh: recency cues and relative periods of at most seven days ask for fresh news (recency
// with Fresh, never a window: the weekly quiz's answer is often older than the week); longer or
// explicit periods stay windows.
func TestFresh(t *testing.T) {
	tests := []struct {
		name, q string
		mode    Mode
		fresh   bool
	}{
		{"plain", "key rate", Recency, false},
		{"latest", "latest key rate", Recency, true},
		{"recently", "which company recently announced layoffs", Recency, true},
		{"this week", "who won the election this week?", Recency, true},
		{"past week", "news over the past week", Recency, true},
		{"last week", "news last week", Recency, true},
		{"today", "rates today", Recency, true},
		{"ru this week", "новости на этой неделе", Recency, true},
		{"past 7 days", "news in the past 7 days", Recency, true},
		{"past 8 days", "news in the past 8 days", Window, false},
		{"past two weeks", "news for the past two weeks", Window, false},
		{"this month", "news this month", Window, false},
		{"explicit year", "elections in 2015", Window, false},
		{"this week and a year", "rates this week in 2023", Window, false},
		{"a change this week is fresh news, not a history", "how has the rate changed this week", Recency, true},
		{"ru a change this week", "Как менялся курс доллара на этой неделе?", Recency, true},
		{"a change over a longer period is a history", "how has the rate changed this year", Evolution, false},
		{"one change at the last meeting is not a history", "how did the key rate change at the last meeting?", Recency, false},
		{"ru one change at the last meeting", "Как изменилась ключевая ставка по итогам последнего заседания ЦБ?", Recency, false},
		{"zh the latest change", "央行最近一次利率如何变化？", Recency, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse(tt.q, anchor)
			if r.Mode != tt.mode || r.Fresh != tt.fresh {
				t.Errorf("Parse(%q) = %s fresh=%v, want %s fresh=%v (%s)", tt.q, r.Mode, r.Fresh, tt.mode, tt.fresh, r.Explain())
			}
		})
	}
}

func TestAnchorIsUTCDay(t *testing.T) {
	ny := time.FixedZone("UTC-5", -5*3600)
	r := Parse("news today", time.Date(2024, 5, 15, 23, 30, 0, 0, ny)) // 2024-05-16 04:30 UTC
	if want := day0("2024-05-16"); !r.From.Equal(want) || !r.To.Equal(want) || !r.AsOf.Equal(want) {
		t.Fatalf("today as of 23:30 UTC-5 = %s..%s (as of %s), want 2024-05-16", fmtDay(r.From), fmtDay(r.To), fmtDay(r.AsOf))
	}
}

// checkInvariants holds for every query and anchor.
func checkInvariants(t *testing.T, q string, asOf time.Time) {
	t.Helper()
	r := Parse(q, asOf)
	y, m, d := asOf.UTC().Date()
	a := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	switch {
	case r.Empty && !r.From.After(a):
		t.Fatalf("Parse(%q, %s): Empty but From %s is not after A", q, fmtDay(a), fmtDay(r.From))
	case !r.Empty && r.To.After(a):
		t.Fatalf("Parse(%q, %s): To %s after A", q, fmtDay(a), fmtDay(r.To))
	case !r.Empty && r.From.After(r.To):
		t.Fatalf("Parse(%q, %s): From %s after To %s", q, fmtDay(a), fmtDay(r.From), fmtDay(r.To))
	case r.Mode == Window && r.To.IsZero():
		t.Fatalf("Parse(%q, %s): window without To", q, fmtDay(a))
	case r.Mode == Recency && !r.Fresh && !r.Empty && !r.Soft && (!r.From.IsZero() || !r.To.IsZero()):
		t.Fatalf("Parse(%q, %s): recency with bounds", q, fmtDay(a))
	case r.Soft && (r.Mode != Recency || r.Empty || r.To.IsZero() || r.Text != strings.TrimSpace(q)):
		t.Fatalf("Parse(%q, %s): soft reading %s empty=%v text %q", q, fmtDay(a), r.Mode, r.Empty, r.Text)
	case r.Mode == Recency && r.Fresh && !r.Soft && (r.To.Sub(r.From) >= recentDays*24*time.Hour || r.From.After(a)):
		t.Fatalf("Parse(%q, %s): recency with a period %s..%s longer than %d days", q, fmtDay(a), fmtDay(r.From), fmtDay(r.To), recentDays)
	case strings.TrimSpace(q) != "" && r.Text == "":
		t.Fatalf("Parse(%q, %s): empty Text", q, fmtDay(a))
	}
	for _, c := range r.Cues {
		if !strings.Contains(q, c) {
			t.Fatalf("Parse(%q): cue %q is not in the query", q, c)
		}
	}
	if r.Explain() == "" {
		t.Fatalf("Parse(%q): empty Explain", q)
	}
}

// TestParseProperties builds random queries from a phrase bank and checks the invariants for
// random anchors in 1995..2030.
func TestParseProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	bank := []string{
		"inflation", "key rate", "ставка", "ВВП", "500", "companies", "?", ",", "-", "–",
		"in 2015", "during 2030", "2019-2021", "from 2021 to 2019", "between March and May 2024",
		"с марта по май", "Q4 2023", "4Q 2031", "fourth quarter of 1999", "в четвёртом квартале 2023 года",
		"H2 2024", "первое полугодие 2025", "March 2024", "в марте", "in May", "Feb 2000",
		"2024-02-29", "on 2023-02-29", "from 2024-03-01 to 2024-03-15", "15.03.2024", "since 2020",
		"с 2020 года", "before 2020", "до 2030 года", "until 1990", "after 2029", "today", "вчера",
		"this week", "last week", "past week", "на прошлой неделе", "past 30 days", "last 12 months",
		"за последние 3 года", "this month", "last month", "в прошлом месяце", "this year",
		"last year", "this quarter", "last quarter", "в прошлом квартале", "recent weeks", "latest",
		"сейчас", "актуальная", "how has", "changed", "как", "изменилась", "evolution of",
		"over time", "then and now", "динамика", "from", "to", "between", "and", "since", "before",
		"с", "по", "до", "в", "за", "the", "year", "год", "quarter", "квартал",
		"last spring", "this summer", "in the winter", "летом", "прошлой весной", "весной 2023 года",
		"early 2020", "mid-2019", "late", "end of", "в конце", "начала", "in the 2010s", "1990s", "90-х",
		"a year ago", "3 weeks ago", "год назад", "ago", "назад", "YTD", "2023Q3", "2021/3/5",
		"2021年3月5日", "2021年", "3月", "三月份", "年", "月", "日", "至", "到", "以来", "以前", "之后",
		"2019—2021年", "2023年第三季度", "2023年Q3", "上半年", "下半年", "今年", "去年", "前年", "明年",
		"本月", "上个月", "本周", "上周", "今天", "昨天", "近三个月", "过去一年", "最近一周", "最近",
		"最新", "如何变化", "演变", "前后对比", "去年春天", "2021年冬季", "二〇二一年", "２０２１年",
		"90年代", "一年前", "三天前", "年初", "底", "初", "中国", "2000元", "截至", "自", "前", "后",
	}
	for range 5000 {
		var parts []string
		for range 1 + rng.IntN(6) {
			parts = append(parts, bank[rng.IntN(len(bank))])
		}
		asOf := time.Date(1995+rng.IntN(36), time.January, 1+rng.IntN(366), rng.IntN(24), 0, 0, 0, time.UTC)
		checkInvariants(t, strings.Join(parts, " "), asOf)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"inflation in 2015", "с марта по май 2024", "Q4 2023", "how has X changed since 2020",
		"2024-03-01", "past 9999 years", "last 0 days", "01.13.2024", "в 2019–2021 годах",
		"today's", "up-to-date", "\xff\xfe 2015", "ё’ 4-м квартале 2023 г.",
		"2021年3月5日", "2019—2021年的油价", "自2020年以来房价如何变化", "２０２１年第三季度末",
		"二〇二一年三月份", "近三个月", "半年前", "上世纪80年代末", "2月29日至3月1日",
		"late last spring", "в конце прошлого года", "mid-1990s", "9999 years ago", "год назад",
	} {
		f.Add(s, int64(19858))
	}
	f.Fuzz(func(t *testing.T, q string, days int64) {
		days %= 200 * 365 // anchors within ±200 years of 1970
		checkInvariants(t, q, time.Unix(days*86400, 0))
	})
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		Parse("how has the key rate changed between March and May 2024 compared with 2019", anchor)
	}
}

func BenchmarkParseChinese(b *testing.B) {
	for b.Loop() {
		Parse("美联储利率政策自2020年以来如何变化，与2019年第三季度相比", anchor)
	}
}

// TestPeriod: a window read from named periods is the time of an event (Period); an open
// range bounds the search.
func TestPeriod(t *testing.T) {
	for _, tc := range []struct {
		name, q, asOf string
		period        bool
	}{
		{"a month", "Насколько ускорилась инфляция в ноябре?", "2024-12-13", true},
		{"a year", "elections in 2015", "", true},
		{"early in a month, up to the anchor", "Что произошло с программой льготной ипотеки в начале июля?", "2024-07-03", true},
		{"a half", "Какие компании отчитались об убытках за первое полугодие?", "2025-09-03", true},
		{"a Chinese month", "2021年3月的降息", "", true},
		{"a closed range of years", "inflation from 2019 to 2021", "", true},
		{"since", "rates since 2020", "", false},
		{"before", "rates before 2020", "", false},
		{"zh since", "2020年以来的利率", "", false},
		{"zh until", "截至2023年的利率", "", false},
		{"a change over a period is evolution, not a period", "how has the rate changed since 2020", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := anchor
			if tc.asOf != "" {
				a = day0(tc.asOf)
			}
			if r := Parse(tc.q, a); r.Period != tc.period {
				t.Errorf("Parse(%q).Period = %v, want %v (%s)", tc.q, r.Period, tc.period, r.Explain())
			}
		})
	}
}

// TestPast: questions about the past — the order of events, when something happened, how long
// ago, a first time — in English, Russian and Chinese set Past, with their cue words out of the
// text; with a named period they keep it (auto searches the whole past, the dates as words); a
// recency cue or a recent week wins; a change on one day is that day's news, not a history;
// Chinese "N years ago" is the time of what is asked (English "two years ago" only sets the
// scene); "N years ago today" and "N years ago in May" are that day and that month.
func TestPast(t *testing.T) {
	tests := []struct {
		name, q  string
		mode     Mode
		past     bool
		from, to string // the period, "" for none
		text     string // "" to skip
	}{
		{"en when did", "When did Pelosi first become speaker?", Recency, true, "", "", "Pelosi first become speaker?"},
		{"en which came first", "Which came first, the iPhone or the iPod?", Recency, true, "", "", ""},
		{"en how long ago", "how long ago was the euro introduced", Recency, true, "", "", ""},
		{"en in what year", "In what year did the Berlin Wall fall?", Recency, true, "", "", ""},
		{"en a first time is news, not a cue", "For the first time in 20 years, the dollar equals which currency?", Recency, false, "", "", ""},
		{"en when will is not the past", "when will the rate be cut", Recency, false, "", "", "when will the rate be cut"},
		{"en latest wins", "when was the latest rate decision", Recency, false, "", "", ""},
		{"en this week wins", "when did the strike start this week", Recency, false, "2024-05-13", "2024-05-15", ""},
		{"en dated", "when did the Fed raise rates in March 2023", Window, true, "2023-03-01", "2023-03-31", ""},
		{"ru когда", "Когда была введена семейная ипотека?", Recency, true, "", "", "введена семейная ипотека?"},
		{"ru what happened first", "Что произошло раньше: отключение от SWIFT или заморозка резервов?", Recency, true, "", "", ""},
		{"ru впервые", "Когда ЦБ впервые поднял ставку до 21%?", Recency, true, "", "", ""},
		{"ru в каком году", "В каком году ввели налог на роскошь?", Recency, true, "", "", ""},
		{"ru сколько лет назад", "Сколько лет назад запустили СБП?", Recency, true, "", "", ""},
		{"ru historical high is not history", "Рубль упал до исторического минимума", Recency, false, "", "", ""},
		{"zh when", "冬季风暴吉雅是什么时候横扫美国的？", Recency, true, "", "", ""},
		{"zh which first", "戈恩在贝鲁特跨年、碧翠丝公主举行婚礼和中国加入WTO，哪一个事件发生得更早？", Recency, true, "", "", ""},
		{"zh same month", "马英九终止卸任领导人礼遇和30年期特别国债的发行是在同一个月吗？", Recency, true, "", "", ""},
		{"zh on that day", "中国移动正式在A股上市当天，中国邮政发行了什么特种邮票？", Recency, true, "", "", ""},
		{"zh first time", "LPR改革之后房贷利率首次出现了什么变化？", Recency, true, "", "", ""},
		{"zh which day", "张某是在哪一天被抓获的？", Recency, true, "", "", ""},
		{"zh latest wins", "最近一次降息是什么时候？", Recency, false, "", "", ""},
		{"zh dated", "约翰逊承诺英国将于2019年10月31日脱欧，这一承诺是在什么时候提出的？", Window, true, "2019-10-31", "2019-10-31", ""},
		{"zh N years ago: about the past", "四年前阿盟在哪个城市举行的外长会议？", Recency, true, "2019-11-15", "2020-11-13", ""},
		{"zh N years ago today", "四年前的今天，中国国奥队在U23亚洲杯的表现如何？", Window, false, "2020-05-15", "2020-05-15", "中国国奥队在U23亚洲杯的表现如何？"},
		{"zh N years ago in May", "两年前5月地铁房山线哪一站被封闭？", Window, false, "2022-05-01", "2022-05-31", "地铁房山线哪一站被封闭？"},
		{"zh N years ago, the week", "一年前的这个星期，习近平总书记访问了哪个地方？", Window, false, "2023-05-15", "2023-05-21", ""},
		{"zh a change on one day is that day's news", "融资余额在2019年1月21日出现了怎样的变化？", Window, false, "2019-01-21", "2019-01-21", ""},
		{"en a change on one day", "how did the markets change on March 5, 2024", Window, false, "2024-03-05", "2024-03-05", ""},
		{"en a change over a year is a history", "how has the rate changed in 2023", Evolution, false, "2023-01-01", "2023-12-31", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse(tt.q, anchor)
			if r.Mode != tt.mode || r.Past != tt.past {
				t.Fatalf("Parse(%q) = %s past=%v, want %s past=%v (%s)", tt.q, r.Mode, r.Past, tt.mode, tt.past, r.Explain())
			}
			if tt.from != "" && (r.From.Format(time.DateOnly) != tt.from || r.To.Format(time.DateOnly) != tt.to) {
				t.Fatalf("Parse(%q) period %s..%s, want %s..%s (%s)", tt.q, r.From.Format(time.DateOnly), r.To.Format(time.DateOnly), tt.from, tt.to, r.Explain())
			}
			if tt.text != "" && r.Text != tt.text {
				t.Fatalf("Parse(%q) text %q, want %q", tt.q, r.Text, tt.text)
			}
			if r.Past && !strings.Contains(r.Explain(), "about the past") {
				t.Errorf("Parse(%q).Explain() = %q: want it to say so", tt.q, r.Explain())
			}
		})
	}
}
