package intent

import (
	"slices"
	"strings"
	"time"
)

// The date grammar: each matcher takes a token index and returns the index after its match.

const (
	// inPreps may open a date phrase: "in 2015", "over the past week", "в марте", "en marzo",
	// "dans", "nel 2011".
	inPreps = "in|during|of|for|throughout|within|over|from|on|в|во|за|на|" + romancePreps
	// barePreps are the prepositions after which a bare number is a year.
	barePreps    = "in|during|of|for|throughout|from|в|во|за|" + romancePreps + "|del"
	yearWords    = "year|год|года|году|годы|годах|годом|годами|годов|г"
	monthAbbrevs = "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
	// romancePreps are Spanish, French and Italian "in", "during": "en 2011", "durante 2011",
	// "dans", "pendant", "nel 2011", "nell'estate".
	romancePreps = "en|durante|dans|pendant|durant|nel|nella"
	// articles are the words skipped before a period: "the", "el año pasado", "le mois", "il 2011".
	articles = "the|el|la|los|las|le|les|il|lo|gli"
	// yearBefore are the words for "year" before a year's number: "year 2011", "el año 2011",
	// "l'année 2011", "nell'anno 2011".
	yearBefore = "year|año|année|anno|l'année|l'an|l'anno|nell'anno|dell'anno"
	// ofWords join a month or a day to its year: "March of 2011", "marzo de 2011", "marzo del 2011".
	ofWords = "of|,|/|de|del|di"
)

// dateExpr matches a date phrase at i: a Chinese one (zh.go), a range, an open range, or
// [preposition] period.
func (p *parser) dateExpr(i int) (int, span, bool) {
	if j, s, ok := p.zhDate(i); ok || isHan(p.tok(i).s) {
		return j, s, ok
	}
	if p.is(i, "il") && p.is(i+1, "y") && p.is(i+2, "a") { // "il y a trois mois": no article "il"
		return p.relative(i)
	}
	if j, s, ok := p.between(i); ok {
		p.soft = false
		return j, s, true
	}
	if j, s, ok := p.open(i); ok {
		p.soft = false
		return j, s, true
	}
	k, bare := p.preps(i)
	if j, s, ok := p.point(k, bare); ok {
		return j, s, true
	}
	if p.is(i, inPreps) || p.is(k, ruSeasonAdverbs) { // "in March", "в первом квартале", "летом"
		return p.yearless(k)
	}
	return i, span{}, false
}

// dateExprRel is dateExpr, with p.rel telling whether the match was a period relative to A
// and p.soft whether it was a date named in passing: "N units ago" or a decade on its own, not
// the end of a range ("since two years ago" bounds the search).
func (p *parser) dateExprRel(i int) (int, span, bool) {
	p.rel, p.soft, p.ends = false, false, nil
	j, s, ok := p.dateExpr(i)
	p.rel, p.soft = ok && p.rel, ok && p.soft
	return j, s, ok
}

// preps skips a preposition and "the"; bare reports one of the prepositions that let a bare
// number read as a year ("in 2015", but not "2015 companies" or "over 2000 companies").
func (p *parser) preps(i int) (k int, bare bool) {
	if p.is(i, inPreps) {
		bare = p.is(i, barePreps)
		i = p.skip(i+1, "течение") // "в течение"
	}
	return p.skip(i, articles), bare
}

// between matches "[from|between|in] X (to|and|-) Y". X may lack the year Y has ("between
// March and May 2024"), Y may lack a year too ("с января по март") or be now.
func (p *parser) between(i int) (int, span, bool) {
	k, join := i, "to|till|until|through|thru|по|до|-|–|—|a|à|al|au|hasta"
	if p.is(k, "between|между|entre|tra|fra") {
		k, join = k+1, "and|и|y|et|e|"+join
	} else if p.is(k, "from|с|со|de|desde|dal|du") {
		k++
	} else {
		k, _ = p.preps(k)
	}
	k = p.skip(k, articles)
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
	j = p.skip(j+1, articles)
	e, second, ok := p.point(j, true)
	if !ok {
		e, second, ok = p.yearless(j) // "с января по март"
	}
	if !ok {
		if e, ok = p.seq(j, "now|today|present|date|сейчас|сегодня|настоящ*|hoy|ahora|aujourd'hui|maintenant|oggi|adesso", "?время|момент|день"); !ok {
			return i, span{}, false
		}
		second = span{p.a, p.a}
	}
	if at != nil {
		first = latest(at, second.from)
	}
	p.ends = []span{first, second}
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
	{"since", []string{"desde|depuis|dal|dalla|dall'|da"}},
	{"after", []string{"después|despues|après|apres|dopo", "?de|del|d'"}},
	{"before", []string{"antes|avant|prima", "?de|del|di|d'"}},
	{"until", []string{"hasta|fino|jusqu'à|jusqu'au|jusqu'en", "?a|al|à|en"}},
}

// open matches an open range: since, after, before, until X.
func (p *parser) open(i int) (int, span, bool) {
	for _, l := range openLeads {
		k, ok := p.seq(i, l.words...)
		if !ok {
			continue
		}
		k = p.skip(k, articles)
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
			p.ends = []span{s, {p.a, p.a}}
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

// point matches one period: a third of a period ("early 2020"), a date, a month, quarter,
// half or season with its year, a decade, a year (a bare number only if bare), or a period
// relative to A.
func (p *parser) point(i int, bare bool) (int, span, bool) {
	if j, s, ok := p.modified(i, bare); ok {
		return j, s, true
	}
	if j, s, ok := p.numericDate(i); ok {
		return j, s, true
	}
	if j, s, ok := p.dayDate(i); ok {
		return j, s, true
	}
	if j, at, ok := p.partial(i); ok {
		k := p.skip(j, ofWords)
		if k, y, _, ok := p.year(k); ok {
			return k, at(y), true
		}
		if k, y, ok := p.relYear(k); ok { // "March of last year", "весной прошлого года"
			return k, at(y), true
		}
	}
	if j, s, ok := p.yearPart(i); ok {
		return j, s, true
	}
	if j, s, ok := p.decade(i); ok {
		return j, s, true
	}
	if j, y, worded, ok := p.year(i); ok && (bare || worded) {
		return j, monthsSpan(y, 1, 12), true
	}
	return p.relative(i)
}

// yearless reads a month, quarter, half or season without a year as its latest start on or
// before A. English month abbreviations and "fall" need a year, and an English season is not
// one after "of", "for", … ("the end of summer", "plans for winter") or before a noun ("spring
// break", "the summer holiday", "the winter surge").
func (p *parser) yearless(i int) (int, span, bool) {
	j, at, ok := p.partial(i)
	if !ok || p.is(i, monthAbbrevs+"|fall") {
		return i, span{}, false
	}
	if seasonOf(p.tok(i).s) >= 0 && p.tok(i).s[0] < 0x80 {
		prev := i - 1
		if p.is(prev, "the") {
			prev--
		}
		if p.is(prev, "of|for|from|on|within|to") || p.tok(j).word && !p.is(j, seasonFollowers) {
			return i, span{}, false
		}
	}
	if p.is(i-1, "на") { // «добыча на август», «прогноз на лето»: the coming one, not the last
		return j, next(at, p.a), true
	}
	return j, latest(at, p.a), true
}

// next is the first occurrence of a yearless period that has not ended before t: "на август"
// asked in July is this August; asked in September, next year's.
func next(at func(y int) span, t time.Time) span {
	if s := at(t.Year()); !s.to.Before(t) {
		return s
	}
	return at(t.Year() + 1)
}

// seasonFollowers are the words after which a yearless English season is still a season ("in
// the summer when …", "in spring and autumn"); any other word makes it a noun's modifier.
const seasonFollowers = "and|or|of|when|while|as|to|in|on|at|for|with|before|after|but|is|was|were|" +
	"has|had|have|will|would|the|this|that|months|season|time"

// modifiers are the words for the first, middle and last third of a period (0, 1, 2).
var modifiers = words(map[int]string{
	0: "early|beginning|start|начало|начала|началу|началом|начале|principios|comienzos|inicios|début|debut|inizio",
	1: "mid|middle|середина|середины|середине|середину|серединой|mediados|mi|metà|meta",
	2: "late|end|конец|конца|концу|концом|конце|finales|fines|fin|fine",
})

// words maps each "|"-separated word of each value to its key.
func words(m map[int]string) map[string]int {
	out := map[string]int{}
	for k, ws := range m {
		for w := range strings.SplitSeq(ws, "|") {
			out[w] = k
		}
	}
	return out
}

// modified matches a third of a period: "early 2020", "mid-2019", "late last year", "at the end
// of 2023", "в начале 2024 года", "в конце прошлого года", "к концу года" (A's year). English
// needs a preposition before a yearless month ("in early March"); Russian does not ("в конце марта").
func (p *parser) modified(i int, bare bool) (int, span, bool) {
	k := p.skip(p.skip(i, "at|by|toward|towards|к|ко"), "the")
	t, ok := modifiers[p.tok(k).s]
	if !ok {
		return i, span{}, false
	}
	ru := p.tok(k).s[0] >= 0x80
	romance := p.is(k, "principios|comienzos|inicios|mediados|finales|fines|début|debut|inizio|metà|meta|fin|fine")
	switch {
	case p.is(k, "beginning|start|middle|end"):
		if k++; !p.is(k, "of") {
			return i, span{}, false
		}
	case p.glued(k+1, "-"): // "mid-2019", "mi-2021"
		k++
	case romance && p.is(k+1, "de|del|di|d'"): // "a finales de 2019", "alla fine del 2020"
		k++
	}
	k = p.skip(k+1, "the")
	j, s, ok := p.point(k, true)
	switch {
	case ok:
	case p.is(k, "year|года|году|год"):
		j, s, ok, p.rel = k+1, p.calendar(units[4], 0), true, true
	case p.is(k, "month|месяца|месяце"):
		j, s, ok, p.rel = k+1, p.calendar(units[2], 0), true, true
	case bare || ru || romance:
		j, s, ok = p.yearless(k)
	}
	if ok {
		s, ok = third(s, t)
	}
	if !ok {
		return i, span{}, false
	}
	return j, s, true
}

// third is the t-th third (0, 1, 2) of a span of whole months: of a month, days 1–10, 11–20
// and 21 to the end; of a year, January–April, May–August, September–December; of a quarter
// or season, its months. Other spans have no thirds.
func third(s span, t int) (span, bool) {
	f, e := s.from, s.to
	if f.IsZero() || f.Day() != 1 || e.AddDate(0, 0, 1).Day() != 1 {
		return s, false
	}
	y, m := f.Year(), int(f.Month())
	switch n := (e.Year()-y)*12 + int(e.Month()) - m + 1; {
	case n == 1 && t < 2:
		return span{date(y, m, 1+10*t), date(y, m, 10+10*t)}, true
	case n == 1:
		return span{date(y, m, 21), e}, true
	case n%3 == 0:
		return monthsSpan(y, m+t*n/3, n/3), true
	}
	return s, false
}

// relYear matches a year relative to A after a month or season: "this year", "last year",
// "прошлого года", "этом году".
func (p *parser) relYear(i int) (int, int, bool) {
	k := p.skip(i, "the")
	for off, w := range []string{"позапрошл*", "last|previous|prior|прошл*|предыдущ*", "this|current|этого|этом|текущ*|нынешн*"} {
		if p.is(k, w) && p.is(k+1, "year|года|году|год") {
			p.rel = true
			return k + 2, p.a.Year() + off - 2, true
		}
	}
	// "del año pasado", "de l'année dernière", "dell'anno scorso", "de este año", "di quest'anno"
	k = p.skip(p.skip(i, "de|del|di|d'"), articles)
	if p.is(k, "quest'anno|este|cette") {
		if p.is(k, "quest'anno") {
			p.rel = true
			return k + 1, p.a.Year(), true
		}
		if p.is(k+1, "año|année|anno") {
			p.rel = true
			return k + 2, p.a.Year(), true
		}
	}
	if p.is(k, "año|année|anno|l'année|l'anno|dell'anno|an|l'an") && p.is(k+1, romanceLast) {
		p.rel = true
		return k + 2, p.a.Year() - 1, true
	}
	return i, 0, false
}

// yearPart matches a year glued to a quarter or half: "2023Q3", "2024H1".
func (p *parser) yearPart(i int) (int, span, bool) {
	y, ok := p.num(i, 4, 4)
	if !ok || y < 1900 || y > 2100 || !p.glued(i+1, "q|h") {
		return i, span{}, false
	}
	if q, j, ok := p.part(i+1, "q", 4, ""); ok {
		return j, monthsSpan(y, 3*q-2, 3), true
	}
	if h, j, ok := p.part(i+1, "h", 2, ""); ok {
		return j, monthsSpan(y, 6*h-5, 6), true
	}
	return i, span{}, false
}

// decade matches "1990s", "1990's", "2010-х", "90-е" (the latest such decade begun by A),
// with an optional "годы", "годах".
func (p *parser) decade(i int) (int, span, bool) {
	y, ok := p.num(i, 2, 4)
	if !ok || len(p.tok(i).s) == 3 || y%10 != 0 || p.glued(i, "") && p.tok(i-1).word {
		return i, span{}, false
	}
	j := i + 1
	switch {
	case len(p.tok(i).s) == 4 && p.glued(j, "s"):
		j++
	case len(p.tok(i).s) == 4 && p.glued(j, "'") && p.glued(j+1, "s"):
		j += 2
	case p.glued(j, "-") && p.glued(j+1, "х|е|ых|ые|ех"):
		j += 2
	default:
		return i, span{}, false
	}
	if len(p.tok(i).s) == 2 {
		if y += p.a.Year() / 100 * 100; y > p.a.Year() {
			y -= 100
		}
	}
	if y < 1900 || y > 2090 || p.glued(j, "") && p.tok(j).word {
		return i, span{}, false
	}
	p.soft = true
	return p.skip(j, yearWords), monthsSpan(y, 1, 120), true
}

// latest is the period at(y) of the latest year y in which it begins by t.
func latest(at func(y int) span, t time.Time) span {
	if s := at(t.Year()); !s.from.After(t) {
		return s
	}
	return at(t.Year() - 1)
}

// partial matches a period that needs a year: a quarter, a half, a month or a season. "fall"
// is a season only before "of" or after "the", "in", "early", … ("prices fall 2000 points").
func (p *parser) partial(i int) (int, func(y int) span, bool) {
	if s := seasonOf(p.tok(i).s); s >= 0 && (!p.is(i, "fall") || p.is(i+1, "of") || p.is(i-1, "the|in|early|mid|late|-|since|from|until|before|after|by|during")) {
		return i + 1, func(y int) span { return seasonSpan(y, s) }, true
	}
	if q, j, ok := p.part(i, "q", 4, "quarter|qtr|квартал*|trimestre|trimestri"); ok {
		return j, func(y int) span { return monthsSpan(y, 3*q-2, 3) }, true
	}
	if h, j, ok := p.part(i, "h", 2, "half|полугоди*|semestre|semestri"); ok {
		return j, func(y int) span { return monthsSpan(y, 6*h-5, 6) }, true
	}
	if m := monthOf(p.tok(i).s); m > 0 && !p.otherWord(i) {
		j := i + 1
		if p.glued(j, ".") {
			j++
		}
		return j, func(y int) span { return monthsSpan(y, m, 1) }, true
	}
	return i, nil, false
}

// otherWord reports a Spanish, French or Italian month name that is also another word in an
// English question ("Mars 2020", "Mayo Clinic", "Julio Iglesias"): it is a month only after a
// day's number or a Spanish, French or Italian word that leads one ("en mars", "de mayo").
func (p *parser) otherWord(i int) bool {
	if !p.is(i, "mars|mayo|mai|julio") {
		return false
	}
	return !(p.tok(i-1).n >= 0 || p.is(i-1, romancePreps+"|de|del|desde|depuis|dès|a|à|al|le|el|fin|début|mi|mediados|principios|finales|inizio|fine|entre|hasta|jusqu'en|tra|fra|y|et|e|ou|o|-"))
}

// part matches the n-th part of a year: "Q4", "4Q", "4th quarter", "четвёртый квартал".
func (p *parser) part(i int, letter string, most int, unit string) (int, int, bool) {
	if n, ok := p.num(i+1, 1, 1); ok && p.is(i, letter) && p.glued(i+1, "") && n >= 1 && n <= most {
		return n, i + 2, true
	}
	if n, ok := p.num(i, 1, 1); ok && p.glued(i+1, letter) && n >= 1 && n <= most {
		return n, i + 2, true
	}
	if n, j, ok := p.ordinal(i); ok && n >= 1 && n <= most && p.is(p.skip(j, "?"), unit) {
		return n, j + 1, true
	}
	return 0, i, false
}

// ordinal matches "4", "4th", "4-м", "fourth", "четвёртом" or "IV".
func (p *parser) ordinal(i int) (int, int, bool) {
	if n, ok := p.num(i, 1, 2); ok {
		return n, p.suffix(i + 1), true
	}
	for n, w := range []string{"first|перв*|i|primer|primero|primera|premier|première|primo|prima", "second|втор*|ii|segundo|segunda|deuxième|second|seconde|secondo|seconda",
		"third|трет*|iii|tercer|tercero|tercera|troisième|terzo|terza", "fourth|четверт*|iv|cuarto|cuarta|quatrième|quarto|quarta"} {
		if p.is(i, w) {
			return n + 1, i + 1, true
		}
	}
	return 0, i, false
}

// suffix skips an ordinal ending glued to a number: "th", "-го", "м".
func (p *parser) suffix(j int) int {
	const sfx = "st|nd|rd|th|й|м|го|ом|ый|ий|ое|е|я|er|º|o|ª"
	if p.glued(j, "-") && p.glued(j+1, sfx) {
		return j + 2
	}
	if p.glued(j, sfx) {
		return j + 1
	}
	return j
}

// year matches a year 1900..2100 with an optional "year" before or "year", "год", "г."
// after; worded reports such a word. A number glued to letters ("2020s", "2000元"; the
// particle 的 aside) or in a chain of three hyphenated numbers ("8-800-2020-2021") is not a year.
func (p *parser) year(i int) (j, y int, worded, ok bool) {
	k := i
	if _, ok := p.num(k+1, 4, 4); ok && p.is(k, yearBefore) {
		k, worded = k+1, true
	}
	if y, ok = p.num(k, 4, 4); !ok || y < 1900 || y > 2100 || p.glued(k, "") && p.tok(k-1).word || p.chain(k) > 2 {
		return i, 0, false, false
	}
	switch k++; {
	case p.is(k, yearWords):
		worded, k = true, k+1
		if p.is(k-1, "г") && p.glued(k, ".") {
			k++
		}
	case p.glued(k, "") && p.tok(k).word && !p.is(k, "的"):
		return i, 0, false, false
	}
	return k, y, worded, true
}

// chain counts the numbers in the run of hyphen-joined numbers (no spaces) through token k.
func (p *parser) chain(k int) int {
	n := 1
	for i := k; p.glued(i+1, "-") && p.glued(i+2, "") && p.tok(i+2).n >= 0; i += 2 {
		n++
	}
	for i := k; p.glued(i, "") && p.is(i-1, "-") && p.glued(i-1, "") && p.tok(i-2).n >= 0; i -= 2 {
		n++
	}
	return n
}

// numericDate matches 2024-03-01, 2024-03, 2024/3/1, 2024.03.01 and 01.03.2024.
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
	if y, ok := p.num(i, 4, 4); ok && p.glued(i+1, "/|.") && p.glued(i+2, "") && p.glued(i+3, p.tok(i+1).s) && p.glued(i+4, "") {
		m, ok1 := p.num(i+2, 1, 2)
		if d, ok2 := p.num(i+4, 1, 2); ok1 && ok2 {
			return day(i+5, y, m, d) // 2021/3/5, 2021.03.05
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
	j := p.skip(p.suffix(i+1), "de|di") // "15 de marzo"
	m := monthOf(p.tok(j).s)
	if j = p.skip(j+1, "."); !ok || m == 0 {
		m, j = monthOf(p.tok(i).s), p.suffix(i+2)
		d, ok = p.num(i+1, 1, 2)
	}
	if k, y, _, isYear := p.year(p.skip(p.skip(j, ","), "de|del")); ok && m > 0 && isYear {
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
	day1  = unit{"day|days|день|дня|дней|дни|днях|сутки|суток|día|días|dia|dias|jour|jours|giorno|giorni", 1, 0}
	units = []unit{day1, {"week|weeks|недел*|semana|semanas|semaine|semaines|settimana|settimane", 7, 0},
		{"month|months|месяц*|mes|meses|mois|mese|mesi", 0, 1},
		{"quarter|quarters|квартал*|trimestre|trimestres|trimestri", 0, 3},
		{"year|years|год|года|году|годы|лет|годах|año|años|année|années|ans|anno|anni|l'année|l'anno|l'an", 0, 12}}
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
	"nine": 9, "ten": 10, "twelve": 12, "один": 1, "одну": 1, "два": 2, "две": 2, "двух": 2, "пару": 2,
	"три": 3, "трех": 3, "четыре": 4, "четырех": 4, "пять": 5, "пяти": 5, "шесть": 6,
	"шести": 6, "семь": 7, "семи": 7, "восемь": 8, "восьми": 8, "девять": 9, "девяти": 9,
	"десять": 10, "десяти": 10,
	"dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "diez": 10, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5,
	"dix": 10, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6, "dieci": 10, "un": 1, "una": 1, "uno": 1, "une": 1,
}

// relative matches a period relative to A: today, yesterday, this/last/past unit or season,
// the past/last N units, N units ago, year to date.
func (p *parser) relative(i int) (int, span, bool) {
	j, s, ok := p.relativeSpan(i)
	p.rel = p.rel || ok
	return j, s, ok
}

// relativeSpan is relative without the bookkeeping.
func (p *parser) relativeSpan(i int) (int, span, bool) {
	for k, w := range []string{"позавчера|anteayer|antier|avant-hier|altroieri", "yesterday|вчера|ayer|hier|ieri", "today|сегодня|hoy|aujourd'hui|oggi"} {
		if p.is(i, w) {
			return i + 1, p.calendar(day1, k-2), true
		}
	}
	if j, s, ok := p.ago(i); ok {
		return j, s, true
	}
	if j, ok := p.seq(i, "year", "?-", "to", "?-", "date"); ok || p.is(i, "ytd") {
		return max(j, i+1), p.calendar(units[4], 0), true // "YTD", "year to date", "year-to-date"
	}
	if j, s, ok := p.romanceRelative(i); ok {
		return j, s, true
	}
	this := p.is(i, "this|current|этот|эта|это|этой|этом|этого|эту|этим|текущ*|нынешн*|este|esta|cette|ce|cet|questo|questa")
	past := p.is(i, "past|прошедш*|последн*|últimos|últimas|ultimos|ultimas|ultimi|ultime|pasados|pasadas")
	if !this && !past && !p.is(i, "last|previous|prior|прошл*|предыдущ*") {
		return i, span{}, false
	}
	if s := seasonOf(p.tok(i + 1).s); s >= 0 {
		// "this summer" is the summer that contains A, else the one that begins in A's year;
		// "last summer" is the latest summer that ended before A.
		at := func(y int) span { return seasonSpan(y, s) }
		cur := latest(at, p.a)
		switch {
		case this && cur.to.Before(p.a):
			cur = at(p.a.Year())
		case !this && !cur.to.Before(p.a):
			cur = at(cur.from.Year() - 1)
		}
		return i + 2, cur, true
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
	if !ok || strings.HasSuffix(p.tok(i+1).s, "s") && !p.is(i+1, "mes|mois") || slices.ContainsFunc([]string{"ие", "ые", "их", "ых"},
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

// ago matches "a year ago", "3 weeks ago", "год назад", "два года тому назад". It is the
// point A − n units, read as one unit centred on it: "3 days ago" is that day, "a week ago"
// the seven days around A−7, "a month ago" A−1 month ± 15 days, "a year ago" A−1 year ± 182
// days. Russian may leave out the number ("год назад").
func (p *parser) ago(i int) (int, span, bool) {
	n, k := 1, i+1
	if v, ok := p.num(i, 1, 4); ok {
		n = v
	} else if v, ok := numberWords[p.tok(i).s]; ok {
		n = v
	} else if !p.is(i, "a|an") {
		k = i // "год назад", "неделю назад"
	}
	if !p.is(k+1, "ago|назад|тому|fa") {
		return i, span{}, false
	}
	u, ok := p.unit(k)
	if !ok || n == 0 || k == i && !p.is(k, "год|неделю|месяц|день|квартал") {
		return i, span{}, false
	}
	j, ok := p.seq(k+1, "?тому", "ago|назад|fa")
	if !ok {
		return i, span{}, false
	}
	p.soft = true
	return j, p.around(u, n), true
}

// around is the one-unit span centred on A − n units (see ago).
// back is A shifted back n units (a month back from March 31 is the last day of February).
func (p *parser) back(u unit, n int) time.Time {
	if u.days > 0 {
		return p.a.AddDate(0, 0, -n*u.days)
	}
	first := date(p.a.Year(), int(p.a.Month())-n*u.months, 1)
	return date(first.Year(), int(first.Month()), min(p.a.Day(), date(first.Year(), int(first.Month())+1, 0).Day()))
}

func (p *parser) around(u unit, n int) span {
	if u.days > 0 {
		at, hw := p.a.AddDate(0, 0, -n*u.days), (u.days-1)/2
		return span{at.AddDate(0, 0, -hw), at.AddDate(0, 0, hw)}
	}
	first := date(p.a.Year(), int(p.a.Month())-n*u.months, 1)
	at := date(first.Year(), int(first.Month()), min(p.a.Day(), date(first.Year(), int(first.Month())+1, 0).Day()))
	hw := u.months * 365 / 24
	return span{at.AddDate(0, 0, -hw), at.AddDate(0, 0, hw)}
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

// seasonWords are the seasons' words: 0 spring, 1 summer, 2 autumn, 3 winter.
var seasonWords = words(map[int]string{
	0: "spring|весна|весной|весною|весну|весны|весне|primavera|printemps",
	1: "summer|лето|летом|лета|лету|лете|verano",
	2: "autumn|fall|осень|осенью|осени|otoño|automne|autunno",
	3: "winter|зима|зимой|зимою|зиму|зимы|зиме|invierno|hiver|inverno",
})

// ruSeasonAdverbs are the Russian seasons that say "in" without a preposition ("летом").
const ruSeasonAdverbs = "весной|весною|летом|осенью|зимой|зимою"

// seasonOf returns 0..3 (spring, summer, autumn, winter) for a season's word, else -1.
func seasonOf(s string) int {
	if i, ok := seasonWords[s]; ok {
		return i
	}
	return -1
}

// seasonSpan is season s (0 spring .. 3 winter) of year y, in meteorological months: spring
// is March–May; the winter of y begins in y, December y to February y+1.
func seasonSpan(y, s int) span { return monthsSpan(y, 3+3*s, 3) }

// romanceMonths are the Spanish, French and Italian month names (French "mars", Spanish
// "mayo", … are also other English words: parser.otherWord).
var romanceMonths = func() map[string]int {
	m := map[string]int{}
	for i, names := range []string{"enero|janvier|gennaio", "febrero|février|fevrier|febbraio", "marzo|mars", "abril|avril|aprile",
		"mayo|mai|maggio", "junio|juin|giugno", "julio|juillet|luglio", "agosto|août|aout", "septiembre|setiembre|septembre|settembre",
		"octubre|octobre|ottobre", "noviembre|novembre", "diciembre|décembre|decembre|dicembre"} {
		for w := range strings.SplitSeq(names, "|") {
			m[w] = i + 1
		}
	}
	return m
}()

// romanceLast are the Spanish, French and Italian words for "last" after their noun: "la
// semana pasada", "le mois dernier", "l'anno scorso".
const romanceLast = "pasado|pasada|dernier|dernière|derniere|scorso|scorsa|passato|passata"

// romanceRelative matches periods relative to A in Spanish, French and Italian word order:
// "la semana pasada", "le mois dernier", "l'anno scorso" (the calendar unit before A's);
// "quest'anno" (this year); "hace dos años", "il y a trois mois" (N units ago, as "ago");
// "les 30 derniers jours" (the last N days).
func (p *parser) romanceRelative(i int) (int, span, bool) {
	if u, ok := p.unit(i); ok && p.is(i+1, romanceLast) && !strings.HasSuffix(p.tok(i).s, "s") || ok && p.is(i, "mes|mois") && p.is(i+1, romanceLast) {
		return i + 2, p.calendar(u, -1), true
	}
	if p.is(i, "quest'anno") {
		return i + 1, p.calendar(units[4], 0), true
	}
	k := i
	switch {
	case p.is(i, "hace"):
		k = i + 1
	case p.is(i, "il") && p.is(i+1, "y") && p.is(i+2, "a"):
		k = i + 3
	}
	if k > i {
		n, ok := p.num(k, 1, 4)
		if w, isWord := numberWords[p.tok(k).s]; isWord {
			n, ok = w, true
		}
		if u, isUnit := p.unit(k + 1); ok && n > 0 && isUnit {
			p.soft = true
			return k + 2, p.around(u, n), true
		}
		return i, span{}, false
	}
	if n, ok := p.num(i, 1, 4); ok && n > 0 && p.is(i+1, "derniers|dernières|dernieres") {
		if u, isUnit := p.unit(i + 2); isUnit {
			return i + 3, p.rolling(u, n), true
		}
	}
	return i, span{}, false
}

// monthOf returns 1..12 for an English month name or 3-letter abbreviation ("sept" too), a
// Spanish, French or Italian month name, or a Russian month name in any case ("март", "марта",
// "мае"); otherwise 0.
func monthOf(s string) int {
	if m, ok := romanceMonths[s]; ok {
		return m
	}
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
