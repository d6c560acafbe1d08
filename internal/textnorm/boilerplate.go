package textnorm

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Boilerplate: what channels and news sites add to every post that is not the post's news —
// subscription footers and channel signatures, "read more" and link-only lines, hashtag tails,
// emoji-only lines, photo credits and advertising labels. Tidy takes it out of a document's
// text at ingest (internal/corpus), so it is neither stored, indexed, embedded nor quoted.
//
// Two kinds of rules find it:
//   - hand rules for the common shapes, in Russian and English («Подписаться на РИА Новости /
//     Все наши каналы», "Sign up for … newsletter", «Читать далее», "(AP Photo/…)");
//   - rules learned from the corpus (Footers): a trailing piece that ends at least N posts of
//     the same channel, compared on its words (case, emoji and punctuation aside, so
//     «🤑 The Экономист» and «👍 The Экономист» are one footer), and a promotional line
//     ("Need a break? Play the … Crossword") that recurs in N posts of the same site.
//
// A rule removes a whole line, or a trailing piece of a line that starts at a cut point: the
// line's start, after the end of a sentence, at an emoji, an @handle, a #hashtag or a URL.
// Telegram exports often lose a post's line breaks, so its footer is the end of its one line.
// A few hand rules whose text cannot be news («Подписаться на РИА Новости», «Подключить:
// @bot», «Реклама. Рекламодатель …») may also start after any word: channels glue them to the
// last sentence without a stop.

// CleanVersion is the version of the boilerplate rules (Tidy, Footers and their options). A
// shard id hashes it (internal/shard), so a rerun of an index build made with other rules
// rebuilds its shards.
const CleanVersion = 1

// Rules: the Rule of a Removal.
const (
	// RuleSubscribe: subscription footers and calls to subscribe or follow.
	RuleSubscribe = "subscribe"
	// RuleSignature: a channel signature a hand rule knows («Замечено Шпионом РЦБ»).
	RuleSignature = "signature"
	// RuleLearned: a trailing piece or promotional line learned from the corpus (Footers).
	RuleLearned = "learned"
	// RuleReadMore: "read more", «Читать далее», «Полная новость», related-story links.
	RuleReadMore = "read_more"
	// RuleLink: URLs and @handles with no words of their own.
	RuleLink = "link_only"
	// RuleHashtags: a run of #hashtags at the end of a line.
	RuleHashtags = "hashtags"
	// RuleEmoji: a line, or the end of one, with no letter or digit.
	RuleEmoji = "emoji_only"
	// RuleCredit: a photo credit («📸: Фото Getty Images», "(AP Photo/…)").
	RuleCredit = "photo_credit"
	// RuleAd: an advertising label («Реклама. Рекламодатель …», "erid: …").
	RuleAd = "ad_label"
)

// Removal is one piece of boilerplate Tidy took out of a text.
type Removal struct {
	// Rule names the rule that found it (RuleSubscribe, …).
	Rule string `json:"rule"`
	// Text is the piece removed.
	Text string `json:"text"`
}

// handRule is one hand-written rule: re must match the whole piece.
type handRule struct {
	rule string
	re   *regexp.Regexp
	// anyWord lets the piece start after any word, not only at a cut point.
	anyWord bool
	// leads are lower-case beginnings one of which the piece must have, or contains
	// lower-case words one of which its first 80 bytes must hold: cheap tests before re.
	leads, contains []string
	// cue, when set, must also match the piece.
	cue *regexp.Regexp
}

// promoCues mark a line as promotional: a learned line must have one (lower-case).
var promoCues = []string{"subscri", "sign up", "sign-up", "signup", "newsletter", "podcast", "puzzle",
	"crossword", "follow us", "follow along", "follow every", " deal", "inbox", "advertis", "commission",
	"registration", "your data", "privacy", "cookie", "play the", "click here", "download",
	"подпис", "реклам", "подкаст", "рассылк"}

// promotional reports whether s has a promotional cue.
func promotional(s string) bool {
	low := strings.ToLower(s)
	for _, c := range promoCues {
		if strings.Contains(low, c) {
			return true
		}
	}
	return false
}

var handRules = []handRule{
	// Subscription footers and calls. Capitalized, so "предложили подписаться на уведомления"
	// in a sentence is not one.
	{rule: RuleSubscribe, anyWord: true, leads: []string{"🟦", "подписаться"}, re: regexp.MustCompile(`^(?:🟦\s*)?Подписаться(?:\s+на\s+[^/.!?]{1,60}?)?(?:\s*/\s*Все наши каналы)?\s*[.!]?$`)},
	{rule: RuleSubscribe, anyWord: true, leads: []string{"все наши каналы"}, re: regexp.MustCompile(`^Все наши каналы$`)},
	{rule: RuleSubscribe, leads: []string{"подпишись", "подпишитесь", "подписывайтесь"}, re: regexp.MustCompile(`^(?:Подпишись|Подпишитесь|Подписывайтесь)(?:\s+на\s+[^.!?]{1,60})?\s*[.!]?$`)},
	{rule: RuleSubscribe, leads: []string{"читайте нас", "смотрите нас"}, re: regexp.MustCompile(`^(?:Читайте|Смотрите) нас (?:в|на)\s.{1,60}$`)},
	{rule: RuleSubscribe, anyWord: true, leads: []string{"подключить"}, re: regexp.MustCompile(`^Подключить:?\s*@[\p{L}\p{N}_]+$`)},
	{rule: RuleSubscribe, contains: []string{"sign", "subscri"}, re: regexp.MustCompile(`(?i)^(?:[^.!?:]{1,40}:\s*)?(?:sign[ -]?up|subscribe)\b.{0,240}$`), cue: regexp.MustCompile(`(?i)newsletter|here\b|inbox|updates|alerts|daily|weekly|podcast|email|\btext\b|free|save|\bour\b|guide|series`)},
	{rule: RuleSubscribe, leads: []string{"follow us", "like us", "join us", "find us", "read us"}, re: regexp.MustCompile(`(?i)^(?:follow|like|join|find|read) us (?:on|at)\b.{0,160}$`)},
	// Signatures of channels too common to wait for learning.
	{rule: RuleSignature, anyWord: true, leads: []string{"замечено"}, re: regexp.MustCompile(`^Замечено Шпионом РЦБ\.?$`)},
	{rule: RuleSignature, anyWord: true, leads: []string{"*"}, re: regexp.MustCompile(`^\*\s?Информационная поддержка\.?$`)},
	// "Read more" and links to other stories.
	{rule: RuleReadMore, leads: []string{"👉", "полная новость", "читать ", "далее"}, re: regexp.MustCompile(`(?i)^(?:👉\s*)?(?:полная новость|читать (?:далее|полностью|продолжение)|далее)\s*[.…]?$`)},
	{rule: RuleReadMore, leads: []string{"👉", "подробнее", "подробности", "читайте", "читать", "смотрите", "слушайте", "рассказываем", "узнать больше"}, re: regexp.MustCompile(`^(?:👉\s*)?(?:Подробнее|Подробности|Читайте|Читать|Смотрите|Слушайте|Рассказываем|Узнать больше)(?:\s+[^.!?]{0,60}?)?\s+(?:тут|здесь|по ссылке|на сайте|в материале|в статье|в нашем материале)(?:\s.{0,160})?[.!]?$`)},
	{rule: RuleReadMore, leads: []string{"read more", "read the full"}, re: regexp.MustCompile(`(?i)^read (?:more|the full (?:story|article))\b.{0,150}$`)},
	{rule: RuleReadMore, leads: []string{"read", "related", "more", "watch", "listen"}, re: regexp.MustCompile(`^(?:READ MORE|READ|RELATED|MORE|WATCH|LISTEN|Related|Read more|Watch|Listen)\s*:.{0,160}$`)},
	{rule: RuleReadMore, leads: []string{"click here"}, re: regexp.MustCompile(`(?i)^click here\b.{0,150}$`)},
	{rule: RuleReadMore, leads: []string{"share this", "email this", "copy link"}, re: regexp.MustCompile(`(?i)^(?:share this (?:story|post|article)\b.{0,100}|email this story|copy link)$`)},
	// Photo credits.
	{rule: RuleCredit, leads: []string{"📸", "📷"}, re: regexp.MustCompile(`^(?:📸|📷)\s*:?.{0,100}$`)},
	{rule: RuleCredit, leads: []string{"("}, re: regexp.MustCompile(`(?i)^\((?:(?:image credit|photo credit|photo|ap photo)\b|фото[\s:/])[^)]{0,120}\)$`)},
	{rule: RuleCredit, leads: []string{"фото:"}, re: regexp.MustCompile(`^Фото:\s.{1,80}$`)},
	// Advertising labels (the law requires them on ads; the ad's own text stays).
	{rule: RuleAd, anyWord: true, leads: []string{"реклама"}, re: regexp.MustCompile(`^Реклама\.?\s+Рекламодатель(?:\s.{0,300})?$`)},
	{rule: RuleAd, anyWord: true, leads: []string{"erid"}, re: regexp.MustCompile(`(?i)^erid:?\s*[\p{L}\p{N}]+$`)},
	// Hashtag tails (a tag has a letter: "#2, Tinker Bell" is a rank).
	{rule: RuleHashtags, leads: []string{"#"}, re: regexp.MustCompile(`^(?:#[\p{N}_]*\p{L}[\p{L}\p{N}_]*[\s,]*)+$`)},
}

// FooterOptions tune what Footers learns.
type FooterOptions struct {
	// MinPosts is the fewest posts of a channel a piece must end (or a promotional line
	// appear in) to be learned.
	MinPosts int `json:"min_posts"`
	// MinShare is the least share of a channel's posts it must also reach: a site with 20,000
	// articles needs 100 at 0.005, a channel with 600 posts needs MinPosts.
	MinShare float64 `json:"min_share"`
	// MaxWords is the most words of a learned trailing piece; MaxLineWords of a learned line.
	MaxWords     int `json:"max_words"`
	MaxLineWords int `json:"max_line_words"`
}

// DefaultFooterOptions learn a trailing piece of at most 8 words or a promotional line of at
// most 60 that recurs in at least 5 posts and 0.5% of the channel's posts.
func DefaultFooterOptions() FooterOptions {
	return FooterOptions{MinPosts: 5, MinShare: 0.005, MaxWords: 8, MaxLineWords: 60}
}

// Validate reports options that cannot learn.
func (o FooterOptions) Validate() error {
	switch {
	case o.MinPosts < 2:
		return fmt.Errorf("footers: min posts %d must be at least 2 (one post is no pattern)", o.MinPosts)
	case !(o.MinShare >= 0 && o.MinShare <= 1):
		return fmt.Errorf("footers: min share %v must be in [0, 1]", o.MinShare)
	case o.MaxWords < 1 || o.MaxLineWords < 1:
		return fmt.Errorf("footers: max words %d and max line words %d must be positive", o.MaxWords, o.MaxLineWords)
	}
	return nil
}

// Footers learns each channel's boilerplate from its posts: Add every post first, then Tidy
// with it. The zero value is not usable; call NewFooters. A Footers is not safe for concurrent
// use.
type Footers struct {
	opts  FooterOptions
	posts map[string]int            // channel key → posts added
	tails map[string]map[string]int // channel key → trailing piece key → posts it ends
	lines map[string]map[string]int // channel key → promotional line key → posts it is in
	// known caches, per channel, what was learned; Add clears it.
	known map[string]*learnedSet
}

// learnedSet is what one channel learned: the keys of trailing pieces and of promotional lines,
// and the first runes and most words of any, to skip most pieces before computing their key.
type learnedSet struct {
	tails, lines map[string]bool
	firsts       map[rune]bool
	words        int
}

// NewFooters returns an empty learner with o (invalid options are replaced by the defaults;
// check them with Validate first).
func NewFooters(o FooterOptions) *Footers {
	if o.Validate() != nil {
		o = DefaultFooterOptions()
	}
	return &Footers{opts: o, posts: map[string]int{}, tails: map[string]map[string]int{}, lines: map[string]map[string]int{}}
}

// Add counts one post of source (a channel name, or several separated by ";") with text, as
// read or as Clean returns it: the trailing pieces of its last line that follow other words,
// and its promotional lines. It cleans only what it counts (the last line and the short lines
// that look promotional), so a first pass over a file costs little more than reading it.
func (f *Footers) Add(source, text string) {
	chans := channelKeys(source)
	if len(chans) == 0 {
		return
	}
	raw := strings.Split(text, "\n")
	last, lines := "", 0
	for i := len(raw) - 1; i >= 0; i-- {
		c := Clean(raw[i])
		if c == "" {
			continue
		}
		lines += strings.Count(c, "\n") + 1
		if last == "" {
			last = c[strings.LastIndexByte(c, '\n')+1:]
		}
		if lines > 1 {
			break
		}
	}
	if last == "" {
		return
	}
	tails := map[string]bool{}
	for _, p := range pieces(last, len(last)-maxTailBytes) {
		c := p.at
		if !p.cut || c == 0 || !learnable(last[c:]) || strings.Count(last[c:], " ") >= 2*f.opts.MaxWords {
			continue // the whole post is no footer of itself; a long piece is no footer
		}
		if k := pieceKey(last[c:]); k != "" && strings.Count(k, " ") < f.opts.MaxWords {
			tails[k] = true
		}
	}
	promo := map[string]bool{}
	if lines > 1 {
		for _, l := range raw {
			if strings.Count(l, " ") >= f.opts.MaxLineWords+f.opts.MaxLineWords/4 || !promotional(l) {
				continue
			}
			for c := range strings.SplitSeq(Clean(l), "\n") {
				if c != "" && strings.Count(c, " ") < f.opts.MaxLineWords {
					if k := pieceKey(c); k != "" {
						promo[k] = true
					}
				}
			}
		}
	}
	f.known = nil
	for _, c := range chans {
		f.posts[c]++
		count(f.tails, c, tails)
		count(f.lines, c, promo)
	}
}

func count(m map[string]map[string]int, c string, keys map[string]bool) {
	if len(keys) == 0 {
		return
	}
	if m[c] == nil {
		m[c] = map[string]int{}
	}
	for k := range keys {
		m[c][k]++
	}
}

// need is how many posts of channel c a piece must be in to be learned.
func (f *Footers) need(c string) int {
	return max(f.opts.MinPosts, int(math.Ceil(f.opts.MinShare*float64(f.posts[c]))))
}

// Learned returns the keys (lower-case words) of the trailing pieces and promotional lines
// learned for source's channels, sorted.
func (f *Footers) Learned(source string) []string {
	var out []string
	for _, c := range channelKeys(source) {
		for _, m := range []map[string]int{f.tails[c], f.lines[c]} {
			for k, n := range m {
				if n >= f.need(c) {
					out = append(out, k)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// set returns what channel c learned.
func (f *Footers) set(c string) *learnedSet {
	if ls, ok := f.known[c]; ok {
		return ls
	}
	if f.known == nil {
		f.known = map[string]*learnedSet{}
	}
	ls := &learnedSet{tails: map[string]bool{}, lines: map[string]bool{}, firsts: map[rune]bool{}}
	for _, m := range []struct {
		counts map[string]int
		into   map[string]bool
	}{{f.tails[c], ls.tails}, {f.lines[c], ls.lines}} {
		for k, n := range m.counts {
			if n >= f.need(c) {
				m.into[k] = true
				first, _ := utf8.DecodeRuneInString(k)
				ls.firsts[first] = true
				ls.words = max(ls.words, strings.Count(k, " ")+1)
			}
		}
	}
	f.known[c] = ls
	return ls
}

// learned reports whether the piece s is a learned trailing piece (or, with line, a learned
// promotional line) of one of chans; with cut (s ends the text, which an export may have cut
// short) a beginning of one counts too, when it has at least 4 words and 20 runes.
func (f *Footers) learned(chans []string, s string, line, cut bool) bool {
	if f == nil {
		return false
	}
	var key string
	for _, c := range chans {
		ls := f.set(c)
		if len(ls.firsts) == 0 || strings.Count(s, " ") > 2*ls.words+2 || !ls.firsts[firstKeyRune(s)] {
			continue
		}
		if key == "" {
			if key = pieceKey(s); key == "" {
				return false
			}
		}
		if ls.tails[key] || (line && ls.lines[key]) {
			return true
		}
		if cut && strings.Count(key, " ") >= 3 && utf8.RuneCountInString(key) >= 20 &&
			(keyPrefix(ls.tails, key) || (line && keyPrefix(ls.lines, key))) {
			return true
		}
	}
	return false
}

// keyPrefix reports whether a key of m begins with p.
func keyPrefix(m map[string]bool, p string) bool {
	for k := range m {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// firstKeyRune is the first rune of pieceKey(s), computed cheaply: the first letter or digit of
// s after NFKC, lower-case.
func firstKeyRune(s string) rune {
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			end := i + utf8.RuneLen(r)
			for end < len(s) && !utf8.RuneStart(s[end]) {
				end++
			}
			k, _ := utf8.DecodeRuneInString(norm.NFKC.String(s[i:end]))
			if k == 'ё' || k == 'Ё' {
				return 'е'
			}
			return unicode.ToLower(k)
		}
	}
	return 0
}

// Tidy removes the boilerplate of text (as Clean returns it) posted by source (a channel
// name, or several separated by ";"), with the hand rules and, when f is not nil, what f
// learned; it returns the text left, cleaned again, and what was removed, in the order found.
// It never removes a word that no rule matched, and Tidy of its result removes nothing more.
func Tidy(text, source string, f *Footers) (string, []Removal) {
	chans := channelKeys(source)
	var removed []Removal
	lines := strings.Split(text, "\n")
	kept := lines[:0]
	for i, line := range lines {
		was := line
		for line != "" {
			start, rule := boilerplateTail(line, chans, f, len(lines) > 1, i == len(lines)-1)
			if rule == "" {
				break
			}
			removed = append(removed, Removal{Rule: rule, Text: strings.TrimSpace(line[start:])})
			line = strings.TrimRightFunc(line[:start], unicode.IsSpace)
		}
		if line != "" || was == "" { // a line removed whole leaves no blank line behind
			kept = append(kept, line)
		}
	}
	if len(removed) == 0 {
		return text, nil
	}
	return Clean(strings.Join(kept, "\n")), removed
}

// maxTailBytes bounds the trailing pieces looked at, the whole line aside: the longest a rule
// removes is an advertising label of about 320 runes (640 bytes in Cyrillic).
const maxTailBytes = 700

// boilerplateTail returns where the longest removable trailing piece of line starts and the
// rule that removes it, or "" when none does. multi says the text has other lines: a learned
// promotional line is only looked for then; last says line ends the text.
func boilerplateTail(line string, chans []string, f *Footers, multi, last bool) (int, string) {
	for _, p := range pieces(line, len(line)-maxTailBytes) {
		start := p.at
		tail := line[start:]
		cut := p.cut
		if !cut && f != nil && !strings.ContainsRune(tail, ' ') && distinctive(tail) && f.learned(chans, tail, false, false) {
			return start, RuleLearned // a learned signature glued to the news: "…7.60$ BloomEconomy"
		}
		if !cut && !anyWordLead(tail) {
			continue
		}
		if mayStartRule(tail) {
			low := lowerHead(tail, 80)
			for _, r := range handRules {
				if (cut || r.anyWord) && (hasAnyPrefix(low, r.leads) || containsAny(low, r.contains)) &&
					r.re.MatchString(tail) && (r.cue == nil || r.cue.MatchString(tail)) {
					return start, r.rule
				}
			}
		}
		if !cut {
			continue
		}
		first, _ := utf8.DecodeRuneInString(tail)
		lead := IsEmoji(first) || first == '@' || strings.HasPrefix(tail, "http") || strings.HasPrefix(tail, "www.")
		switch {
		case (start == 0 || IsEmoji(first)) && !hasWord(tail):
			return start, RuleEmoji
		case lead && linkOnly(tail, start == 0 || afterSentence(line[:start]), start == 0 || afterSentence(line[:start]) || !endsLower(line[:start])):
			return start, RuleLink
		case f != nil && learnable(tail) && strings.Count(tail, " ") < 2*f.maxWords(multi && start == 0) && f.learned(chans, tail, multi && start == 0, last):
			return start, RuleLearned
		}
	}
	return 0, ""
}

// anyWordFirst are the first runes, lower-case, of the anyWord rules' leads.
var anyWordFirst = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range handRules {
		if r.anyWord {
			for _, l := range r.leads {
				first, _ := utf8.DecodeRuneInString(l)
				m[first] = true
			}
		}
	}
	return m
}()

// ruleFirst are the first runes, lower-case, of every hand rule's leads.
var ruleFirst = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range handRules {
		for _, l := range r.leads {
			first, _ := utf8.DecodeRuneInString(l)
			m[first] = true
		}
	}
	return m
}()

// mayStartRule reports whether a hand rule may match s: its first rune begins a lead, or its
// head may hold a word a rule looks for anywhere in it ("sign", "subscri"). A cheap test
// before lower-casing s's head.
func mayStartRule(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if ruleFirst[unicode.ToLower(r)] {
		return true
	}
	head := s[:min(len(s), 80)]
	return strings.Contains(head, "ign") || strings.Contains(head, "IGN") || strings.Contains(head, "ubscri") || strings.Contains(head, "UBSCRI")
}

// anyWordLead reports whether s may start a piece of an anyWord rule.
func anyWordLead(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return anyWordFirst[unicode.ToLower(r)]
}

// lowerHead returns s's first n bytes or so (whole runes), lower-case.
func lowerHead(s string, n int) string {
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return strings.ToLower(s)
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// distinctive reports whether the word w cannot be an ordinary word of a sentence: a handle,
// styled letters ("𝔼ℂ𝕆ℕ𝕆𝕄𝕀𝕂𝔸") or an upper-case letter after a lower-case one ("BloomEconomy").
// A learned footer that is such a word is removed even where no cut point precedes it.
func distinctive(w string) bool {
	if strings.HasPrefix(w, "@") || norm.NFKC.String(w) != w {
		return true
	}
	prev := rune(0)
	for _, r := range w {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			return true
		}
		prev = r
	}
	return false
}

// hasAnyPrefix reports whether s begins with one of prefixes.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// maxWords is the most words of a learned trailing piece, or with line of a learned line.
func (f *Footers) maxWords(line bool) int {
	if line {
		return max(f.opts.MaxWords, f.opts.MaxLineWords)
	}
	return f.opts.MaxWords
}

// learnable reports whether a footer may start with s's first rune: a letter, a digit, an
// emoji, "@", "#", "*" or an opening bracket or quote — not a currency sign or a stop that
// belongs to the sentence before ("…100 тыс. ₽. @channel").
func learnable(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r) || IsEmoji(r) || r == '@' || r == '#' || r == '*' || isOpener(r)
}

// linkOnly reports whether s is URLs and @handles with nothing else but emoji and
// punctuation. A piece with an @handle counts only where handles is true (a sentence ended
// before it: "…заявил @elonmusk" names someone), one with a URL only where urls is true (the
// word before it does not end in a lower-case letter: "visit www.example.com" is a
// sentence, "…Urals — $72 https://t.me/…" a link after it).
func linkOnly(s string, handles, urls bool) bool {
	u := urlRe.MatchString(s)
	h := handleRe.MatchString(stripURLs(s))
	if (!u && !h) || (u && !urls) || (h && !handles) {
		return false
	}
	return len(Tokens(StripLinks(s))) == 0
}

// stripURLs removes URLs only (an e-mail-like "user@host" in a URL is no handle).
func stripURLs(s string) string { return urlRe.ReplaceAllString(s, " ") }

// endsLower reports whether s, trailing spaces aside, ends in a lower-case letter.
func endsLower(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(strings.TrimRightFunc(s, unicode.IsSpace))
	return unicode.IsLower(r)
}

// afterSentence reports whether s (what precedes a piece) ends a sentence or an emoji.
func afterSentence(s string) bool {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	r, _ := utf8.DecodeLastRuneInString(s)
	for isCloser(r) && len(s) > 0 {
		s = s[:len(s)-utf8.RuneLen(r)]
		r, _ = utf8.DecodeLastRuneInString(s)
	}
	return isTerminal(r) || IsEmoji(r) || emojiJoiner(r)
}

// piece is where a removable piece may start in a line: after a space, at an emoji or at an
// @handle right after a stop; cut marks a cut point, where any rule may start: the line's start,
// the first word after the end of a sentence, an emoji, an @handle, #hashtag or URL after a
// space, and an @handle right after a stop. Elsewhere only the anyWord rules may.
type piece struct {
	at  int
	cut bool
}

// pieces returns the starts in line from byte offset from on (and 0), in order.
func pieces(line string, from int) []piece {
	out := []piece{{0, true}}
	for from > 0 && from < len(line) && !utf8.RuneStart(line[from]) {
		from++
	}
	prev, _ := utf8.DecodeLastRuneInString(line[:max(from, 0)])
	for i, r := range line[max(from, 0):] {
		i += max(from, 0)
		if i == 0 {
			prev = r
			continue
		}
		emoji := IsEmoji(r) && !IsEmoji(prev) && !emojiJoiner(prev)
		handleAfterStop := r == '@' && isTerminal(prev) // "…обувь.@bankrollo"
		switch {
		case emoji || handleAfterStop:
			out = append(out, piece{i, true})
		case prev == ' ' && r != ' ':
			cut := r == '@' || r == '#' || strings.HasPrefix(line[i:], "http") || strings.HasPrefix(line[i:], "www.") || afterSentence(line[:i])
			out = append(out, piece{i, cut})
		}
		prev = r
	}
	return out
}

// pieceKey is how pieces are compared: the lower-case words of s after NFKC (so
// "𝔼ℂ𝕆ℕ𝕆𝕄𝕀𝕂𝔸" is "ekonomika"), with emoji and punctuation dropped.
func pieceKey(s string) string {
	return strings.Join(Tokens(norm.NFKC.String(s)), " ")
}

// channelKeys splits source into its channels (separated by ";"), each compared as
// ChannelKey, without repeats.
func channelKeys(source string) []string {
	var out []string
	for c := range strings.SplitSeq(source, ";") {
		if k := ChannelKey(c); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
