package brief

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/schemas"
)

// replyClaim is one claim as the model writes it. Cites are read as any JSON values so that
// a bad one is a named problem of its claim rather than a failure of the whole reply.
type replyClaim struct {
	Date  *string `json:"date"`
	Text  string  `json:"text"`
	Cites []any   `json:"cites"`
}

// briefReply is the reply of BriefFormat.
type briefReply struct {
	NotEnough bool         `json:"not_enough"`
	New       []replyClaim `json:"new"`
	Timeline  []replyClaim `json:"timeline"`
}

// evolutionReply is the reply of EvolutionFormat. A "change" field, or any other, is ignored.
type evolutionReply struct {
	NotEnough bool         `json:"not_enough"`
	Then      []replyClaim `json:"then"`
	Now       []replyClaim `json:"now"`
}

// ParseBrief reads a reply in BriefFormat and checks it against the blocks as of asOf's
// day with a newDays "new" window. Problems (all reported together in a *CheckError):
//
//   - the reply is not one JSON object (it may be wrapped in a single ```json fence);
//   - a claim has empty text, or no cites;
//   - a cite is not a number, or names no block;
//   - a [N] mark in a claim's text is not among its cites (marks that are are removed, since
//     the cites are rendered after the text);
//   - a date in a claim's text (YYYY-MM-DD, "2 March 2023", "March 2, 2023", "2 марта 2023")
//     is neither the publication date of a block it cites nor written in one's title or text;
//   - a "new" claim cites no block published in the new window;
//   - a timeline entry has no date, one not in YYYY-MM-DD form, one after the as-of day, or
//     one that is not the publication date of a block it cites;
//   - not_enough is false and the timeline is empty.
//
// not_enough true with no claims is a valid answer; with claims, they are kept (and checked).
// A claim citing more than MaxCites blocks keeps only MaxCites of them (see trimCites) before
// it is checked. In the Brief, a "new" claim's Date is the publication time of the block it
// cites in the new window that shares the most words with it, the earliest of a tie
// (supportedDate: a decision reported on the 25th and discussed on the 28th is dated the 25th;
// a cited block about something else dates nothing) and New is freshest first; Timeline is the
// timeline in ascending date order (sorted, stably: a timeline out of order is not a problem),
// each Date the given day; Earlier is the timeline entries dated before the new window,
// freshest first. AsOf is the
// start of asOf's UTC day, NewDays newDays; Method is left empty. Bad blocks or a zero asOf
// are an error wrapping ErrInput.
func ParseBrief(reply string, blocks []evidence.Block, asOf time.Time, newDays int) (schemas.Brief, error) {
	return parseBrief(reply, blocks, asOf, newDays, nil)
}

// parseBrief is ParseBrief; with script, each claim must also be written in it (the question's
// script, scriptOf).
func parseBrief(reply string, blocks []evidence.Block, asOf time.Time, newDays int, script *unicode.RangeTable) (schemas.Brief, error) {
	d, err := checkInput(asOf, newDays, blocks)
	if err != nil {
		return schemas.Brief{}, err
	}
	var r briefReply
	k := newChecker(d, blocks)
	k.script = script
	if !k.decode(reply, &r) {
		return schemas.Brief{}, k.err()
	}
	from := newFrom(asOf, newDays)
	window := "the new window (none: \"new\" must be [])"
	if newDays > 0 {
		window = "the new window, " + from.Format(evidence.DateLayout) + " to " + d.Format(evidence.DateLayout)
	}
	b := schemas.Brief{AsOf: d, NewDays: newDays, New: []schemas.Claim{}, Earlier: []schemas.Claim{}, Timeline: []schemas.Claim{}, NotEnough: r.NotEnough}
	inWindow := func(bl evidence.Block) bool { return !bl.Doc.PublishedAt.Before(from) }
	for i, rc := range r.New {
		where := fmt.Sprintf("new #%d", i+1)
		from := len(k.problems)
		c, cited := k.claim(where, rc, nil, "", inWindow)
		if len(cited) > 0 && !slices.ContainsFunc(cited, inWindow) {
			k.addf("%s: cites no document published in %s; an older fact belongs in the timeline only", where, window)
		}
		if t := supportedDate(c.Text, cited, inWindow); !t.IsZero() {
			c.Date = t
		}
		k.since(from, claimRef{"new", i})
		b.New = append(b.New, c)
	}
	for i, rc := range r.Timeline {
		where := fmt.Sprintf("timeline #%d", i+1)
		from := len(k.problems)
		var onDate func(evidence.Block) bool
		if rc.Date != nil {
			if t, err := time.Parse(time.DateOnly, strings.TrimSpace(*rc.Date)); err == nil {
				onDate = func(bl evidence.Block) bool { return day(bl.Doc.PublishedAt).Equal(t) }
			}
		}
		c, cited := k.claim(where, rc, nil, "", onDate)
		c.Date = time.Time{}
		switch {
		case rc.Date == nil || strings.TrimSpace(*rc.Date) == "":
			k.addf("%s: has no \"date\"; give the publication date (YYYY-MM-DD) of a document it cites", where)
		default:
			t, perr := time.Parse(time.DateOnly, strings.TrimSpace(*rc.Date))
			switch {
			case perr != nil:
				k.addf("%s: date %q is not a date in YYYY-MM-DD form", where, *rc.Date)
			case t.After(d):
				k.addf("%s: date %s is after the as-of day %s", where, t.Format(evidence.DateLayout), d.Format(evidence.DateLayout))
			case len(cited) > 0 && !slices.ContainsFunc(cited, func(bl evidence.Block) bool { return day(bl.Doc.PublishedAt).Equal(t) }):
				k.addf("%s: date %s is not the publication date of a document it cites (%s)", where, t.Format(evidence.DateLayout), pubDates(cited))
			}
			if perr == nil {
				c.Date = t
			}
		}
		k.since(from, claimRef{"timeline", i})
		b.Timeline = append(b.Timeline, c)
	}
	if !r.NotEnough && len(r.Timeline) == 0 {
		if len(r.New) == 0 {
			k.addf("there are no claims and not_enough is false: write claims, or set not_enough to true if the documents do not answer the question")
		} else {
			k.addf("the timeline is empty and not_enough is false: list the key events, the new ones included, in the timeline")
		}
	}
	if err := k.err(); err != nil {
		return schemas.Brief{}, err
	}
	slices.SortStableFunc(b.New, freshestFirst)
	// Ascending, as asked; a small model often lists the timeline in the documents' order
	// (freshest first), which the dates, each checked, put right without a repair turn.
	slices.SortStableFunc(b.Timeline, func(x, y schemas.Claim) int { return x.Date.Compare(y.Date) })
	for _, c := range b.Timeline {
		if c.Date.Before(from) {
			b.Earlier = append(b.Earlier, c)
		}
	}
	slices.SortStableFunc(b.Earlier, freshestFirst)
	return b, nil
}

// ParseEvolution reads a reply in EvolutionFormat and checks it against the older (then) and
// newer (now) blocks as of asOf's day. The problems are those of ParseBrief that apply to
// claims, and: a "then" claim cites a newer block or a "now" claim an older one; not_enough
// is false and both sides are empty. A "change" field is ignored: it could not be checked
// against one side, and the two sides show the change. In the Brief, each claim's Date is the
// latest publication time among the blocks it cites; Then is oldest first and Now freshest
// first, as summarize.Evolve orders them; New, Earlier and Timeline are empty; AsOf is the
// start of asOf's UTC day.
func ParseEvolution(reply string, then, now []evidence.Block, asOf time.Time) (schemas.Brief, error) {
	return parseEvolution(reply, then, now, asOf, nil)
}

// parseEvolution is ParseEvolution; with script, each claim must also be written in it.
func parseEvolution(reply string, then, now []evidence.Block, asOf time.Time, script *unicode.RangeTable) (schemas.Brief, error) {
	d, err := checkInput(asOf, 0, then, now)
	if err != nil {
		return schemas.Brief{}, err
	}
	var r evolutionReply
	k := newChecker(d, slices.Concat(then, now))
	k.script = script
	if !k.decode(reply, &r) {
		return schemas.Brief{}, k.err()
	}
	side := func(name string, rcs []replyClaim, own []evidence.Block, label string) []schemas.Claim {
		allowed := map[int]bool{}
		for _, bl := range own {
			allowed[bl.N] = true
		}
		out := []schemas.Claim{}
		for i, rc := range rcs {
			from := len(k.problems)
			c, _ := k.claim(fmt.Sprintf("%s #%d", name, i+1), rc, allowed, label, nil)
			k.since(from, claimRef{name, i})
			out = append(out, c)
		}
		return out
	}
	b := schemas.Brief{
		AsOf: d, New: []schemas.Claim{}, Earlier: []schemas.Claim{}, Timeline: []schemas.Claim{},
		Then:      side("then", r.Then, then, "a NEWER document; \"then\" claims cite only OLDER documents ("+numbers(then)+")"),
		Now:       side("now", r.Now, now, "an OLDER document; \"now\" claims cite only NEWER documents ("+numbers(now)+")"),
		NotEnough: r.NotEnough,
	}
	if !r.NotEnough && len(r.Then)+len(r.Now) == 0 {
		k.addf("there are no claims and not_enough is false: write claims, or set not_enough to true if the documents do not answer the question")
	}
	if err := k.err(); err != nil {
		return schemas.Brief{}, err
	}
	slices.SortStableFunc(b.Then, func(x, y schemas.Claim) int { return x.Date.Compare(y.Date) })
	slices.SortStableFunc(b.Now, freshestFirst)
	return b, nil
}

// freshestFirst orders claims by date, newest first.
func freshestFirst(x, y schemas.Claim) int { return y.Date.Compare(x.Date) }

// checker collects the problems of one reply.
type checker struct {
	asOf     time.Time
	blocks   map[int]evidence.Block
	dates    map[int]map[civil]bool // dates written in each block's title and text
	problems []string
	bad      []claimRef // the claims with problems of their own
	// script, when set, is the question's script: a claim with no letter of it is in another
	// language.
	script *unicode.RangeTable
}

// since marks ref bad when problems were added since there were from of them.
func (k *checker) since(from int, ref claimRef) {
	if len(k.problems) > from {
		k.bad = append(k.bad, ref)
	}
}

func newChecker(asOf time.Time, blocks []evidence.Block) *checker {
	k := &checker{asOf: asOf, blocks: map[int]evidence.Block{}, dates: map[int]map[civil]bool{}}
	for _, b := range blocks {
		k.blocks[b.N] = b
		set := map[civil]bool{}
		for _, dt := range findDates(b.Doc.Title + "\n" + blockText(b)) {
			set[dt.civil] = true
		}
		k.dates[b.N] = set
	}
	return k
}

func (k *checker) addf(format string, args ...any) {
	k.problems = append(k.problems, fmt.Sprintf(format, args...))
}

// err is the problems as a *CheckError, or nil.
func (k *checker) err() error {
	if len(k.problems) == 0 {
		return nil
	}
	return &CheckError{Problems: k.problems, bad: k.bad}
}

// codeFence is a reply wrapped in one Markdown code fence.
var codeFence = regexp.MustCompile("(?s)^```[A-Za-z]*[ \t]*\n?(.*?)\n?```$")

// decode reads reply into v, which must be a JSON object, reporting why when it cannot.
func (k *checker) decode(reply string, v any) bool {
	s := strings.TrimSpace(reply)
	if m := codeFence.FindStringSubmatch(s); m != nil && !strings.Contains(m[1], "```") {
		s = strings.TrimSpace(m[1])
	}
	if !strings.HasPrefix(s, "{") {
		k.addf("the reply is not a JSON object: reply with the JSON object only, no text or Markdown around it")
		return false
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		k.addf("the reply is not valid JSON in the format asked for: %v", err)
		return false
	}
	return true
}

// citeMark is a [N] mark in a claim's text, with the spaces before it.
var citeMark = regexp.MustCompile(`\s*\[\s*(\d+)\s*\]`)

// claim checks one claim: where names it in problems; allowed, when not nil, are the block
// numbers it may cite, and other names the rest; prefer, when not nil, marks the blocks one of
// which the claim must keep if it cites more than MaxCites (trimCites). It returns the claim,
// its Date the latest publication time of the blocks it validly cites (after trimming), and
// those blocks.
func (k *checker) claim(where string, rc replyClaim, allowed map[int]bool, other string, prefer func(evidence.Block) bool) (schemas.Claim, []evidence.Block) {
	var c schemas.Claim
	var cited []evidence.Block
	if len(rc.Cites) == 0 {
		k.addf("%s: cites no document; every claim cites one or more documents by number", where)
	}
	for _, v := range rc.Cites {
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1e9 {
			k.addf("%s: cite %s is not a document number", where, jsonText(v))
			continue
		}
		n := int(f)
		b, ok := k.blocks[n]
		switch {
		case !ok:
			k.addf("%s: cites [%d], but there is no document [%d]", where, n, n)
			continue
		case allowed != nil && !allowed[n]:
			k.addf("%s: cites [%d], %s", where, n, other)
			continue
		case slices.Contains(c.Cites, n):
			continue
		}
		c.Cites = append(c.Cites, n)
		cited = append(cited, b)
	}

	valid := c.Cites
	text := citeMark.ReplaceAllStringFunc(rc.Text, func(m string) string {
		n, _ := strconv.Atoi(citeMark.FindStringSubmatch(m)[1])
		if !slices.Contains(valid, n) {
			k.addf("%s: its text has the mark [%d], which is not among its cites; put document numbers in \"cites\" only", where, n)
		}
		return ""
	})
	c.Text = strings.Join(strings.Fields(text), " ")
	cited = k.trimCites(c.Text, cited, prefer)
	c.Cites = c.Cites[:0:0]
	for _, b := range cited {
		c.Cites = append(c.Cites, b.N)
		if b.Doc.PublishedAt.After(c.Date) {
			c.Date = b.Doc.PublishedAt.UTC()
		}
	}
	slices.Sort(c.Cites)
	switch {
	case c.Text == "":
		k.addf("%s: has no text", where)
	case !strings.ContainsFunc(c.Text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }):
		k.addf("%s: text %q says nothing (a placeholder?): write the claim itself", where, c.Text)
	case questionMark.MatchString(c.Text):
		k.addf("%s: asks a question (%q): a claim states what the documents say, it does not restate the question", where, clip(c.Text, 80))
	case k.script != nil && !strings.ContainsFunc(c.Text, func(r rune) bool { return unicode.Is(k.script, r) }):
		k.addf("%s: is not in the language of the question (%q): write it in %s", where, clip(c.Text, 60), scriptNames[k.script])
	}
	if len(cited) > 0 {
		for _, dt := range findDates(c.Text) {
			if !slices.ContainsFunc(cited, func(b evidence.Block) bool {
				return civilOf(b.Doc.PublishedAt) == dt.civil || k.dates[b.N][dt.civil]
			}) {
				k.addf("%s: date %q (%s) is not in the documents it cites (%s)", where, dt.text, dt.civil, pubDates(cited))
			}
		}
	}
	return c, cited
}

// questionMark ends a question in a claim's text: a question mark followed, after any closing
// quotes or brackets, by a space or the end (a "?" inside a URL is not one), or a full-width
// one. A small model sometimes writes the question back as its claim ("… Which Republican
// suffered a string of defeats?"), citing the block it took the words from: the citation checks
// pass it, and the summary lead counts it as an answer.
var questionMark = regexp.MustCompile(`\?["'»”’)\]]*(?:\s|$)|？`)

// scriptNames name the scripts scriptOf tells apart, for a repair message.
var scriptNames = map[*unicode.RangeTable]string{
	unicode.Cyrillic: "the question's language (Cyrillic script, e.g. Russian)",
	unicode.Han:      "the question's language (Chinese characters)",
}

// scriptOf is the script of most of query's letters when it is Cyrillic or Han, else nil (a
// Latin-script question, a mixed one, or none of these). The local 1.5B answered Russian
// questions in English («Курс рубля»: "The current exchange rate … is 81 rubles"; a study
// query in session 20) though the prompt asks for the question's language. A Latin-script
// question is not checked: its claims may rightly be a name or a quote in another script, and
// no English question was answered in another language.
func scriptOf(query string) *unicode.RangeTable {
	counts := map[*unicode.RangeTable]int{}
	letters := 0
	for _, r := range query {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		for t := range scriptNames {
			if unicode.Is(t, r) {
				counts[t]++
			}
		}
	}
	for t, n := range counts {
		if 2*n > letters {
			return t
		}
	}
	return nil
}

// clip is s cut to at most n runes, with "…" when cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// jsonText is v as JSON, for a problem message.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// pubDates lists blocks as "[1] 2024-06-28, [3] 2024-05-01".
func pubDates(blocks []evidence.Block) string {
	s := make([]string, len(blocks))
	for i, b := range blocks {
		s[i] = fmt.Sprintf("[%d] %s", b.N, b.Doc.PublishedAt.UTC().Format(evidence.DateLayout))
	}
	return strings.Join(s, ", ")
}

// civil is a calendar date as written, not necessarily a valid one ("2023-02-30").
type civil struct {
	y int
	m time.Month
	d int
}

func (c civil) String() string { return fmt.Sprintf("%04d-%02d-%02d", c.y, int(c.m), c.d) }

func civilOf(t time.Time) civil {
	y, m, d := t.UTC().Date()
	return civil{y, m, d}
}

// writtenDate is a date found in a text.
type writtenDate struct {
	text  string
	civil civil
}

// months maps English month names and abbreviations and Russian genitive month names to
// months.
var months = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
	"september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
	"december": 12, "dec": 12,
	"января": 1, "февраля": 2, "марта": 3, "апреля": 4, "мая": 5, "июня": 6,
	"июля": 7, "августа": 8, "сентября": 9, "октября": 10, "ноября": 11, "декабря": 12,
}

const (
	enMonth  = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)`
	ruMonth  = `(января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря)`
	ordinal  = `(?:st|nd|rd|th)?`
	yearPart = `(\d{4})\b`
)

// datePatterns find written dates; idx gives the submatch indexes of year, month and day.
var datePatterns = []struct {
	re  *regexp.Regexp
	idx [3]int
}{
	{regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})`), [3]int{1, 2, 3}},                                                     // 2023-03-02
	{regexp.MustCompile(`(?i)\b(\d{1,2})` + ordinal + `\s+(?:of\s+)?` + enMonth + `\.?,?\s+` + yearPart), [3]int{3, 2, 1}}, // 2 March 2023
	{regexp.MustCompile(`(?i)\b` + enMonth + `\.?\s+(\d{1,2})` + ordinal + `,?\s+` + yearPart), [3]int{3, 1, 2}},           // March 2, 2023
	{regexp.MustCompile(`(?i)\b(\d{1,2})\s+` + ruMonth + `\s+` + yearPart), [3]int{3, 2, 1}},                               // 2 марта 2023
}

// findDates returns the dates written in s in the forms of datePatterns.
func findDates(s string) []writtenDate {
	var out []writtenDate
	for _, p := range datePatterns {
		for _, m := range p.re.FindAllStringSubmatch(s, -1) {
			y, _ := strconv.Atoi(m[p.idx[0]])
			d, _ := strconv.Atoi(m[p.idx[2]])
			mon, ok := months[strings.ToLower(m[p.idx[1]])]
			if !ok {
				n, _ := strconv.Atoi(m[p.idx[1]])
				mon = time.Month(n)
			}
			out = append(out, writtenDate{text: strings.TrimSpace(m[0]), civil: civil{y, mon, d}})
		}
	}
	return out
}
