package lifecycle

import (
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/asofrag/asof/internal/textnorm"
)

// Identifiers are the names a regulator gives its texts and that other texts cite: circular
// and notification numbers ("RBI/2025-26/252", "SEBI/HO/CFD/CMD1/CIR/P/2020/12",
// "DOR.ACC.REC.118/21-02-067/2025-26", "Circular No. 24", "FEMA 6(R)/2026-RB"), Russian
// numbers («№ 123-ФЗ», «№ 5678-У») and Chinese document numbers (银发〔2023〕12号). Each is
// normalized (Norm) so that a citation matches the text it names whatever its spacing and case.
var idPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\b(?:RBI|SEBI|IRDAI|PFRDA|NABARD|NHB)(?:/[A-Za-z0-9().&_-]+){2,}`),
	regexp.MustCompile(`\b[A-Z]{2,}(?:\.[A-Z0-9]{2,})+\.?\s?(?:No\.?\s?)?\d+/[0-9./-]*\d`),
	regexp.MustCompile(`(?i)\b(?:master\s+)?(?:circular|notification|direction|directions|order|guidelines|instruction)\s+No\.?\s*(?:[A-Z]{2,}\s)?[A-Za-z0-9][A-Za-z0-9()./-]*[A-Za-z0-9)]`),
	regexp.MustCompile(`\bFEMA\s?\d+[A-Z]?(?:\s?\([A-Z]\))?(?:/\(\d+\))?/\d{4}-RB\b`),
	regexp.MustCompile(`№\s?\d+(?:[-–][0-9A-Za-zА-Яа-яЁё]+)*`),
	regexp.MustCompile(`\p{Han}{1,8}[〔\[［(（]\d{4}[〕\]］)）]\s?\d+\s?号`),
}

// Norm is an identifier or a title in the form matching compares: lower case, every run of
// spaces, dashes and brackets as one space, "no." and "№" alike.
func Norm(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("№", " no ", "〔", "(", "〕", ")", "［", "(", "］", ")", "（", "(", "）", ")", "[", "(", "]", ")", "–", "-", "—", "-").Replace(s)
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '/' || r == '(' || r == ')':
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

// Identifiers lists the identifiers in s, normalized (Norm), in order, without repeats.
func Identifiers(s string) []string {
	var out []string
	for _, re := range idPatterns {
		for _, m := range re.FindAllString(s, -1) {
			n := Norm(m)
			if n != "" && !contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// revisedTitle matches a title that says it replaces an earlier notice of the same title:
// "Auction of State Government Securities (Revised)", "… (Corrected)", «… (исправленная
// редакция)», «… (новая редакция)», "…（修订）", "…（更正）".
var revisedTitle = regexp.MustCompile(`(?i)\s*[(（\[]\s*(?:revised|corrected|corrigendum|amended|updated|исправлен\p{L}*(?:\s+\p{L}+)?|нов\p{L}*\s+редакци\p{L}*|修订|更正|修正)\s*[)）\]]\s*$`)

// Instrument is the instrument a text belongs to, as its title names it (normalized): the
// passages of "SEBI (Mutual Funds) Regulations, 1996" share one. A revised notice's title
// names the notice it revises ("… (Revised)"): the second result says so.
func Instrument(title string) (key string, revised bool) {
	t := strings.TrimSpace(title)
	if loc := revisedTitle.FindStringIndex(t); loc != nil {
		t, revised = t[:loc[0]], true
	}
	return Norm(t), revised
}

// provisionRe matches a provision named at the start of a passage: "Regulation 21(1)",
// "Section 4(2)(b)", "Clause 9", "Rule 3A", "Article 5", "Para 2.1", «Статья 5», «Пункт 3.2»,
// 第五条, 第12条. Sub-divisions are short ("(1)", "(pa)", "(iv)"): "(original)" is not one.
var provisionRe = regexp.MustCompile(`(?i)^\s*(?:(regulation|reg\.|section|sec\.|clause|rule|article|art\.|para(?:graph)?|статья|ст\.|пункт|п\.)\s*(\d+[A-Za-zА-Яа-я]?(?:\.\d+)*)((?:\s*\(\s*[0-9A-Za-z]{1,4}\s*\))*)|第\s*([0-9零一二三四五六七八九十百]+)\s*条)`)

// Provision is the provision a passage states, normalized ("regulation 21(1)"), or "" when it
// names none at its start.
func Provision(text string) string {
	m := provisionRe.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	if m[4] != "" {
		return "第" + m[4] + "条"
	}
	word := strings.ToLower(strings.TrimSuffix(m[1], "."))
	switch word {
	case "reg":
		word = "regulation"
	case "sec":
		word = "section"
	case "art":
		word = "article"
	case "paragraph":
		word = "para"
	case "ст":
		word = "статья"
	case "п":
		word = "пункт"
	}
	return word + " " + strings.ToLower(m[2]) + strings.ToLower(strings.Join(strings.Fields(m[3]), ""))
}

// supersessionRe finds the sentences in which a text says it replaces others: "in
// supersession of", "supersedes", "stands repealed", "are hereby rescinded", "is withdrawn",
// "replaces"; «утратившим силу», «утратил силу», «отменить», «взамен»; 废止, 停止执行, 不再执行,
// 代替, 取代.
var supersessionRe = regexp.MustCompile(`(?i)in supersession of|supersed(?:es|ing)|(?:stands?|is|are|be|been|hereby)\s+(?:hereby\s+)?(?:repealed|rescinded|withdrawn|superseded)|\brepeal(?:s|ed)?\b|\breplaces\b|in place of|утратив\p{L}*\s+силу|утратил\p{L}*\s+силу|призна\p{L}*\s+утратив|отмен(?:ить|яется|яются|ены|ен)|взамен|同时废止|予以废止|废止|停止执行|不再执行|代替|取代`)

// Statements are what a text says of other texts.
type Statements struct {
	// Refs are the identifiers and titles it says it supersedes or repeals (normalized).
	Refs []string
	// Effective is the day it says it comes into force, when it names one (zero otherwise).
	Effective time.Time
}

// Read finds what a text states: the texts it supersedes (identifiers in the sentences that
// say so, and the titles of known instruments those sentences quote, matched by titles) and
// the day it comes into force.
func Read(text string, titles []string) Statements {
	var st Statements
	for _, s := range textnorm.Sentences(text) {
		if !supersessionRe.MatchString(s) {
			continue
		}
		for _, id := range Identifiers(s) {
			if !contains(st.Refs, id) {
				st.Refs = append(st.Refs, id)
			}
		}
		ns := Norm(s)
		for _, t := range titles {
			if t != "" && strings.Contains(ns, t) && !contains(st.Refs, t) {
				st.Refs = append(st.Refs, t)
			}
		}
	}
	st.Effective = StatedEffective(text)
	return st
}

// effectiveRe finds the day a text says it applies from: "w.e.f. 18-08-2023", "with effect
// from 1 April 2024", "shall come into force on 2024-04-01", "effective from April 1, 2024",
// «вступает в силу с 1 января 2024 г.», «вступает в силу 01.01.2024», 自2024年1月1日起施行.
var effectiveRe = regexp.MustCompile(`(?i)(?:w\.?\s?e\.?\s?f\.?|with effect from|come into (?:force|effect)(?: on| from)?|effective (?:from|on)|вступа\p{L}*\s+в\s+силу(?:\s+с)?|自)\s*(\S+(?:\s+\S+){0,3})`)

// StatedEffective is the latest day a text says it comes into force (StatedEffective of
// effectiveRe's phrases), or zero.
func StatedEffective(text string) time.Time {
	var best time.Time
	for _, m := range effectiveRe.FindAllStringSubmatch(text, -1) {
		// The day follows the phrase, maybe after another one ("come into force w.e.f. …").
		words := strings.Fields(m[1])
		for i := range words {
			if d, ok := parseDay(strings.Join(words[i:], " ")); ok {
				if d.After(best) {
					best = d
				}
				break
			}
		}
	}
	return best
}

var (
	dmyRe     = regexp.MustCompile(`^(\d{1,2})[-./](\d{1,2})[-./](\d{4})`)
	ymdRe     = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})`)
	dMonthYRe = regexp.MustCompile(`(?i)^(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(\p{L}+),?\s+(\d{4})`)
	monthDYRe = regexp.MustCompile(`(?i)^(\p{L}+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})`)
	zhDayRe   = regexp.MustCompile(`^(\d{4})年(\d{1,2})月(\d{1,2})日`)
)

// months maps month names (English, Russian genitive and nominative stems) to their numbers.
var months = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8, "september": 9,
	"october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
	"января": 1, "февраля": 2, "марта": 3, "апреля": 4, "мая": 5, "июня": 6, "июля": 7, "августа": 8, "сентября": 9,
	"октября": 10, "ноября": 11, "декабря": 12,
}

// parseDay reads a day at the start of s: DD-MM-YYYY (and . or /), YYYY-MM-DD, "1 April
// 2024", "April 1, 2024", «1 января 2024», 2024年1月1日.
func parseDay(s string) (time.Time, bool) {
	mk := func(y, m, d int) (time.Time, bool) {
		if y < 1000 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31 {
			return time.Time{}, false
		}
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		return t, t.Day() == d
	}
	if m := zhDayRe.FindStringSubmatch(s); m != nil {
		return mk(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	if m := ymdRe.FindStringSubmatch(s); m != nil {
		return mk(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	if m := dmyRe.FindStringSubmatch(s); m != nil {
		return mk(atoi(m[3]), atoi(m[2]), atoi(m[1]))
	}
	if m := dMonthYRe.FindStringSubmatch(s); m != nil {
		if mo, ok := months[strings.ToLower(m[2])]; ok {
			return mk(atoi(m[3]), int(mo), atoi(m[1]))
		}
	}
	if m := monthDYRe.FindStringSubmatch(s); m != nil {
		if mo, ok := months[strings.ToLower(m[1])]; ok {
			return mk(atoi(m[3]), int(mo), atoi(m[2]))
		}
	}
	return time.Time{}, false
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}
