package intent

import (
	"reflect"
	"testing"
)

// form is one expected reading: mode, bounds, Empty, Fresh, cues and text.
type form struct {
	name     string
	q        string
	asOf     string // "" means anchor (2024-05-15)
	mode     Mode
	from, to string // "" means zero
	empty    bool
	fresh    bool
	cues     []string
	text     string
}

func checkForms(t *testing.T, tests []form) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asOf := anchor
			if tt.asOf != "" {
				asOf = day0(tt.asOf)
			}
			r := Parse(tt.q, asOf)
			got := []any{r.Mode, fmtDay(r.From), fmtDay(r.To), r.Empty, r.Fresh, r.Cues, r.Text}
			want := []any{tt.mode, tt.from, tt.to, tt.empty, tt.fresh, tt.cues, tt.text}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse(%q)\n got %v\nwant %v\n%s", tt.q, got, want, r.Explain())
			}
		})
	}
}

func cues(c ...string) []string { return c }

func TestParseSeasonsThirdsDecadesAgo(t *testing.T) {
	const R, W = Recency, Window
	checkForms(t, []form{
		// Russian.
		{"ru month year without год", "инфляция в марте 2024", "", W, "2024-03-01", "2024-03-31", false, false, cues("в марте 2024"), "инфляция"},
		{"ru spring year", "ставка весной 2023", "", W, "2023-03-01", "2023-05-31", false, false, cues("весной 2023"), "ставка"},
		{"ru spring year года", "ставка весной 2023 года", "", W, "2023-03-01", "2023-05-31", false, false, cues("весной 2023 года"), "ставка"},
		{"ru last spring", "ставка прошлой весной", "", W, "2023-03-01", "2023-05-31", false, false, cues("прошлой весной"), "ставка"},
		{"ru last summer", "ставка прошлым летом", "", W, "2023-06-01", "2023-08-31", false, false, cues("прошлым летом"), "ставка"},
		{"ru this summer not begun", "ставка этим летом", "", R, "2024-06-01", "2024-08-31", true, false, cues("этим летом"), "ставка этим летом"},
		{"ru summer", "ставка летом", "", W, "2023-06-01", "2023-08-31", false, false, cues("летом"), "ставка"},
		{"ru summer in autumn", "ставка летом", "2024-10-01", W, "2024-06-01", "2024-08-31", false, false, cues("летом"), "ставка"},
		{"ru winter spans new year", "ставка зимой", "", W, "2023-12-01", "2024-02-29", false, false, cues("зимой"), "ставка"},
		{"ru since spring", "ставка с весны 2023 года", "", W, "2023-03-01", "2024-05-15", false, false, cues("с весны 2023 года"), "ставка"},
		{"ru spring of last year", "ставка весной прошлого года", "", W, "2023-03-01", "2023-05-31", false, false, cues("весной прошлого года"), "ставка"},
		{"ru month of last year", "ставка в марте прошлого года", "", W, "2023-03-01", "2023-03-31", false, false, cues("в марте прошлого года"), "ставка"},
		{"ru month of this year", "ставка в марте этого года", "", W, "2024-03-01", "2024-03-31", false, false, cues("в марте этого года"), "ставка"},
		{"ru early year", "ставка в начале 2024 года", "", W, "2024-01-01", "2024-04-30", false, false, cues("в начале 2024 года"), "ставка"},
		{"ru mid year", "ставка в середине 2019 года", "", W, "2019-05-01", "2019-08-31", false, false, cues("в середине 2019 года"), "ставка"},
		{"ru end of last year", "ставка в конце прошлого года", "", W, "2023-09-01", "2023-12-31", false, false, cues("в конце прошлого года"), "ставка"},
		{"ru by the end of year", "ставка к концу 2023 года", "", W, "2023-09-01", "2023-12-31", false, false, cues("к концу 2023 года"), "ставка"},
		{"ru end of yearless month", "ставка в конце марта", "", W, "2024-03-21", "2024-03-31", false, false, cues("в конце марта"), "ставка"},
		{"ru since start of the year", "инфляция с начала года", "", W, "2024-01-01", "2024-05-15", false, false, cues("с начала года"), "инфляция"},
		{"ru end of the year is ahead", "прогноз ставки на конец года", "", R, "2024-09-01", "2024-12-31", true, false, cues("на конец года"), "прогноз ставки на конец года"},
		{"ru a year ago", "ставка год назад", "", W, "2022-11-14", "2023-11-13", false, false, cues("год назад"), "ставка"},
		{"ru two years ago", "ставка два года назад", "", W, "2021-11-14", "2022-11-13", false, false, cues("два года назад"), "ставка"},
		{"ru a month ago тому", "ставка месяц тому назад", "", W, "2024-03-31", "2024-04-30", false, false, cues("месяц тому назад"), "ставка"},
		{"ru a week ago is fresh", "ставка неделю назад", "", R, "2024-05-05", "2024-05-11", false, true, cues("неделю назад"), "ставка"},
		{"ru 3 days ago", "ставка 3 дня назад", "", R, "2024-05-12", "2024-05-12", false, true, cues("3 дня назад"), "ставка"},
		{"ru 5 years ago", "ставка 5 лет назад", "", W, "2018-11-14", "2019-11-13", false, false, cues("5 лет назад"), "ставка"},
		{"ru decade two digits", "рынок в 90-х годах", "", W, "1990-01-01", "1999-12-31", false, false, cues("в 90-х годах"), "рынок"},
		{"ru decade", "рынок в 2010-х годах", "", W, "2010-01-01", "2019-12-31", false, false, cues("в 2010-х годах"), "рынок"},
		{"ru decade е годы", "рынок в 2000-е годы", "", W, "2000-01-01", "2009-12-31", false, false, cues("в 2000-е годы"), "рынок"},
		{"ru rubles", "скидка 500 рублей", "", R, "", "", false, false, nil, "скидка 500 рублей"},

		// English seasons.
		{"last spring", "rates last spring", "", W, "2023-03-01", "2023-05-31", false, false, cues("last spring"), "rates"},
		{"last spring in autumn", "rates last spring", "2024-10-10", W, "2024-03-01", "2024-05-31", false, false, cues("last spring"), "rates"},
		{"this summer ahead", "rates this summer", "", R, "2024-06-01", "2024-08-31", true, false, cues("this summer"), "rates this summer"},
		{"this summer in autumn", "rates this summer", "2024-10-10", W, "2024-06-01", "2024-08-31", false, false, cues("this summer"), "rates"},
		{"this winter in January", "rates this winter", "2024-01-10", W, "2023-12-01", "2024-01-10", false, false, cues("this winter"), "rates"},
		{"last winter in January", "rates last winter", "2024-01-10", W, "2022-12-01", "2023-02-28", false, false, cues("last winter"), "rates"},
		{"last fall", "rates last fall", "", W, "2023-09-01", "2023-11-30", false, false, cues("last fall"), "rates"},
		{"in spring year", "rates in spring 2021", "", W, "2021-03-01", "2021-05-31", false, false, cues("in spring 2021"), "rates"},
		{"the summer of", "floods in the summer of 2020", "", W, "2020-06-01", "2020-08-31", false, false, cues("in the summer of 2020"), "floods"},
		{"the fall of year", "banks in the fall of 2008", "", W, "2008-09-01", "2008-11-30", false, false, cues("in the fall of 2008"), "banks"},
		{"in the winter", "rates in the winter", "", W, "2023-12-01", "2024-02-29", false, false, cues("in the winter"), "rates"},
		{"summer of last year", "rates in the summer of last year", "", W, "2023-06-01", "2023-08-31", false, false, cues("in the summer of last year"), "rates"},
		{"in the fall is not a date", "rates in the fall", "", R, "", "", false, false, nil, "rates in the fall"},
		{"fall the verb", "stocks fall 2000 points", "", R, "", "", false, false, nil, "stocks fall 2000 points"},
		{"fall the verb this year", "did prices fall this year", "", W, "2024-01-01", "2024-05-15", false, false, cues("this year"), "did prices fall"},
		{"fall the noun", "the fall of the ruble in 2014", "", W, "2014-01-01", "2014-12-31", false, false, cues("in 2014"), "the fall of the ruble"},

		// English thirds.
		{"early year", "rates early 2020", "", W, "2020-01-01", "2020-04-30", false, false, cues("early 2020"), "rates"},
		{"in early year", "rates in early 2020", "", W, "2020-01-01", "2020-04-30", false, false, cues("in early 2020"), "rates"},
		{"mid-year", "rates mid-2019", "", W, "2019-05-01", "2019-08-31", false, false, cues("mid-2019"), "rates"},
		{"late year", "rates late 2022", "", W, "2022-09-01", "2022-12-31", false, false, cues("late 2022"), "rates"},
		{"end of year", "rates at the end of 2023", "", W, "2023-09-01", "2023-12-31", false, false, cues("at the end of 2023"), "rates"},
		{"end of last year", "rates by the end of last year", "", W, "2023-09-01", "2023-12-31", false, false, cues("by the end of last year"), "rates"},
		{"late last year", "layoffs late last year", "", W, "2023-09-01", "2023-12-31", false, false, cues("late last year"), "layoffs"},
		{"early this year", "layoffs early this year", "", W, "2024-01-01", "2024-04-30", false, false, cues("early this year"), "layoffs"},
		{"late quarter", "sales late Q3 2023", "", W, "2023-09-01", "2023-09-30", false, false, cues("late Q3 2023"), "sales"},
		{"in early month", "rates in early March", "", W, "2024-03-01", "2024-03-10", false, false, cues("in early March"), "rates"},
		{"mid-month", "rates in mid-March 2023", "", W, "2023-03-11", "2023-03-20", false, false, cues("in mid-March 2023"), "rates"},
		{"since the start of the year", "returns since the start of the year", "", W, "2024-01-01", "2024-05-15", false, false, cues("since the start of the year"), "returns"},
		{"early month needs a preposition", "rates early March", "", R, "", "", false, false, nil, "rates early March"},
		{"late payments", "late payments in 2020", "", W, "2020-01-01", "2020-12-31", false, false, cues("in 2020"), "late payments"},
		{"the end of the war", "the end of the war", "", R, "", "", false, false, nil, "the end of the war"},
		{"late may the verb", "rates late may change", "", R, "", "", false, false, nil, "rates late may change"},
		{"start is not early", "start 2024 strong", "", R, "", "", false, false, nil, "start 2024 strong"},

		// Decades.
		{"decade", "music in the 2010s", "", W, "2010-01-01", "2019-12-31", false, false, cues("in the 2010s"), "music"},
		{"decade 1990s", "music in the 1990s", "", W, "1990-01-01", "1999-12-31", false, false, cues("in the 1990s"), "music"},
		{"year 1990 is not the decade", "music in 1990", "", W, "1990-01-01", "1990-12-31", false, false, cues("in 1990"), "music"},
		{"decade apostrophe", "1990's music", "", W, "1990-01-01", "1999-12-31", false, false, cues("1990's"), "music"},
		{"late decade", "music of the late 1990s", "", W, "1996-09-01", "1999-12-31", false, false, cues("of the late 1990s"), "music"},
		{"decade not ten", "music in the 1995s", "", R, "", "", false, false, nil, "music in the 1995s"},
		{"two digits are not a decade in English", "temperatures in the 90s", "", R, "", "", false, false, nil, "temperatures in the 90s"},

		// Ago.
		{"a year ago", "rates a year ago", "", W, "2022-11-14", "2023-11-13", false, false, cues("a year ago"), "rates"},
		{"two years ago", "rates two years ago", "", W, "2021-11-14", "2022-11-13", false, false, cues("two years ago"), "rates"},
		{"a month ago from March 31", "rates a month ago", "2024-03-31", W, "2024-02-14", "2024-03-15", false, false, cues("a month ago"), "rates"},
		{"3 weeks ago", "rates 3 weeks ago", "", W, "2024-04-21", "2024-04-27", false, false, cues("3 weeks ago"), "rates"},
		{"a week ago is fresh", "rates a week ago", "", R, "2024-05-05", "2024-05-11", false, true, cues("a week ago"), "rates"},
		{"yesterday is fresh", "rates 1 day ago", "", R, "2024-05-14", "2024-05-14", false, true, cues("1 day ago"), "rates"},
		{"years ago without a number", "years ago the rate was low", "", R, "", "", false, false, nil, "years ago the rate was low"},
		{"a few years ago", "a few years ago", "", R, "", "", false, false, nil, "a few years ago"},

		// Year to date, glued quarters, relative years.
		{"YTD", "YTD returns", "", W, "2024-01-01", "2024-05-15", false, false, cues("YTD"), "returns"},
		{"year-to-date", "year-to-date returns", "", W, "2024-01-01", "2024-05-15", false, false, cues("year-to-date"), "returns"},
		{"year to is not YTD", "year to 2020", "", R, "", "", false, false, nil, "year to 2020"},
		{"glued quarter", "2023Q3 revenue", "", W, "2023-07-01", "2023-09-30", false, false, cues("2023Q3"), "revenue"},
		{"glued half", "2024H1 revenue", "", W, "2024-01-01", "2024-05-15", false, false, cues("2024H1"), "revenue"},
		{"month this year", "rates in March this year", "", W, "2024-03-01", "2024-03-31", false, false, cues("in March this year"), "rates"},
		{"month of last year", "rates in March of last year", "", W, "2023-03-01", "2023-03-31", false, false, cues("in March of last year"), "rates"},
		{"slashed date", "news on 2021/3/5", "", W, "2021-03-05", "2021-03-05", false, false, cues("on 2021/3/5"), "news"},
		{"dotted ISO date", "news 2021.03.05", "", W, "2021-03-05", "2021-03-05", false, false, cues("2021.03.05"), "news"},
		{"mixed separators are not a date", "version 2021.3/5", "", R, "", "", false, false, nil, "version 2021.3/5"},

		// Numbers that are not years.
		{"rubles", "500 rubles", "", R, "", "", false, false, nil, "500 rubles"},
		{"phone number", "call 8-800-2020-2021", "", R, "", "", false, false, nil, "call 8-800-2020-2021"},
		{"year range is two numbers", "oil 2019-2021", "", W, "2019-01-01", "2021-12-31", false, false, cues("2019-2021"), "oil"},
	})
}
