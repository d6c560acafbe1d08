// Package ident finds the structured identifiers of regulatory and financial text — circular
// and document numbers, section, regulation and article numbers, instruments, amounts — in
// English, Russian and Chinese, and writes each in one normal form, so that a query naming one
// finds the texts that hold it as a whole, however either spells it ("Section 4 (2)(b)" and
// "section 4(2)(b)", "Rs. 15,000 crore" and "₹15000 crore", «ст. 5» and «статья 5», 第十二条 and
// 第12条). A word analyzer splits them into pieces that match everywhere ("4", "2", "b").
//
// It imports nothing but the standard library.
package ident

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind names what an identifier is.
type Kind string

const (
	Document   Kind = "document"   // RBI/2025-26/252, SEBI/HO/CFD/CMD1/CIR/P/2020/12, FEMA 6(R)/2026-RB, Circular No. 24, № 115-ФЗ, 银发〔2025〕12号
	Provision  Kind = "provision"  // Section 4(2)(b), Regulation 31A, статья 5, пункт 3.1, 第十二条
	Instrument Kind = "instrument" // 91-day T-bill, 7.26% GS 2033
	Amount     Kind = "amount"     // Rs. 15,000 crore, ₹500 lakh, $2.5 billion, 100 млрд руб.
)

// Ranks reports whether a query's identifier of kind k ranks the texts that hold it first
// (retrieval's exact match): a document number, a provision or an instrument names one text or
// a few; an amount is found and matched but does not rank, since news questions name amounts
// as context ("bought Rockstar for $3.85bn": 133 of realtimeqa's 5,123) and how that ranking
// would move them is not measured.
func (k Kind) Ranks() bool { return k != Amount }

// Ranking is the identifiers of ids whose kind ranks (Kind.Ranks).
func Ranking(ids []ID) []ID {
	var out []ID
	for _, id := range ids {
		if id.Kind.Ranks() {
			out = append(out, id)
		}
	}
	return out
}

// ID is one identifier: its kind and its normal form (Norm), what two spellings share.
type ID struct {
	Kind Kind
	Norm string
}

var (
	// A document number with slashes: an upper-case body, then at least two more parts
	// ("RBI/2025-26/252"), or a code and a number before them ("FEMA 6(R)/2026-RB").
	slashID = regexp.MustCompile(`\b(?:[A-Z]{2,15}[ .]?\d+(?:\([A-Za-z0-9]{1,3}\))?(?:/[A-Za-z0-9().\-]+)+|[A-Z][A-Za-z]{1,15}(?:/[A-Za-z0-9().\-]+){2,})`)
	// "Circular No. 24", "Notification No 12/2020".
	numberedDoc = regexp.MustCompile(`(?i)\b(circular|notification|master direction|master circular|order|press release)\s+no\.?\s*(\d[\w\-/]*)`)
	// Russian "№ 115-ФЗ", "№123-П".
	ruNumber = regexp.MustCompile(`№\s?(\d+(?:[-‐][А-Яа-яA-Za-z]{1,4})?)`)
	// Chinese document numbers: 银发〔2025〕12号, 证监发[2019]3号: the issuer's last two
	// characters (what comes before them varies: 根据银发…).
	zhDoc = regexp.MustCompile(`([\p{Han}]{1,2})[〔\[［(（]\s*(\d{4})\s*[〕\]］)）]\s*(\d+)\s*号`)
	// "Section 4(2)(b)", "Regulation 31A", "Rule 5", "Article 12", "Clause 3(a)", "Schedule II".
	provision = regexp.MustCompile(`(?i)\b(sections?|regulations?|rules?|articles?|clauses?|sub-regulations?|paragraphs?|para)\s+(\d+[A-Za-z]{0,2}(?:\s?\([A-Za-z0-9]{1,4}\))*)`)
	// Russian provisions: статья 5, ст. 5, пункт 3.1, п. 3, часть 2, ч. 2, глава 4.
	ruProvision = regexp.MustCompile(`(?i)(стать[яиюейя]|ст\.|пункт[а-я]{0,2}|п\.|част[ьиюей]{1,2}|ч\.|глав[аыуе])\s?(\d+(?:\.\d+)*)`)
	// Chinese provisions: 第十二条, 第12条, 第三章, 第二款.
	zhProvision = regexp.MustCompile(`第\s?([0-9零〇一二两三四五六七八九十百千]+)\s?(条|章|款|项|节)`)
	// "91-day T-bill(s)", "364 day treasury bill".
	tbill = regexp.MustCompile(`(?i)\b(\d{2,3})[\s-]?days?\s+(?:t-?bills?|treasury\s+bills?)`)
	// A government security by coupon and year: "7.26% GS 2033", "7.18% GOI 2037".
	gsec = regexp.MustCompile(`(?i)\b(\d{1,2}\.\d{1,2})\s?%\s?(?:gs|goi|g-sec|government stock)\s?(\d{4})\b`)
	// Amounts with a currency: Rs. 15,000 crore, ₹500 lakh, INR 2 billion, $2.5 billion,
	// USD 10 million, €3 bn.
	// The currency is case-sensitive: "RS 7" is a car, "Rs 7" rupees.
	amount = regexp.MustCompile(`(Rs\.?|INR|₹|USD|US\$|\$|EUR|€)\s?(\d{1,3}(?:\s\d{3})+(?:\.\d+)?|\d[\d,]*(?:\.\d+)?)(?:\s?((?i:crores?|lakhs?|lacs?|million|mn|billion|bn|trillion|tn))\b)?`)
	// Russian amounts: 100 млрд руб., 5 трлн рублей, 300 млн долларов.
	ruAmount = regexp.MustCompile(`(?i)(\d[\d\s,]*(?:[.,]\d+)?)\s?(млн|млрд|трлн|тыс\.?)\s?(руб|рубл|долл|\$|евро)`)
)

// Find returns the identifiers text holds, each once, in the order they first appear.
func Find(text string) []ID { return find(text, nil) }

// find is Find over the kinds in only (nil: every kind).
func find(text string, only map[Kind]bool) []ID {
	type hit struct {
		at int
		id ID
	}
	var hits []hit
	each := func(re *regexp.Regexp, k Kind, norm func(m []string) string) {
		if only != nil && !only[k] {
			return
		}
		for _, ix := range re.FindAllStringSubmatchIndex(text, -1) {
			m := make([]string, len(ix)/2)
			for i := range m {
				if ix[2*i] >= 0 {
					m[i] = text[ix[2*i]:ix[2*i+1]]
				}
			}
			hits = append(hits, hit{ix[0], ID{k, norm(m)}})
		}
	}
	each(slashID, Document, func(m []string) string { return strings.TrimRight(squash(strings.ToLower(m[0])), ".-") }) // a sentence's full stop
	each(numberedDoc, Document, func(m []string) string {
		return strings.ToLower(m[1]) + " no " + strings.ToLower(m[2])
	})
	each(ruNumber, Document, func(m []string) string {
		return "№" + strings.ToLower(strings.ReplaceAll(m[1], "‐", "-"))
	})
	each(zhDoc, Document, func(m []string) string { return m[1] + "[" + m[2] + "]" + m[3] + "号" })
	each(provision, Provision, func(m []string) string {
		n := squash(strings.ToLower(m[2]))
		if y, err := strconv.Atoi(n); err == nil && y >= 1900 && y <= 2100 {
			return "" // "Regulations, 2011": the year of a regulation set, not a provision
		}
		return singular(strings.ToLower(m[1])) + " " + n
	})
	each(ruProvision, Provision, func(m []string) string { return ruWord(m[1]) + " " + m[2] })
	each(zhProvision, Provision, func(m []string) string {
		n, ok := hanNumber(m[1])
		if !ok {
			return ""
		}
		return "第" + strconv.Itoa(n) + m[2]
	})
	each(tbill, Instrument, func(m []string) string { return m[1] + "-day t-bill" })
	each(gsec, Instrument, func(m []string) string { return m[1] + "% gs " + m[2] })
	each(amount, Amount, func(m []string) string {
		cur := map[string]string{"Rs": "inr", "Rs.": "inr", "INR": "inr", "₹": "inr", "USD": "usd", "US$": "usd", "$": "usd", "EUR": "eur", "€": "eur"}[m[1]]
		return strings.TrimSpace(cur + " " + number(m[2]) + " " + scale(m[3]))
	})
	each(ruAmount, Amount, func(m []string) string {
		cur := map[string]string{"руб": "rub", "рубл": "rub", "долл": "usd", "$": "usd", "евро": "eur"}[strings.ToLower(m[3])]
		return cur + " " + number(m[1]) + " " + map[string]string{"млн": "million", "млрд": "billion", "трлн": "trillion", "тыс": "thousand", "тыс.": "thousand"}[strings.ToLower(m[2])]
	})
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	var out []ID
	seen := map[ID]bool{}
	for _, h := range hits {
		if h.id.Norm != "" && !seen[h.id] {
			seen[h.id] = true
			out = append(out, h.id)
		}
	}
	return out
}

// Matcher counts which of a query's identifiers a text holds, fast enough to run over every
// chunk an as-of search allows: a text without an identifier's digits and its word (any of
// its spellings, in the three cases a text writes them) is passed over before a pattern reads
// it, and only the patterns of the identifiers' kinds run.
type Matcher struct {
	ids   []ID
	needs []need
	kinds map[Kind]bool
}

// need is what a text must contain before an identifier's patterns read it: all of all, and
// one of any (none: no such test).
type need struct {
	all []string
	any []string
	// anchor is where in a text the identifier must be: the patterns read around it.
	anchor string
}

// NewMatcher matches ids (nil when there are none).
func NewMatcher(ids []ID) *Matcher {
	if len(ids) == 0 {
		return nil
	}
	m := &Matcher{ids: ids, kinds: map[Kind]bool{}}
	for _, id := range ids {
		m.kinds[id.Kind] = true
		m.needs = append(m.needs, needOf(id))
	}
	return m
}

// IDs are the identifiers matched.
func (m *Matcher) IDs() []ID { return m.ids }

// Count is how many of the identifiers text holds.
func (m *Matcher) Count(text string) int {
	n := 0
	for i, id := range m.ids {
		if m.needs[i].met(text) && m.holds(text, id, m.needs[i].anchor) {
			n++
		}
	}
	return n
}

// window is how far around an anchor the patterns read: an identifier's text spans its anchor
// (its longest run of digits, or 第) and at most this many bytes on either side.
const window = 72

// holds reads the text around each place anchor occurs for id (the whole text without an
// anchor): the patterns cost far more than the search for the anchor, and a long text holds an
// identifier's digits in few places.
func (m *Matcher) holds(text string, id ID, anchor string) bool {
	if anchor == "" {
		return slices.Contains(find(text, m.kinds), id)
	}
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], anchor)
		if i < 0 {
			return false
		}
		at := from + i
		lo, hi := max(0, at-window), min(len(text), at+len(anchor)+window)
		for lo > 0 && !unicode.IsSpace(rune(text[lo-1])) && at-lo < 2*window { // start at a word, not inside one
			lo--
		}
		for hi < len(text) && !utf8.RuneStart(text[hi]) {
			hi++
		}
		for lo > 0 && !utf8.RuneStart(text[lo]) {
			lo--
		}
		if slices.Contains(find(text[lo:hi], m.kinds), id) {
			return true
		}
		from = at + len(anchor)
	}
	return false
}

func (n need) met(text string) bool {
	for _, s := range n.all {
		if !strings.Contains(text, s) {
			return false
		}
	}
	if len(n.any) == 0 {
		return true
	}
	return slices.ContainsFunc(n.any, func(s string) bool { return strings.Contains(text, s) })
}

// needOf is what a text holding id contains whatever its spelling.
func needOf(id ID) need {
	var n need
	d := digits(id.Norm)
	switch {
	case strings.HasPrefix(id.Norm, "第"): // 第十二条 is 第12条: the unit character only
		n.all = []string{"第", id.Norm[len(id.Norm)-len("条"):]} // the unit: 条, 章, 款, 项 or 节
		n.anchor = "第"
		return n
	case id.Kind == Amount && len(d) > 2: // 15,000 and 15 000 are 15000
		d = d[:2]
	}
	if d != "" {
		n.all = append(n.all, d)
		n.anchor = d
	}
	word, _, _ := strings.Cut(id.Norm, " ")
	switch {
	case id.Kind == Provision && word == "статья":
		n.any = []string{"стать", "Стать", "СТАТЬ", "ст.", "Ст."}
	case id.Kind == Provision && word == "пункт":
		n.any = []string{"пункт", "Пункт", "ПУНКТ", "п.", "П."}
	case id.Kind == Provision && word == "часть":
		n.any = []string{"част", "Част", "ЧАСТ", "ч.", "Ч."}
	case id.Kind == Provision && word == "глава":
		n.any = []string{"глав", "Глав", "ГЛАВ"}
	case id.Kind == Provision:
		w := strings.TrimSuffix(word, "graph") // paragraph, para
		n.any = []string{w, strings.ToUpper(w[:1]) + w[1:], strings.ToUpper(w)}
	case id.Kind == Instrument && strings.HasSuffix(id.Norm, "t-bill"):
		n.any = []string{"bill", "Bill", "BILL"}
	}
	return n
}

// Holds reports whether text holds id (in any spelling Find reads as it).
func Holds(text string, id ID) bool { return NewMatcher([]ID{id}).Count(text) == 1 }

// digits is the longest run of ASCII digits in s.
func digits(s string) string {
	best, cur := "", 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			cur++
			continue
		}
		if cur > len(best) {
			best = s[i-cur : i]
		}
		cur = 0
	}
	return best
}

// squash drops the spaces inside an identifier ("4 (2) (b)" → "4(2)(b)").
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// singular is an English provision word without its plural, "para" as "paragraph".
func singular(w string) string {
	if w == "para" {
		return "paragraph"
	}
	return strings.TrimSuffix(w, "s")
}

// ruWord is a Russian provision word in its dictionary form.
func ruWord(w string) string {
	w = strings.ToLower(w)
	switch {
	case strings.HasPrefix(w, "ст"):
		return "статья"
	case strings.HasPrefix(w, "п"):
		return "пункт"
	case strings.HasPrefix(w, "ч"):
		return "часть"
	default:
		return "глава"
	}
}

// number is a written number without its grouping commas or spaces ("15,000" → "15000").
func number(s string) string {
	s = squash(s)
	// A comma before three digits groups thousands, one before two digits and another comma
	// groups Indian lakhs (1,50,000); any other is a decimal comma.
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			rest := s[i+1:]
			end := func(n int) bool { return len(rest) == n || !isDigit(rest[n]) }
			if len(rest) >= 3 && isDigits(rest[:3]) && end(3) || len(rest) >= 3 && isDigits(rest[:2]) && rest[2] == ',' {
				continue
			}
			b.WriteByte('.')
			continue
		}
		b.WriteByte(s[i])
	}
	return strings.TrimRight(b.String(), ".")
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isDigits(s string) bool {
	for i := range len(s) {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// scale is an amount's scale word in one spelling.
func scale(w string) string {
	switch strings.ToLower(w) {
	case "crore", "crores":
		return "crore"
	case "lakh", "lakhs", "lac", "lacs":
		return "lakh"
	case "million", "mn":
		return "million"
	case "billion", "bn":
		return "billion"
	case "trillion", "tn":
		return "trillion"
	}
	return ""
}

// hanNumber reads a number written in digits or Chinese numerals up to the thousands
// (十二 → 12, 一百零五 → 105, 两千 → 2000).
func hanNumber(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, true
	}
	vals := map[rune]int{'零': 0, '〇': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	units := map[rune]int{'十': 10, '百': 100, '千': 1000}
	total, cur := 0, 0
	for _, r := range s {
		if v, ok := vals[r]; ok {
			cur = v
			continue
		}
		u, ok := units[r]
		if !ok {
			return 0, false
		}
		if cur == 0 {
			cur = 1 // 十二: ten and two
		}
		total += cur * u
		cur = 0
	}
	return total + cur, true
}
