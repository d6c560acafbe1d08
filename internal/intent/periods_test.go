package intent

import (
	"testing"
	"time"
)

// TestPeriods: a question that compares named periods lists each (Reading.Periods), oldest
// first, in English, Russian and Chinese; one period, an open range without a change, a week's
// news that names an older year in passing, a question about the past and a period before an
// unbounded start list none.
func TestPeriods(t *testing.T) {
	d := day0
	y := func(n int) Span {
		return Span{time.Date(n, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(n, 12, 31, 0, 0, 0, 0, time.UTC)}
	}
	asOf := d("2024-03-20")
	for _, tc := range []struct {
		q    string
		want []Span
	}{
		{"What were Audi's operating profit figures in 2023 and 2022?", []Span{y(2022), y(2023)}},
		{"What were the delivery numbers for Bentley 2022 and 2023?", []Span{y(2022), y(2023)}},
		{"How do Audi's 2012 and 2014 deliveries and revenue compare?", []Span{y(2012), y(2014)}},
		{"What were the participation rates in 2016, 2019 and 2023?", []Span{y(2016), y(2019), y(2023)}},
		{"How did the equity ratio change from 2020 to 2021?", []Span{y(2020), y(2021)}},
		{"How did profit before tax compare between 2021 and 2017?", []Span{y(2017), y(2021)}},
		{"How has the fleet's CO2 changed since 2019?", []Span{y(2019), {asOf, asOf}}},
		{"Revenue in Q1 2020 vs Q1 2021", []Span{{d("2020-01-01"), d("2020-03-31")}, {d("2021-01-01"), d("2021-03-31")}}},
		{"Сколько автомобилей выпустили в 2021 и 2023 годах?", []Span{y(2021), y(2023)}},
		{"Как изменилась выручка с 2019 по 2022 год?", []Span{y(2019), y(2022)}},
		{"2020年11月和2021年6月的A股表现如何变化？", []Span{{d("2020-11-01"), d("2020-11-30")}, {d("2021-06-01"), d("2021-06-30")}}},
		{"Deliveries in 2023", nil},
		{"What happened between 2019 and 2021?", nil},
		{"Which tech giant settled this week a case of discrimination in 2018 and 2019?", nil},
		{"Which came first, the plant in 2019 or 2021?", nil},
		{"Revenue before 2020 and in 2023", nil},
		{"Targets for 2023 and 2030", nil}, // 2030 is after the anchor: one period is left
	} {
		r := Parse(tc.q, asOf)
		if len(r.Periods) != len(tc.want) {
			t.Errorf("%q: periods %v, want %v (%s)", tc.q, r.Periods, tc.want, r.Explain())
			continue
		}
		for i := range tc.want {
			if !r.Periods[i].From.Equal(tc.want[i].From) || !r.Periods[i].To.Equal(tc.want[i].To) {
				t.Errorf("%q: period %d %v, want %v", tc.q, i, r.Periods[i], tc.want[i])
			}
		}
	}
}

// TestStated: the period a title says its document is about, as of its publication day.
func TestStated(t *testing.T) {
	d := day0
	for _, tc := range []struct {
		title     string
		published string
		from, to  string // "" for none
	}{
		{"Audi Report 2020 > Make or buy?", "2021-03-18", "2020-01-01", "2020-12-31"},
		{"Audi Corporate Responsibility Interim Report 2015 > Prof. Dr.-Ing. Wilhelm Bauer", "2016-04-15", "2015-01-01", "2015-12-31"},
		{"Q3 2023 results", "2023-11-02", "2023-07-01", "2023-09-30"},
		{"Итоги 2021 года", "2022-01-20", "2021-01-01", "2021-12-31"},
		{"2021年年度报告", "2022-04-28", "2021-01-01", "2021-12-31"},
		{"Inflation in March 2024", "2024-04-10", "2024-03-01", "2024-03-31"},
		{"Outlook 2025", "2024-03-19", "", ""},      // a plan: after the day
		{"Markets this week", "2024-03-19", "", ""}, // relative to the day
		{"Prices since 2019", "2024-03-19", "", ""}, // an open range
		{"Central bank raises key rate", "2024-03-19", "", ""},
		{"", "2024-03-19", "", ""},
	} {
		s, ok := Stated(tc.title, d(tc.published))
		if tc.from == "" {
			if ok {
				t.Errorf("%q: stated %v, want none", tc.title, s)
			}
			continue
		}
		if !ok || !s.From.Equal(d(tc.from)) || !s.To.Equal(d(tc.to)) {
			t.Errorf("%q: stated %v (%v), want %s..%s", tc.title, s, ok, tc.from, tc.to)
		}
	}
}

// TestTwoRangesCompared: two ranges compared are the periods, not their ends; sharing a year,
// they merge into one and no comparison of periods is read.
func TestTwoRangesCompared(t *testing.T) {
	a := day0("2024-01-01")
	if r := Parse("Насколько выше были темпы обезлесения с 2000 по 2005 год по сравнению с периодом с 1995 по 2000 год?", a); r.Periods != nil {
		t.Errorf("periods %v: want none (the two ranges share 2000)", r.Periods)
	}
	r := Parse("compare inflation from 2001 to 2005 with inflation from 2011 to 2015", a)
	if len(r.Periods) != 2 || r.Periods[0].From != day0("2001-01-01") || r.Periods[0].To != day0("2005-12-31") || r.Periods[1].From != day0("2011-01-01") {
		t.Errorf("periods %v: want 2001–2005 and 2011–2015", r.Periods)
	}
	if r := Parse("how did the rate change from 2020 to 2023", a); len(r.Periods) != 2 || r.Periods[0].To != day0("2020-12-31") {
		t.Errorf("periods %v: want the range's two ends, 2020 and 2023", r.Periods)
	}
}
