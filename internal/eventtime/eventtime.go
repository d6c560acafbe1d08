// Package eventtime reads the days a text mentions: the event time of news, beside its
// publication time. A text published on 2011-02-18 that says "ayer", "le 15 février",
// "lunedì scorso", «в прошлую пятницу», 上周三, "on Tuesday" or "17/02/2011" is about those days,
// not only about the day it came out. Mentions reads them in English, Russian, Chinese,
// Spanish, French and Italian: absolute days (with or without a year), numeric dates, the
// words for yesterday, today and tomorrow and their neighbours, and weekdays, each relative
// to the publication day.
//
// Only days are read (not months, years or weeks): a timeline is a list of days. A day whose
// year is left out is the one nearest the publication day within the year before it and the
// half year after ("el 20 de diciembre" in a January text is last December's). A mention may
// lie after the publication day ("the vote on Sunday", "el próximo lunes"): Future says so,
// and a caller that answers as of a day drops the mentions after it.
package eventtime

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Mention is one day a text names.
type Mention struct {
	// Day is the day, 00:00 UTC.
	Day time.Time
	// Start and End are the byte offsets of the words that name it in the text.
	Start, End int
	// Relative is set when the day was read from the publication day ("yesterday", "on
	// Monday", a date without its year).
	Relative bool
}

// Future reports whether the mention lies after the publication day pub.
func (m Mention) Future(pub time.Time) bool { return m.Day.After(Day(pub)) }

// Day is t's UTC day at 00:00.
func Day(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// word is a token of the text: a run of letters or of digits (lower case), or one other
// non-space character, with its byte offsets.
type word struct {
	s          string
	start, end int
	num        int // the value of a run of at most 4 digits, else -1
	space      bool
}

// tokenize splits text into words; space reports whether a space came before a word.
func tokenize(text string) []word {
	var out []word
	i, sp := 0, true
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsSpace(r):
			sp = true
			i += n
			continue
		case unicode.Is(unicode.Han, r):
			out = append(out, word{s: text[i : i+n], start: i, end: i + n, num: -1, space: sp})
			i += n
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			digit := unicode.IsDigit(r)
			j := i
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if unicode.IsDigit(r2) != digit || !(unicode.IsLetter(r2) || unicode.IsDigit(r2)) || unicode.Is(unicode.Han, r2) {
					break
				}
				j += n2
			}
			w := word{s: strings.ToLower(text[i:j]), start: i, end: j, num: -1, space: sp}
			if digit && j-i <= 4 {
				w.num = atoi(text[i:j])
			}
			out = append(out, w)
			i = j
		default:
			out = append(out, word{s: text[i : i+n], start: i, end: i + n, num: -1, space: sp})
			i += n
		}
		sp = false
	}
	return out
}

// atoi is the value of a run of ASCII digits, or -1 (other digits).
func atoi(s string) int {
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// Mentions returns the days text mentions, in text order, read relative to pub (its
// publication time) in language lang (an ISO 639-1 code; the relative words of English,
// Russian, Chinese, Spanish, French and Italian are known, absolute dates are read in all six
// whatever lang says).
func Mentions(text string, pub time.Time, lang string) []Mention {
	s := scanner{w: tokenize(text), pub: Day(pub), lang: base(lang)}
	var out []Mention
	for i := 0; i < len(s.w); {
		if j, d, rel, ok := s.at(i); ok {
			out = append(out, Mention{Day: d, Start: s.w[i].start, End: s.w[j-1].end, Relative: rel})
			i = j
			continue
		}
		i++
	}
	return out
}

// base is the primary code of lang, lower case.
func base(lang string) string {
	b, _, _ := strings.Cut(strings.ReplaceAll(strings.ToLower(lang), "_", "-"), "-")
	return b
}

type scanner struct {
	w    []word
	pub  time.Time
	lang string
}

// tok is word i, or an empty word past either end.
func (s *scanner) tok(i int) word {
	if i < 0 || i >= len(s.w) {
		return word{num: -1, space: true}
	}
	return s.w[i]
}

// is reports whether word i is one of the "|"-separated alternatives.
func (s *scanner) is(i int, alts string) bool {
	t := s.tok(i).s
	if t == "" {
		return false
	}
	for a := range strings.SplitSeq(alts, "|") {
		if a == t {
			return true
		}
	}
	return false
}

// at matches a mention starting at word i: the index after it, the day, whether it was read
// relative to the publication day.
func (s *scanner) at(i int) (int, time.Time, bool, bool) {
	if j, d, rel, ok := s.zh(i); ok {
		return j, d, rel, true
	}
	if j, d, ok := s.numeric(i); ok {
		return j, d, false, true
	}
	if j, d, rel, ok := s.dayMonth(i); ok {
		return j, d, rel, true
	}
	if j, d, ok := s.relativeDay(i); ok {
		return j, d, true, true
	}
	if j, d, ok := s.weekday(i); ok {
		return j, d, true, true
	}
	return i, time.Time{}, false, false
}

// glued reports whether word i follows the one before it with no space.
func (s *scanner) glued(i int) bool { return i < len(s.w) && i > 0 && !s.w[i].space }

// numeric matches 2011-02-17, 17/02/2011, 17.02.2011 and 17-02-2011 (day first; in English
// text month first, 02/17/2011, when the first number cannot be a month or the text is
// English and the second can be a day).
func (s *scanner) numeric(i int) (int, time.Time, bool) {
	a, b, c := s.tok(i), s.tok(i+2), s.tok(i+4)
	sep := s.tok(i + 1).s
	if a.num < 0 || b.num < 0 || c.num < 0 || !(sep == "-" || sep == "/" || sep == ".") || s.tok(i+3).s != sep {
		return i, time.Time{}, false
	}
	for k := i + 1; k <= i+4; k++ {
		if !s.glued(k) {
			return i, time.Time{}, false
		}
	}
	if s.glued(i+5) && (s.tok(i+5).num >= 0 || s.tok(i+5).s == sep) || s.glued(i) && s.tok(i-1).num >= 0 {
		return i, time.Time{}, false // part of a longer number: a phone number, a version
	}
	if len(a.s) == 4 && sep == "-" {
		if d, ok := ymd(a.num, b.num, c.num); ok {
			return i + 5, d, true
		}
		return i, time.Time{}, false
	}
	if len(c.s) != 4 {
		return i, time.Time{}, false
	}
	day, month := a.num, b.num
	if s.lang == "en" && sep == "/" && a.num <= 12 {
		day, month = b.num, a.num
	}
	if d, ok := ymd(c.num, month, day); ok {
		return i + 5, d, true
	}
	return i, time.Time{}, false
}

// ymd is the day y-m-d, if it exists and the year is plausible for news (1900–2100).
func ymd(y, m, d int) (time.Time, bool) {
	if y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, false
	}
	return t, true
}

// dayMonth matches a day and month with an optional year: "17 de febrero de 2011", "le 1er
// mars", "17 febbraio", "17 февраля 2011 года", "February 17, 2011", "Feb. 17", "17th of
// February". A day without a year is placed by inferYear.
func (s *scanner) dayMonth(i int) (int, time.Time, bool, bool) {
	d, m, j := 0, 0, i
	if v := s.tok(i).num; v >= 1 && v <= 31 && len(s.tok(i).s) <= 2 && !(s.glued(i) && s.tok(i-1).num >= 0) {
		k := s.ordinalEnd(i + 1)
		k = s.skipWord(k, "de|of|di|del")
		if mm := monthOf(s.tok(k).s); mm > 0 && !s.modalMay(i, k) {
			d, m, j = v, mm, k+1
		}
	}
	if m == 0 {
		mm := monthOf(s.tok(i).s)
		if mm == 0 {
			return i, time.Time{}, false, false
		}
		k := i + 1
		if s.tok(k).s == "." && s.glued(k) {
			k++
		}
		v := s.tok(k).num
		if v < 1 || v > 31 || len(s.tok(k).s) > 2 || s.glued(k+1) && !s.ordinalSuffix(k+1) && s.tok(k+1).s != "," {
			return i, time.Time{}, false, false
		}
		d, m, j = v, mm, s.ordinalEnd(k+1)
	}
	if s.tok(j).s == "." && s.glued(j) && monthAbbrev(s.tok(j-1).s) {
		j++
	}
	// A year: ", 2011", "de 2011", "del 2011", "2011 года", "2011 г.".
	k := j
	if s.tok(k).s == "," {
		k++
	}
	k = s.skipWord(k, "de|del")
	if y := s.tok(k).num; y >= 1900 && y <= 2100 && len(s.tok(k).s) == 4 && (s.alone(k) || s.is(k+1, "г|года|год|году")) {
		if t, ok := ymd(y, m, d); ok {
			k++
			if s.is(k, "года|году|год") {
				k++
			} else if s.is(k, "г") {
				k++
				if s.tok(k).s == "." && s.glued(k) {
					k++
				}
			}
			return k, t, false, true
		}
		return i, time.Time{}, false, false
	}
	t, ok := inferYear(s.pub, m, d)
	if !ok {
		return i, time.Time{}, false, false
	}
	return j, t, true, true
}

// modalMay reports an English "may" after a number that is the verb ("section 3 may apply"):
// the day before May is read only when a year follows or "on", "by", "since", "until", "from",
// "the" or "of" comes before the number.
func (s *scanner) modalMay(i, k int) bool {
	if s.tok(k).s != "may" || k != i+1 {
		return false
	}
	y := s.tok(k + 1)
	return !(y.num >= 1900 && len(y.s) == 4) && !s.is(i-1, "on|by|since|until|till|from|the|of|to")
}

// alone reports whether word k ends where it should: the next word is spaced, or is glued
// punctuation ("2011," "2011.") rather than a letter or a digit.
func (s *scanner) alone(k int) bool {
	n := s.tok(k + 1)
	if !s.glued(k+1) || n.s == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(n.s)
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// skipWord skips word k when it is one of alts.
func (s *scanner) skipWord(k int, alts string) int {
	if s.is(k, alts) {
		return k + 1
	}
	return k
}

// ordinalSuffix reports whether word k is an ordinal ending glued to a number: "st", "er",
// "º", "-го".
func (s *scanner) ordinalSuffix(k int) bool {
	return s.glued(k) && s.is(k, "st|nd|rd|th|er|re|º|°|ª|o")
}

// ordinalEnd skips an ordinal ending at k ("1st", "1er", "1º", "1-го").
func (s *scanner) ordinalEnd(k int) int {
	if s.ordinalSuffix(k) {
		return k + 1
	}
	if s.glued(k) && s.tok(k).s == "-" && s.glued(k+1) && s.is(k+1, "го|е|ое") {
		return k + 2
	}
	return k
}

// inferYear places month m, day d without a year: the year that puts it nearest pub, looking
// up to a year back and half a year ahead.
func inferYear(pub time.Time, m, d int) (time.Time, bool) {
	best, found := time.Time{}, false
	for y := pub.Year() - 1; y <= pub.Year()+1; y++ {
		t, ok := ymd(y, m, d)
		if !ok {
			continue
		}
		if diff := t.Sub(pub); diff > 183*24*time.Hour || diff < -366*24*time.Hour {
			continue
		}
		if !found || absDur(t.Sub(pub)) < absDur(best.Sub(pub)) {
			best, found = t, true
		}
	}
	return best, found
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// relativeWords are the words for days relative to the publication day, per language, as
// offsets in days; a phrase of several words is split by spaces.
var relativeWords = map[string][]struct {
	words  []string
	offset int
}{
	"en": {{[]string{"day", "before", "yesterday"}, -2}, {[]string{"yesterday"}, -1}, {[]string{"today"}, 0},
		{[]string{"tonight"}, 0}, {[]string{"day", "after", "tomorrow"}, 2}, {[]string{"tomorrow"}, 1}},
	"es": {{[]string{"anteayer"}, -2}, {[]string{"antier"}, -2}, {[]string{"antes", "de", "ayer"}, -2}, {[]string{"ayer"}, -1},
		{[]string{"hoy"}, 0}, {[]string{"pasado", "mañana"}, 2}},
	"fr": {{[]string{"avant", "-", "hier"}, -2}, {[]string{"avant", "hier"}, -2}, {[]string{"hier"}, -1},
		{[]string{"aujourd", "'", "hui"}, 0}, {[]string{"aujourd", "’", "hui"}, 0}, {[]string{"après", "-", "demain"}, 2}, {[]string{"demain"}, 1}},
	"it": {{[]string{"l", "'", "altro", "ieri"}, -2}, {[]string{"l", "’", "altro", "ieri"}, -2}, {[]string{"altroieri"}, -2},
		{[]string{"ieri"}, -1}, {[]string{"oggi"}, 0}, {[]string{"dopodomani"}, 2}, {[]string{"domani"}, 1}},
	"ru": {{[]string{"позавчера"}, -2}, {[]string{"вчера"}, -1}, {[]string{"сегодня"}, 0},
		{[]string{"послезавтра"}, 2}, {[]string{"завтра"}, 1}},
}

// relativeDay matches yesterday, today, tomorrow and their neighbours in the text's language.
// Spanish "mañana" is tomorrow only when no article or "esta", "por", "de" ("this morning",
// "in the morning") comes before it.
func (s *scanner) relativeDay(i int) (int, time.Time, bool) {
	for _, r := range relativeWords[s.lang] {
		if j, ok := s.seq(i, r.words); ok {
			return j, s.pub.AddDate(0, 0, r.offset), true
		}
	}
	if s.lang == "es" && s.is(i, "mañana") && !s.is(i-1, "la|esta|por|de|cada|una|pasado|misma|media|toda|y") {
		return i + 1, s.pub.AddDate(0, 0, 1), true
	}
	return i, time.Time{}, false
}

// seq matches words at i, each glued or spaced as written.
func (s *scanner) seq(i int, ws []string) (int, bool) {
	for k, w := range ws {
		if s.tok(i+k).s != w {
			return i, false
		}
	}
	return i + len(ws), true
}

// weekdays are the weekday names per language (Monday first), "|"-separated forms.
var weekdays = map[string][7]string{
	"en": {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"},
	"es": {"lunes", "martes", "miércoles|miercoles", "jueves", "viernes", "sábado|sabado", "domingo"},
	"fr": {"lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"},
	"it": {"lunedì|lunedi", "martedì|martedi", "mercoledì|mercoledi", "giovedì|giovedi", "venerdì|venerdi", "sabato", "domenica"},
	"ru": {"понедельник", "вторник", "среда|среду", "четверг", "пятница|пятницу", "суббота|субботу", "воскресенье"},
}

// Weekday qualifiers: next (after the publication day), last (before it).
var (
	nextWords = map[string]string{"en": "next|coming", "es": "próximo|proximo|próxima|proxima|siguiente",
		"fr": "prochain|prochaine", "it": "prossimo|prossima", "ru": "следующий|следующую|следующее|ближайший|ближайшую|будущий|будущую"}
	lastWords = map[string]string{"en": "last|past|previous", "es": "pasado|pasada|anterior",
		"fr": "dernier|dernière|derniere|passé|passe", "it": "scorso|scorsa|passato|passata", "ru": "прошлый|прошлую|прошлое|прошедший|прошедшую"}
)

// weekday matches a weekday name: "el jueves", "lundi dernier", "lunedì scorso", "в
// прошлую пятницу", "next Monday". With "next" (próximo, prochain, prossimo, следующий) it is
// the first such day after the publication day; with "last" (pasado, dernier, scorso,
// прошлый) the last one before it; alone, the latest one on or before it (news reports what
// happened). Before a day number and a month ("jueves 17 de febrero") it is left to the date;
// before a day number alone ("venerdì 18 e lunedì 21 febbraio") it is the day of that number,
// within five weeks of the publication day, that falls on that weekday. Weekday names are read
// in the text's language only.
func (s *scanner) weekday(i int) (int, time.Time, bool) {
	names, ok := weekdays[s.lang]
	if !ok {
		return i, time.Time{}, false
	}
	next, last := nextWords[s.lang], lastWords[s.lang]
	k, dir := i, 0
	switch {
	case s.is(k, next):
		k, dir = k+1, 1
	case s.is(k, last):
		k, dir = k+1, -1
	}
	wd := -1
	for n, alts := range names {
		if s.is(k, alts) {
			wd = n
			break
		}
	}
	if wd < 0 {
		return i, time.Time{}, false
	}
	if s.is(k-1, "los|les|i|every|each|todos|tous|ogni|каждый|каждую|каждое|по") || s.lang == "en" && strings.HasSuffix(s.tok(k).s, "s") {
		return i, time.Time{}, false // a habit, not a day: "los lunes", "every Monday", "on Mondays"
	}
	j := k + 1
	if n := s.tok(j); n.num >= 1 && n.num <= 31 && len(n.s) <= 2 {
		if monthOf(s.tok(s.skipWord(s.ordinalEnd(j+1), "de|of|di")).s) > 0 || s.glued(j+1) && s.is(j+1, "/|.|-") {
			return i, time.Time{}, false
		}
		if t, ok := s.weekdayNumber(wd, n.num); ok {
			return j + 1, t, true
		}
		return i, time.Time{}, false
	}
	if dir == 0 {
		switch {
		case s.is(j, next):
			j, dir = j+1, 1
		case s.is(j, last):
			j, dir = j+1, -1
		}
	}
	pubWd := (int(s.pub.Weekday()) + 6) % 7 // Monday 0
	switch dir {
	case 1:
		off := (wd - pubWd + 7) % 7
		if off == 0 {
			off = 7
		}
		return j, s.pub.AddDate(0, 0, off), true
	case -1:
		off := (pubWd - wd + 7) % 7
		if off == 0 {
			off = 7
		}
		return j, s.pub.AddDate(0, 0, -off), true
	}
	return j, s.pub.AddDate(0, 0, -((pubWd - wd + 7) % 7)), true
}

// weekdayNumber is the day numbered n, within five weeks of the publication day, that falls on
// weekday wd (Monday 0); the nearest if several do.
func (s *scanner) weekdayNumber(wd, n int) (time.Time, bool) {
	for off := 0; off <= 35; off++ {
		for _, t := range []time.Time{s.pub.AddDate(0, 0, -off), s.pub.AddDate(0, 0, off)} {
			if t.Day() == n && (int(t.Weekday())+6)%7 == wd {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// months are the month names of the six languages' Latin and Cyrillic scripts, with the
// number of each; English and French abbreviations too.
var months = func() map[string]int {
	m := map[string]int{}
	for n, names := range [12]string{
		"january|jan|enero|janvier|janv|gennaio|января|январь",
		"february|feb|febrero|février|fevrier|févr|fevr|febbraio|февраля|февраль",
		"march|mar|marzo|mars|марта|март",
		"april|apr|abril|avril|avr|aprile|апреля|апрель",
		"may|mayo|mai|maggio|мая|май",
		"june|jun|junio|juin|giugno|июня|июнь",
		"july|jul|julio|juillet|juil|luglio|июля|июль",
		"august|aug|agosto|août|aout|августа|август",
		"september|sep|sept|septiembre|setiembre|septembre|settembre|сентября|сентябрь",
		"october|oct|octubre|octobre|ottobre|октября|октябрь",
		"november|nov|noviembre|novembre|ноября|ноябрь",
		"december|dec|diciembre|décembre|decembre|déc|dicembre|декабря|декабрь",
	} {
		for w := range strings.SplitSeq(names, "|") {
			m[w] = n + 1
		}
	}
	return m
}()

// monthOf is the month a word names, or 0.
func monthOf(w string) int { return months[w] }

// monthAbbrev reports whether w is a month's abbreviation (may take a dot).
func monthAbbrev(w string) bool {
	switch w {
	case "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "janv", "févr", "fevr", "avr", "juil", "déc":
		return true
	}
	return false
}
