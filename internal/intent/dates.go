package intent

import (
	"slices"
	"strings"
	"time"
)

// The date grammar: each matcher takes a token index and returns the index after its match.

const (
	// inPreps may open a date phrase: "in 2015", "over the past week", "в марте".
	inPreps = "in|during|of|for|throughout|within|over|from|on|в|во|за|на"
	// barePreps are the prepositions after which a bare number is a year.
	barePreps    = "in|during|of|for|throughout|from|в|во|за"
	yearWords    = "year|год|года|году|годы|годах|годом|годами|г"
	monthAbbrevs = "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)

// dateExpr matches a date phrase at i: a range, an open range, or [preposition] period.
func (p *parser) dateExpr(i int) (int, span, bool) {
	if j, s, ok := p.between(i); ok {
		return j, s, true
	}
	if j, s, ok := p.open(i); ok {
		return j, s, true
	}
	k, bare := p.preps(i)
	if j, s, ok := p.point(k, bare); ok {
		return j, s, true
	}
	if p.is(i, inPreps) { // "in March", "в первом квартале"
		return p.yearless(k)
	}
	return i, span{}, false
}

// dateExprRel is dateExpr, with p.rel telling whether the match was a period relative to A.
func (p *parser) dateExprRel(i int) (int, span, bool) {
	p.rel = false
	j, s, ok := p.dateExpr(i)
	p.rel = ok && p.rel
	return j, s, ok
}

// preps skips a preposition and "the"; bare reports one of the prepositions that let a bare
// number read as a year ("in 2015", but not "2015 companies" or "over 2000 companies").
func (p *parser) preps(i int) (k int, bare bool) {
	if p.is(i, inPreps) {
		bare = p.is(i, barePreps)
		i = p.skip(i+1, "течение") // "в течение"
	}
	return p.skip(i, "the"), bare
}

// between matches "[from|between|in] X (to|and|-) Y". X may lack the year Y has ("between
// March and May 2024"), Y may lack a year too ("с января по март") or be now.
func (p *parser) between(i int) (int, span, bool) {
	k, join := i, "to|till|until|through|thru|по|до|-|–|—"
	if p.is(k, "between|между") {
		k, join = k+1, "and|и|"+join
	} else if p.is(k, "from|с|со") {
		k++
	} else {
		k, _ = p.preps(k)
	}
	k = p.skip(k, "the")
	j, first, ok := p.point(k, true)
	var at func(int) span
	if !ok {
		if j, at, ok = p.partial(k); !ok {
			return i, span{}, false
		}
	}
	if !p.is(j, join) {
		return i, span{}, false
	}
	j = p.skip(j+1, "the")
	e, second, ok := p.point(j, true)
	if !ok {
		e, second, ok = p.yearless(j) // "с января по март"
	}
	if !ok {
		if e, ok = p.seq(j, "now|today|present|date|сейчас|сегодня|настоящ*", "?время|момент|день"); !ok {
			return i, span{}, false
		}
		second = span{p.a, p.a}
	}
	if at != nil {
		first = latest(at, second.from)
	}
	return e, hull(first, second), true
}

// openLeads are the words that open a range, with its kind.
var openLeads = []struct {
	kind  string
	words []string
}{
	{"since", []string{"since|с|со"}}, {"since", []string{"starting|beginning|начиная", "?from|in|with|с|со"}},
	{"from", []string{"from"}}, {"after", []string{"after|после"}},
	{"before", []string{"before|до"}}, {"before", []string{"prior", "to"}},
	{"until", []string{"until|till|through|thru"}}, {"until", []string{"up", "to|until"}}, {"until", []string{"as", "of"}},
}

// open matches an open range: since, after, before, until X.
func (p *parser) open(i int) (int, span, bool) {
	for _, l := range openLeads {
		k, ok := p.seq(i, l.words...)
		if !ok {
			continue
		}
		k = p.skip(k, "the")
		j, s, ok := p.point(k, true)
		if !ok {
			if j, s, ok = p.yearless(k); !ok {
				return i, span{}, false
			}
		}
		switch l.kind {
		case "from":
			if !p.is(j, "on|onward|onwards") {
				return i, span{}, false // plain "from 2020" is read as "in 2020"
			}
			return j + 1, span{s.from, p.a}, true
		case "since":
			return j, span{s.from, p.a}, true
		case "after":
			return j, span{s.to.AddDate(0, 0, 1), p.a}, true
		case "before":
			return j, span{time.Time{}, s.from.AddDate(0, 0, -1)}, true
		}
		return j, span{time.Time{}, s.to}, true
	}
	return i, span{}, false
}

// point matches one period: a date, a month, quarter or half with its year, a year (a bare
// number only if bare), or a period relative to A.
func (p *parser) point(i int, bare bool) (int, span, bool) {
	if j, s, ok := p.numericDate(i); ok {
		return j, s, true
	}
	if j, s, ok := p.dayDate(i); ok {
		return j, s, true
	}
	if j, at, ok := p.partial(i); ok {
		if k, y, _, ok := p.year(p.skip(j, "of|,|/")); ok {
			return k, at(y), true
		}
	}
	if j, y, worded, ok := p.year(i); ok && (bare || worded) {
		return j, monthsSpan(y, 1, 12), true
	}
	return p.relative(i)
}

// yearless reads a month, quarter or half without a year as its latest start on or before A.
func (p *parser) yearless(i int) (int, span, bool) {
	j, at, ok := p.partial(i)
	if !ok || p.is(i, monthAbbrevs) {
		return i, span{}, false
	}
	return j, latest(at, p.a), true
}

// latest is the period at(y) of the latest year y in which it begins by t.
func latest(at func(y int) span, t time.Time) span {
	if s := at(t.Year()); !s.from.After(t) {
		return s
	}
	return at(t.Year() - 1)
}

// partial matches a period that needs a year: a quarter, a half or a month.
func (p *parser) partial(i int) (int, func(y int) span, bool) {
	if q, j, ok := p.part(i, "q", 4, "quarter|qtr|квартал*"); ok {
		return j, func(y int) span { return monthsSpan(y, 3*q-2, 3) }, true
	}
	if h, j, ok := p.part(i, "h", 2, "half|полугоди*"); ok {
		return j, func(y int) span { return monthsSpan(y, 6*h-5, 6) }, true
	}
	if m := monthOf(p.tok(i).s); m > 0 {
		j := i + 1
		if p.glued(j, ".") {
			j++
		}
		return j, func(y int) span { return monthsSpan(y, m, 1) }, true
	}
	return i, nil, false
}

// part matches the n-th part of a year: "Q4", "4Q", "4th quarter", "четвёртый квартал".
func (p *parser) part(i int, letter string, most int, unit string) (int, int, bool) {
	if n, ok := p.num(i+1, 1, 1); ok && p.is(i, letter) && p.glued(i+1, "") && n >= 1 && n <= most {
		return n, i + 2, true
	}
	if n, ok := p.num(i, 1, 1); ok && p.glued(i+1, letter) && n >= 1 && n <= most {
		return n, i + 2, true
	}
	if n, j, ok := p.ordinal(i); ok && n >= 1 && n <= most && p.is(j, unit) {
		return n, j + 1, true
	}
	return 0, i, false
}

// ordinal matches "4", "4th", "4-м", "fourth", "четвёртом" or "IV".
func (p *parser) ordinal(i int) (int, int, bool) {
	if n, ok := p.num(i, 1, 2); ok {
		return n, p.suffix(i + 1), true
	}
	for n, w := range []string{"first|перв*|i", "second|втор*|ii", "third|трет*|iii", "fourth|четверт*|iv"} {
		if p.is(i, w) {
			return n + 1, i + 1, true
		}
	}
	return 0, i, false
}

// suffix skips an ordinal ending glued to a number: "th", "-го", "м".
func (p *parser) suffix(j int) int {
	const sfx = "st|nd|rd|th|й|м|го|ом|ый|ий|ое|е|я"
	if p.glued(j, "-") && p.glued(j+1, sfx) {
		return j + 2
	}
	if p.glued(j, sfx) {
		return j + 1
	}
	return j
}

// year matches a year 1900..2100 with an optional "year" before or "year", "год", "г."
// after; worded reports such a word. A number glued to letters ("2020s") is not a year.
func (p *parser) year(i int) (j, y int, worded, ok bool) {
	k := i
	if _, ok := p.num(k+1, 4, 4); ok && p.is(k, "year") {
		k, worded = k+1, true
	}
	if y, ok = p.num(k, 4, 4); !ok || y < 1900 || y > 2100 || p.glued(k, "") && p.tok(k-1).word {
		return i, 0, false, false
	}
	switch k++; {
	case p.is(k, yearWords):
		worded, k = true, k+1
		if p.is(k-1, "г") && p.glued(k, ".") {
			k++
		}
	case p.glued(k, "") && p.tok(k).word:
		return i, 0, false, false
	}
	return k, y, worded, true
}

// numericDate matches 2024-03-01, 2024-03 and 01.03.2024.
func (p *parser) numericDate(i int) (int, span, bool) {
	if y, ok := p.num(i, 4, 4); ok && p.glued(i+1, "-") {
		m, ok := p.num(i+2, 2, 2)
		switch {
		case !ok || !p.glued(i+2, ""):
		case !p.glued(i+3, "-") && m >= 1 && m <= 12:
			return i + 3, monthsSpan(y, m, 1), true
		case p.glued(i+4, ""):
			if d, ok := p.num(i+4, 2, 2); ok {
				return day(i+5, y, m, d)
			}
		}
	}
	if d, ok := p.num(i, 1, 2); ok && p.glued(i+1, ".") && p.glued(i+2, "") && p.glued(i+3, ".") && p.glued(i+4, "") {
		m, ok1 := p.num(i+2, 1, 2)
		if y, ok2 := p.num(i+4, 4, 4); ok1 && ok2 {
			return day(i+5, y, m, d)
		}
	}
	return i, span{}, false
}

// dayDate matches "5 March 2024", "5 марта 2024 года" and "March 5th, 2024".
func (p *parser) dayDate(i int) (int, span, bool) {
	d, ok := p.num(i, 1, 2)
	j := p.suffix(i + 1)
	m := monthOf(p.tok(j).s)
	if j = p.skip(j+1, "."); !ok || m == 0 {
		m, j = monthOf(p.tok(i).s), p.suffix(i+2)
		d, ok = p.num(i+1, 1, 2)
	}
	if k, y, _, isYear := p.year(p.skip(j, ",")); ok && m > 0 && isYear {
		return day(k, y, m, d)
	}
	return i, span{}, false
}

// day returns the one-day span y-m-d ending at token j, if that date exists.
func day(j, y, m, d int) (int, span, bool) {
	t := date(y, m, d)
	if t.Year() != y || int(t.Month()) != m || t.Day() != d {
		return j, span{}, false
	}
	return j, span{t, t}, true
}

// unit is a calendar unit: days long (days, weeks) or months long (months, quarters, years).
type unit struct {
	words        string
	days, months int
}

var (
	day1  = unit{"day|days|день|дня|дней|дни|днях|сутки|суток", 1, 0}
	units = []unit{day1, {"week|weeks|недел*", 7, 0}, {"month|months|месяц*", 0, 1},
		{"quarter|quarters|квартал*", 0, 3}, {"year|years|год|года|году|годы|лет|годах", 0, 12}}
)

func (p *parser) unit(i int) (unit, bool) {
	for _, u := range units {
		if p.is(i, u.words) {
			return u, true
		}
	}
	return unit{}, false
}

var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "twelve": 12, "один": 1, "одну": 1, "два": 2, "две": 2, "двух": 2,
	"три": 3, "трех": 3, "четыре": 4, "четырех": 4, "пять": 5, "пяти": 5, "шесть": 6,
	"шести": 6, "семь": 7, "семи": 7, "восемь": 8, "восьми": 8, "девять": 9, "девяти": 9,
	"десять": 10, "десяти": 10,
}

// relative matches a period relative to A: today, yesterday, this/last/past unit, or the
// past/last N units.
func (p *parser) relative(i int) (int, span, bool) {
	j, s, ok := p.relativeSpan(i)
	p.rel = p.rel || ok
	return j, s, ok
}

// relativeSpan is relative without the bookkeeping.
func (p *parser) relativeSpan(i int) (int, span, bool) {
	for k, w := range []string{"позавчера", "yesterday|вчера", "today|сегодня"} {
		if p.is(i, w) {
			return i + 1, p.calendar(day1, k-2), true
		}
	}
	this := p.is(i, "this|current|этот|эта|это|этой|этом|этого|эту|текущ*|нынешн*")
	past := p.is(i, "past|прошедш*|последн*")
	if !this && !past && !p.is(i, "last|previous|prior|прошл*|предыдущ*") {
		return i, span{}, false
	}
	n, ok := p.num(i+1, 1, 4)
	if w, isWord := numberWords[p.tok(i+1).s]; isWord {
		n, ok = w, true
	}
	if u, isUnit := p.unit(i + 2); ok && n > 0 && !this && isUnit {
		return i + 3, p.rolling(u, n), true // "past 30 days", "за последние три года"
	}
	// Without a number the unit is singular: "the last years", "последние недели" are recency.
	u, ok := p.unit(i + 1)
	if !ok || strings.HasSuffix(p.tok(i+1).s, "s") || slices.ContainsFunc([]string{"ие", "ые", "их", "ых"},
		func(e string) bool { return strings.HasSuffix(p.tok(i).s, e) }) {
		return i, span{}, false
	}
	switch {
	case this:
		return i + 2, p.calendar(u, 0), true
	case past:
		return i + 2, p.rolling(u, 1), true
	}
	return i + 2, p.calendar(u, -1), true
}

// rolling is the last n units up to A: it starts the day after A shifted back by n units
// (a month back from March 31 is February 29 or 28).
func (p *parser) rolling(u unit, n int) span {
	a := p.a
	if u.days > 0 {
		return span{a.AddDate(0, 0, 1-n*u.days), a}
	}
	first := date(a.Year(), int(a.Month())-n*u.months, 1)
	last := date(first.Year(), int(first.Month())+1, 0)
	return span{date(first.Year(), int(first.Month()), min(a.Day(), last.Day())+1), a}
}

// calendar is the day, ISO week (from Monday), month, quarter or year containing A, shifted
// by k such units. For k = 0 it may end after A; Parse clamps To.
func (p *parser) calendar(u unit, k int) span {
	if u.months > 0 {
		m := int(p.a.Month()) - 1
		return monthsSpan(p.a.Year(), m/u.months*u.months+1+k*u.months, u.months)
	}
	from := p.a.AddDate(0, 0, k*u.days)
	if u.days == 7 {
		from = from.AddDate(0, 0, -(int(p.a.Weekday())+6)%7)
	}
	return span{from, from.AddDate(0, 0, u.days-1)}
}

// date is y-m-d at 00:00 UTC; out-of-range months and days normalize as in time.Date.
func date(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }

// monthsSpan is n whole months starting with month m of year y (m may be out of range).
func monthsSpan(y, m, n int) span { return span{date(y, m, 1), date(y, m+n, 0)} }

func hull(a, b span) span {
	if b.from.Before(a.from) {
		a.from = b.from
	}
	if b.to.After(a.to) {
		a.to = b.to
	}
	return a
}

var (
	enMonths = []string{"january", "february", "march", "april", "may", "june", "july",
		"august", "september", "october", "november", "december"}
	ruStems = []string{"январ", "феврал", "март", "апрел", "ма", "июн", "июл", "август",
		"сентябр", "октябр", "ноябр", "декабр"}
	ruEndings = map[string]bool{"": true, "ь": true, "я": true, "е": true, "ю": true,
		"ем": true, "а": true, "у": true, "ом": true, "й": true}
)

// monthOf returns 1..12 for an English month name or 3-letter abbreviation ("sept" too), or a
// Russian month name in any case ("март", "марта", "мае"); otherwise 0.
func monthOf(s string) int {
	for i, name := range enMonths {
		if s == name || s == name[:3] || s == "sept" && i == 8 {
			return i + 1
		}
	}
	for i, stem := range ruStems {
		if rest, ok := strings.CutPrefix(s, stem); ok && ruEndings[rest] && s != "ма" {
			return i + 1
		}
	}
	return 0
}
