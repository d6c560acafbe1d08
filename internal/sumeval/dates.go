package sumeval

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/asofrag/asof/internal/asofday"
)

// Date is one calendar day a text states.
type Date struct {
	// Day is the day, midnight UTC.
	Day time.Time
	// Text is the matched text ("4 сентября 2025", "2025-09-04").
	Text string
	// Start is the byte offset of Text in the text searched.
	Start int
}

// Forms of a stated day. Each pattern's groups are named d (day), m (month: digits or a
// name) and y (four-digit year, optional for the named-month forms).
var (
	isoDate    = regexp.MustCompile(`\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b`)
	dottedDate = regexp.MustCompile(`\b(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})\b`)
	ruDate     = regexp.MustCompile(`(?i)\b(?P<d>\d{1,2})\s+(?P<m>января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря)(?:\s+(?P<y>\d{4}))?`)
	enDayMonth = regexp.MustCompile(`(?i)\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?P<m>january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?(?:,?\s+(?P<y>\d{4}))?`)
	enMonthDay = regexp.MustCompile(`(?i)\b(?P<m>january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?(?:,\s*(?P<y>\d{4}))?`)
	allForms   = []*regexp.Regexp{isoDate, dottedDate, ruDate, enDayMonth, enMonthDay}
)

// monthNames maps a lower-case month name (Russian genitive, English full or abbreviated) to
// its month.
var monthNames = map[string]time.Month{
	"января": 1, "февраля": 2, "марта": 3, "апреля": 4, "мая": 5, "июня": 6,
	"июля": 7, "августа": 8, "сентября": 9, "октября": 10, "ноября": 11, "декабря": 12,
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}

// Dates returns the days text states, in order of position. It reads
//
//	2025-09-04        ISO
//	04.09.2025        day.month.year
//	4 сентября 2025   Russian day + genitive month (+ year; "года", "г." may follow)
//	4 September 2025  English day + month (full or abbreviated, "4th", "Sep.", optional comma)
//	Sep 4, 2025       English month + day (+ ", year")
//
// A named-month form without a year ("4 сентября", "Sep 4") is dated in the year of anchor,
// or the year before when that day would fall after anchor's day (a summary written on
// 2025-09-04 saying "28 декабря" means 2024-12-28). Month-and-year alone ("в июле 2025")
// names no day and is not read; nor is an impossible day ("31.02.2025"). A month name must
// end at a non-letter ("мая" is not read in "маяк"). Where two forms overlap, the one that
// starts first wins, then the longer. With isoOnly, only the ISO form is read.
func Dates(text string, anchor time.Time, isoOnly bool) []Date {
	forms := allForms
	if isoOnly {
		forms = forms[:1]
	}
	anchor = asofday.Start(anchor)
	type span struct {
		start, end int
		day        time.Time
	}
	var spans []span
	for _, re := range forms {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			get := func(name string) string {
				i := re.SubexpIndex(name)
				if m[2*i] < 0 {
					return ""
				}
				return text[m[2*i]:m[2*i+1]]
			}
			end := m[1]
			if re != isoDate && re != dottedDate {
				if r, _ := utf8.DecodeRuneInString(text[end:]); unicode.IsLetter(r) && get("y") == "" {
					continue // a month name that runs on ("маяк", "Mayor")
				}
			}
			day, ok := makeDay(get("y"), get("m"), get("d"), anchor)
			if !ok {
				continue
			}
			spans = append(spans, span{m[0], end, day})
		}
	}
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var out []Date
	last := -1
	for _, s := range spans {
		if s.start < last {
			continue
		}
		out = append(out, Date{Day: s.day, Text: text[s.start:s.end], Start: s.start})
		last = s.end
	}
	return out
}

// makeDay builds the day from its parts; ok is false for an impossible day.
func makeDay(ys, ms, ds string, anchor time.Time) (time.Time, bool) {
	d, err := strconv.Atoi(ds)
	if err != nil {
		return time.Time{}, false
	}
	month, ok := monthNames[strings.ToLower(ms)]
	if !ok {
		n, err := strconv.Atoi(ms)
		if err != nil {
			return time.Time{}, false
		}
		month = time.Month(n)
	}
	if month < 1 || month > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	y := anchor.Year()
	if ys != "" {
		if y, err = strconv.Atoi(ys); err != nil {
			return time.Time{}, false
		}
	}
	t := time.Date(y, month, d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // 31.02 rolled over
		return time.Time{}, false
	}
	if ys == "" && t.After(anchor) {
		t = t.AddDate(-1, 0, 0)
		if t.Day() != d { // 29 February of a year without one
			return time.Time{}, false
		}
	}
	return t, true
}
