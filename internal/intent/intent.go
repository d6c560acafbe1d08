// Package intent reads the temporal intent of a search query, in English, Russian or Chinese,
// relative to an anchor day A (the "as of" date). It picks a retrieval mode — recency, a hard
// date window, or evolution ("then vs now") — and the publication days that go with it. It is
// a small hand-written parser over word tokens (each Han character is a token, since Chinese
// has no spaces): no I/O, no clock, same answer for same input.
//
// What it reads, besides plain years, months, quarters, halves, dates and ISO dates:
//   - English: "between March and May 2024", "since 2020", "before 2020", "last week", "past 30
//     days", "this quarter", "last spring", "the summer of 2020", "early 2020", "mid-2019",
//     "late last year", "at the end of 2023", "in the 2010s", "a year ago", "YTD", "2023Q3".
//   - Russian: «с марта по май 2023», «с 2020 года», «на прошлой неделе», «за последние 3
//     года», «в марте 2024», «весной 2023 года», «прошлой весной», «летом», «в начале 2024
//     года», «в конце прошлого года», «с начала года», «в 90-х», «год назад».
//   - Chinese: 2021年3月5日, 2021年3月, 2021年, 二〇二一年, ２０２１年 (full width), 21年3月,
//     2019年至2021年, 2019—2021年, 2024年1-3月, 3月5日至10日, 2020年以来, 自2020年起, 2020年至今,
//     2020年之后, 2020年以前, 截至2023年底, 2023年第三季度, 2023年Q3, 2023年前三季度, 上半年,
//     下半年, 今年, 去年, 前年, 明年, 本月, 上个月, 本周, 上周, 今天, 昨天, 近三个月, 过去一年,
//     最近一周, 过去半年, 三年前, 2021年初, 今年年底, 3月上旬, 去年春天, 2021年夏天, 90年代;
//     recency cues 最近, 最新, 目前, 现在, 近期, 到目前为止; change cues 如何变化, 有何变化,
//     变化了吗, 演变, 前后对比, and 如何/怎样 … 变化; 两年前的今天, 一年前的这个星期, 两年前5月.
//   - Questions about the past (Reading.Past; history.go): "when did/was", "in what year",
//     "which came first", "how long ago"; «когда был…», «в каком году», «что произошло
//     раньше», «как давно», «впервые»; 什么时候, 何时, 哪一天, 哪个事件更早, 最早, 同一个月,
//     是否在同一天, 当天, 首次, 第一次, 多久, and a Chinese N年前 alone. English "for the first
//     time" is not one: news say it of this week.
//
// Where everyday language is ambiguous the parser chooses as follows:
//   - "last week" / "на прошлой неделе" / 上周 is the previous ISO calendar week (Monday to
//     Sunday); "past week" / "за последнюю неделю" / 最近一周 is the rolling seven days A−6..A.
//     Likewise "last month/quarter/year" are previous calendar periods, while "past month"
//     and "last 3 months" are rolling: they start the day after A shifted back by the period.
//   - "today" is A's day; "today's", "as of today" and "на сегодня" are recency cues.
//   - A period wholly after A, and no change cue ("which candidate left the 2024 race" as of
//     2023), is read as recency over what was published up to A, with Empty set and the date
//     words kept in Text: what is known of a future period comes from before it. A window
//     mode asked for explicitly still answers "no documents in that period".
//   - A period of at most seven days relative to A that ends at most seven days before A, and
//     nothing else dated ("this week", "past 7 days", "yesterday", "a week ago", 本周), asks
//     for fresh news: it is read as recency with Fresh set, not as a window. The article that
//     answers "what happened this week" is often older than the week (realtimeqa's weekly
//     quizzes: up to 14 days), and a window would cut it. Explicit dates, months, years,
//     ranges, longer relative periods ("this year", "past 3 months") and older ones ("three
//     weeks ago") stay hard windows.
//   - A month, quarter, half or season without a year ("in March", "в первом квартале", "in
//     the summer") needs a preposition and is its latest occurrence begun by A; English month
//     abbreviations ("Mar") and "fall" need a year, "fall" also reads after "last" or "this";
//     a yearless English season is not read after "of" or "for" ("the end of summer") or before
//     a noun ("spring break", "the winter surge"). Russian seasons in the instrumental («летом»)
//     and Chinese digit months (3月份, 3月5日) need no preposition; Chinese Han-numeral months
//     need 份, a day or 在 (三月份, 在三月: not 十月革命).
//   - Chinese 上半年 and 下半年 without a year are the halves of A's year (下半年 before July is
//     a period after A), as Chinese uses them; other yearless periods follow the rule above.
//   - Seasons are meteorological: spring is March–May, summer June–August, autumn
//     September–November, and the winter of a year begins in it (winter 2021, 2021年冬季:
//     December 2021 to February 2022). "This summer" is the summer that contains A, else the
//     one that begins in A's year; "last summer" is the latest summer that ended before A.
//   - "Early", "mid" and "late" (в начале, в середине, в конце; 初, 中, 底/末) are thirds: of a
//     year, January–April, May–August, September–December; of a month, days 1–10, 11–20 and
//     21 to the end (as 上旬, 中旬, 下旬); of a quarter or season, its months; of a decade, 40
//     months. "The end of the year" alone («к концу года», 年底) is A's year's.
//   - "N units ago" («год назад», 一年前) is one unit centred on A shifted back N units: "3 days
//     ago" is that day, "a week ago" the seven days A−10..A−4, "a month ago" A−1 month ± 15
//     days, "a year ago" A−1 year ± 182 days. A decade is ten years from its year ending in 0
//     ("the 1990s", «в 2010-х»); «90-х» and 90年代 without a century are the latest such decade
//     begun by A, and English two-digit decades ("the 90s") are not read: they are also
//     temperatures. Both are dates named in passing: 31 of realtimeqa's 5,123 news questions
//     hold one, and each sets the scene ("after stepping down two years ago, …", "her role in
//     the 1960s TV series", "prices higher than a year ago") while the answer is fresh; read as
//     windows they held none of the answer articles in 4 of the 5 judged questions they touch
//     and cost the fifth its "this week". So alone they give recency with Soft set and the
//     period in From and To (window mode asked for explicitly uses it; "3 days ago" and "a week
//     ago" are fresh recency as above); with a change cue they give evolution from the period to
//     A ("how have rents changed compared to a year ago"); other dates in the query decide over
//     them; and a range built on them bounds the search ("since two years ago", 三年前至今).
//   - "from 2020" alone is the year 2020 (as in "articles from 2020", 从2021年的数据); "since
//     2020", "from 2020 onwards", "с 2020 года", 2020年以来, 自2020年起 and 2020年至今 run from
//     2020 to A.
//   - "before 2020", "до 2020 года" and 2020年以前/之前 exclude 2020, as "after 2020" and
//     2020年之后/以后 do; "until 2020", "through 2020" and 截至2020年 include it; 2020年前后 is 2020.
//   - Several ranges in one query merge into the smallest window covering them all, and a range
//     given backwards ("from 2021 to 2019") is read forwards. The end of a Chinese range takes
//     what it lacks from its start (2024年3月至5月, 3月5日至10日, 12月至2月 across the new year).
//   - Numbers that are not years stay text: counts ("500 rubles", "over 2000 companies"),
//     money (2000元), tenors (10年期), numbers glued to letters ("2020s" aside) and chains of
//     three or more hyphenated numbers ("8-800-2020-2021", 010-2021-3344). A Chinese two-digit
//     year (21年) is the nearest such year to A and only with a month, quarter or half after it.
//   - A Chinese word does not start inside a longer word that ends in its first character
//     (日本月度 holds no 本月, 失去年轻人 no 去年, 实现在线 no 现在), and 2021年中国 is not mid-2021.
//   - "how has … changed", "как … изменилось" and 如何 … 变化 need the verb within a few words
//     of the question word; "how to change", "как изменить" and 如何改变 are not change cues.
//   - Text drops the Chinese particle 的 next to a removed phrase (2021年的通胀 → 通胀).
package intent

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/asofrag/asof/internal/asofday"
)

// Mode is the retrieval mode a query asks for.
type Mode string

const (
	// Recency prefers fresh documents; it is the default for plain queries.
	Recency Mode = "recency"
	// Window is a hard filter on publication days [From, To].
	Window Mode = "window"
	// Evolution asks how something changed over time ("then vs now"), optionally within [From, To].
	Evolution Mode = "evolution"
)

// Reading is how a query was read.
type Reading struct {
	// Mode is the retrieval mode.
	Mode Mode
	// From and To bound the documents' publication days (UTC, inclusive, both at 00:00 UTC
	// meaning whole days). Zero From is unbounded below. To is never after AsOf unless Empty.
	// They are set for Window, for Evolution when the query names a range ("since 2020"), and
	// for a Fresh Recency reading, where they are the recent period the query named ("this
	// week"), to explain it: recency does not filter by them.
	From, To time.Time
	// Cues are the exact phrases (as found in the query, original case, in query order) that
	// decided the reading: the date phrases for Window, the change cues and any date phrases
	// for Evolution, the recency cues for Recency.
	Cues []string
	// Empty is true when the requested range lies wholly after AsOf (e.g. "in 2030" as of
	// 2024): the answer must be "no documents in that period", never a fallback. From and To
	// then keep the range as asked.
	Empty bool
	// Text is the query with the matched temporal phrases and pure cue words removed and
	// spaces squeezed, for lexical and dense search. It is the trimmed query when nothing
	// matched or when nothing but cues would be left.
	Text string
	// AsOf is the anchor's UTC calendar day (00:00 UTC) the query was read against.
	AsOf time.Time
	// Fresh reports a query that asks for what is fresh: a recency cue ("latest",
	// "recently") or a recent relative period read as recency ("this week"). Retrieval may
	// weigh time more for it (retrieve.Options.FreshBoost).
	Fresh bool
	// Period reports a Window read from named periods only ("in November", "in 2015", "early
	// July", "Q3 2023", 2021年3月) — the time of an event, which reports precede and follow —
	// not from an open range that bounds the search ("since 2020", "before 2019").
	Period bool
	// Past reports a question about the past (Cues hold its words): the order of events ("which
	// came first", «что произошло раньше», 哪个事件先发生, 是否在同一个月), when something happened
	// ("when did", «когда был», 什么时候, 何时, 哪一天), how long ago ("how long ago", «как давно»,
	// 多久), or a first time («впервые», 首次, 第一次). Such a question wants the event's own
	// reports, however old, not what is fresh as of A: with no date it is read as Recency with
	// Past set, which retrieval searches over the whole past by relevance alone, and with a named
	// period (Period) that period is searched without a preference for fresh reports. A recency
	// cue ("when was the latest …", 最近一次是什么时候) or a recent period ("this week") wins: then
	// Past is not set.
	Past bool
	// Soft reports a recency reading whose only dates were named in passing: "N units ago"
	// and decades ("two years ago", «год назад», 三年前, "the 1960s", 90年代). In news questions
	// they set the scene ("after stepping down two years ago, who returns as CEO?") while the
	// answer is fresh, so they do not bound the search; From and To keep the period named, for
	// a look-back that reaches it and for window mode asked for explicitly. Text is the
	// trimmed query; Fresh is set by a recency cue as usual ("recently … a year ago").
	Soft bool
	// Periods are the separate periods a comparison names, oldest first, when there are two or
	// more that do not overlap: "in 2021 and 2023", "compare 2023 with 2021", "Q1 2020 vs Q1
	// 2021", 2019年和2021年; with a change cue, a range's two ends ("how did X change from 2012
	// to 2020": 2012 and 2020) and an open range's start and A ("since 2019": 2019 and A's day,
	// which stands for "now"). Each is a period to search on its own (answer.Rank). Nil for
	// one period, an open range without a change cue, or a period before an unbounded start
	// ("before 2020"). Every period ends on or before A; one wholly after A is left out.
	Periods []Span
}

// Span is one period of Reading.Periods: whole days From..To (UTC), inclusive.
type Span struct{ From, To time.Time }

// Explain returns one human-readable line, e.g. `window 2015-01-01..2015-12-31 (from "in
// 2015")`, `recency (no date in query)` or `evolution since 2020-01-01 (from "how has",
// "changed", "since 2020")`.
func (r Reading) Explain() string {
	const d = time.DateOnly
	s := string(r.Mode)
	if r.Fresh {
		s += ", fresher preferred"
	}
	switch {
	case r.To.IsZero():
	case r.From.IsZero():
		s += " until " + r.To.Format(d)
	case r.From.Equal(r.To):
		s += " " + r.From.Format(d)
	case r.To.Equal(r.AsOf):
		s += " since " + r.From.Format(d)
	default:
		s += " " + r.From.Format(d) + ".." + r.To.Format(d)
	}
	switch {
	case r.Empty && r.Mode == Recency:
		s += ": after " + r.AsOf.Format(d) + ", so what was published by then"
	case r.Past && r.Mode == Recency:
		s = "a question about the past: every date up to " + r.AsOf.Format(d) + ", no preference for fresh"
	case r.Soft:
		s += ": named in passing, not a filter"
	case r.Empty:
		s += ": no documents, after " + r.AsOf.Format(d)
	}
	if r.Past && r.Mode == Window {
		s += ", a question about the past"
	}
	if len(r.Cues) == 0 {
		if r.Mode == Recency {
			s += " (no date in query)"
		}
		return s
	}
	q := make([]string, len(r.Cues))
	for i, c := range r.Cues {
		q[i] = strconv.Quote(c)
	}
	return s + " (from " + strings.Join(q, ", ") + ")"
}

// Parse reads query as of anchor asOf (only its UTC calendar day matters).
func Parse(query string, asOf time.Time) Reading {
	y, m, d := asofday.Start(asOf).Date()
	p := &parser{q: query, toks: tokenize(query), a: date(y, int(m), d)}
	p.scan()
	r := Reading{Mode: Recency, AsOf: p.a, Text: p.text()}
	// Dates named in passing (pastCue) decide only when nothing else is dated.
	dates, change, kind, h := p.has(dateCue), p.has(changeCue), dateCue, p.hull
	if !dates && p.has(pastCue) {
		dates, kind, h = true, pastCue, p.past
	}
	if change && (p.singleEvent() || dates && (p.recent(kind, h) || kind == dateCue && !h.to.Before(h.from) && h.to.Sub(h.from) < recentDays*24*time.Hour)) {
		// "how did the key rate change at the last meeting", "как менялся курс на этой неделе",
		// "融资余额在2019年1月21日出现了怎样的变化": one change (recent, or on a day or a few days),
		// not a history; read as that time's news, the change words kept.
		change = false
		p.untake(changeCue)
		r.Text = p.text()
	}
	hist := (p.has(historyCue) || p.zhAgo) && !p.has(recencyCue)
	switch {
	case dates && !change && h.from.After(p.a):
		// A period wholly after A ("the 2024 race" as of 2023): what is known of it was
		// published before it, so it is read as recency over everything up to A, the date
		// words kept in the text; an explicit window request still gets "no documents".
		r.Mode, r.From, r.To, r.Empty, r.Text = Recency, h.from, h.to, true, strings.TrimSpace(p.q)
		r.Cues = p.phrases(kind)
	case dates && !change && p.recent(kind, h):
		// The period is kept to explain the reading; it is not a filter.
		r.Mode, r.From, r.To, r.Fresh = Recency, h.from, h.to, true
		if r.To.After(p.a) {
			r.To = p.a
		}
		r.Cues = p.phrases(kind, recencyCue)
	case dates && !change && kind == pastCue:
		r.Mode, r.From, r.To, r.Soft, r.Text = Recency, h.from, h.to, true, strings.TrimSpace(p.q)
		if r.To.After(p.a) {
			r.To = p.a
		}
		r.Cues, r.Fresh, r.Past = p.phrases(kind, recencyCue, historyCue), p.has(recencyCue), hist
	case dates:
		if kind == pastCue { // "how have rents changed since a year ago": from then to A
			h.to = p.a
		}
		r.Mode, r.From, r.To = Window, h.from, h.to
		r.Period = kind == dateCue && !slices.ContainsFunc(p.cues, func(c cue) bool { return c.kind == dateCue && c.bound })
		if change {
			r.Mode, r.Period = Evolution, false
		}
		if r.From.After(p.a) {
			r.Empty = true
		} else if r.To.After(p.a) {
			r.To = p.a
		}
		r.Cues = p.phrases(changeCue, kind)
		if kind == dateCue && !r.Empty && !hist && !p.recentCue() && (change || p.compares() || p.coordinatedCue()) {
			r.Periods = p.periods(change || p.compares())
		}
		if r.Mode == Window && hist {
			r.Past, r.Cues = true, p.phrases(kind, historyCue)
		}
	case change:
		r.Mode, r.Cues = Evolution, p.phrases(changeCue)
	case hist:
		r.Past, r.Cues = true, p.phrases(historyCue)
	default:
		r.Cues = p.phrases(recencyCue)
		r.Fresh = len(r.Cues) > 0
	}
	if !r.Past && p.has(historyCue) {
		// Not read as a question about the past: its words stay in the text.
		p.untake(historyCue)
		r.Text = p.text()
	}
	return r
}

// compareWords ask to compare (Reading.Periods: a range's two ends are the periods compared,
// "compare between 2021 and 2017", «сравните 2019 и 2021 годы»).
const compareWords = "compare|compared|compares|comparing|comparison|differ|differs|differed|difference|differences|different|" +
	"versus|vs|contrast|evolve|evolved|evolves|evolving|change|changed|changes|" +
	"сравн*|отлича*|отлич*|измен*|разниц*|" +
	"comparar|compara|comparación|comparado|diferencia|diferencias|cambio|cambios|cambió|evolución|" +
	"comparer|compare|comparaison|différence|différences|changement|changements|évolution|" +
	"confrontare|confronta|confronto|differenza|differenze|cambiamento|cambiamenti|evoluzione|rispetto"

// compares reports a word that asks to compare, outside any cue.
func (p *parser) compares() bool {
	for i := range p.toks {
		if !p.taken(i) && p.is(i, compareWords) {
			return true
		}
	}
	return false
}

// recentCue reports a date cue for a recent relative period ("this week", "yesterday"): a
// question of the week's news, whatever older dates set its scene ("released this week after
// being detained in 2018").
func (p *parser) recentCue() bool {
	return slices.ContainsFunc(p.cues, func(c cue) bool {
		const week = recentDays * 24 * time.Hour
		return c.kind == dateCue && c.rel && c.s.to.Sub(c.s.from) < week && p.a.Sub(c.s.to) <= week
	})
}

// coordinatedCue reports a year joined to another date ("in 2021 and 2023", "2022 or 2023"):
// periods named side by side to be compared.
func (p *parser) coordinatedCue() bool {
	return slices.ContainsFunc(p.cues, func(c cue) bool { return c.kind == dateCue && c.coord })
}

// yearJoins are the words that join a year to a date before it: "in 2021 and 2023", "2019,
// 2020 or 2021", "2020 vs 2023", «в 2021 и 2023 годах».
const yearJoins = "and|or|vs|versus|&|и|или|y|e|et|o|ou|frente"

// joinsYear reports a year joined to the date that ends at j (coordinated).
func (p *parser) joinsYear(j int) bool {
	_, _, ok := p.joinedYear(j)
	return ok
}

// joinedYear matches ", 2022", "and 2023", ", and in 2023", "vs. 2020", «и 2023 годах» at j.
func (p *parser) joinedYear(j int) (int, int, bool) {
	k := p.skip(j, ",")
	k = p.skip(k, yearJoins)
	if k == j {
		return j, 0, false
	}
	k = p.skip(p.skip(p.skip(k, "."), "in|the|в|en|el|le|il|nel|al|a|del|de|di"), "el|le|il")
	e, y, _, ok := p.year(k)
	return e, y, ok
}

// coordinated adds a date cue for each year joined to the date cue ending at i (joinedYear) and
// returns the index after the last.
func (p *parser) coordinated(i int) int {
	for {
		e, y, ok := p.joinedYear(i)
		if !ok {
			return i
		}
		s := monthsSpan(y, 1, 12)
		p.cues = append(p.cues, cue{i: i, j: e, kind: dateCue, s: s, coord: true})
		p.hull, i = hull(p.hull, s), e
	}
}

// periods is Reading.Periods: the date cues' periods (with a change cue, the two ends of a range when it is the only one;
// two ranges compared are periods themselves),
// clipped to A, sorted, the overlapping merged; nil unless two or more are left.
func (p *parser) periods(change bool) []Span {
	ranges := 0
	for _, c := range p.cues {
		if c.kind == dateCue && len(c.ends) == 2 {
			ranges++
		}
	}
	var ps []Span
	for _, c := range p.cues {
		if c.kind != dateCue {
			continue
		}
		parts := []span{c.s}
		if change && len(c.ends) == 2 && ranges == 1 { // two ranges compared are the periods themselves
			parts = c.ends
		}
		for _, s := range parts {
			if s.from.IsZero() {
				return nil // "before 2020": no start to compare
			}
			if s.from.After(p.a) {
				continue
			}
			if s.to.After(p.a) {
				s.to = p.a
			}
			ps = append(ps, Span{s.from, s.to})
		}
	}
	slices.SortFunc(ps, func(a, b Span) int { return cmp.Or(a.From.Compare(b.From), a.To.Compare(b.To)) })
	var out []Span
	for _, s := range ps {
		if n := len(out); n > 0 && !s.From.After(out[n-1].To) {
			if s.To.After(out[n-1].To) {
				out[n-1].To = s.To
			}
			continue
		}
		out = append(out, s)
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// singleEvent reports a word that names one event rather than a history ("последнего
// заседания", "the latest decision", 最近一次) outside any matched phrase.
func (p *parser) singleEvent() bool {
	for i, t := range p.toks {
		if t.s == "一" && p.is(i+1, "次") && (p.is(i-1, "上") || p.is(i-1, "近") && p.is(i-2, "最")) { // 上一次, 最近一次
			return true
		}
		if p.taken(i) {
			continue
		}
		if strings.HasPrefix(t.s, "последн") || t.s == "latest" || t.s == "last" && p.is(i+1, "meeting|decision|session|report|release|vote") {
			return true
		}
	}
	return false
}

// untake drops the cues of kind, so their words stay in Text.
func (p *parser) untake(kind int) {
	p.cues = slices.DeleteFunc(p.cues, func(c cue) bool { return c.kind == kind })
}

// recentDays is the longest relative period, in days, read as a recency cue rather than a window.
const recentDays = 7

// recent reports that every date cue of the kind is a period relative to A ("this week",
// "past 7 days", "yesterday", "a week ago") and that their hull h spans at most recentDays
// days, starting no later than A and ending no earlier than recentDays days before it.
func (p *parser) recent(kind int, h span) bool {
	for _, c := range p.cues {
		if c.kind == kind && !c.rel {
			return false
		}
	}
	const week = recentDays * 24 * time.Hour
	return !h.from.IsZero() && !h.from.After(p.a) && h.to.Sub(h.from) < week && p.a.Sub(h.to) <= week
}

// token is one Han character, a run of other letters (an inner apostrophe included:
// "today's"), a run of digits, or one other character that is not a space. "Q4" is two
// tokens; adjacency tells it from "Q 4". Chinese has no spaces, so each Han character is a
// token and the Chinese grammar (zh.go) reads words as runs of them.
type token struct {
	s          string // lower case, full width narrowed (２０２１ → 2021), ё → е, ’ → '
	n          int    // value of a run of at most 6 digits, else -1
	word       bool   // a Han character or a run of letters or digits
	start, end int    // byte offsets in the query
}

var (
	tokenRE = regexp.MustCompile(`\p{Han}|(?:[^\P{L}\p{Han}]|\p{M})+(?:['’](?:[^\P{L}\p{Han}]|\p{M})+)*|[0-9０-９]+|[^\s\p{Z}]`)
	fold    = strings.NewReplacer("ё", "е", "’", "'")
)

// narrow maps full-width ASCII forms (U+FF01..U+FF5E: "２０２１", "Ｑ３", "－") to ASCII.
func narrow(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0xFF01 && r <= 0xFF5E {
			return r - 0xFEE0
		}
		return r
	}, s)
}

func tokenize(q string) []token {
	var toks []token
	for _, m := range tokenRE.FindAllStringIndex(q, -1) {
		t := token{s: fold.Replace(strings.ToLower(narrow(q[m[0]:m[1]]))), n: -1, start: m[0], end: m[1]}
		t.word = strings.IndexFunc(t.s, isWordRune) == 0
		if c := t.s[0]; c >= '0' && c <= '9' && len(t.s) <= 6 {
			t.n, _ = strconv.Atoi(t.s)
		}
		toks = append(toks, t)
	}
	return toks
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// span is a range of whole days; a zero from is unbounded below.
type span struct{ from, to time.Time }

// Cue kinds.
const (
	dateCue = iota
	pastCue // a date named in passing: "N units ago", a decade
	changeCue
	recencyCue
	historyCue // a question about the past: "which came first", "when did", 什么时候, 首次
)

// cue is a matched phrase: tokens [i, j); rel marks a date phrase relative to A.
type cue struct {
	i, j, kind int
	rel        bool
	bound      bool   // an open range: "since 2020", "before 2020", 截至2023年
	s          span   // the days it names (date cues)
	ends       []span // a range's two ends (date cues: "from 2012 to 2020", "since 2019")
	coord      bool   // a year joined to the date before it ("and 2023")
}

type parser struct {
	q     string
	toks  []token
	a     time.Time // the anchor day
	cues  []cue
	hull  span   // smallest span covering every date cue
	past  span   // smallest span covering every pastCue
	rel   bool   // the last date expression matched a period relative to A
	soft  bool   // the last date expression was a date named in passing ("two years ago", "the 1960s")
	zhAgo bool   // a Chinese "N units ago" (四年前) was read: a question about the past
	ends  []span // the two ends of the range the last date expression matched ("from 2012 to 2020", "since 2019": 2019 and A)
}

// scan walks the tokens left to right and records cues. At each token it tries, in order:
// recency phrases ("as of today"), date expressions, change cues, recency words.
func (p *parser) scan() {
	for i := 0; i < len(p.toks); {
		if p.taken(i) {
			i++
		} else if j, ok := p.phrase(i, recencyPhrases); ok {
			p.cues, i = append(p.cues, cue{i: i, j: j, kind: recencyCue}), j
		} else if j, s, ok := p.dateExprRel(i); ok {
			kind, h := dateCue, &p.hull
			if p.soft {
				kind, h = pastCue, &p.past
			}
			if !p.has(kind) {
				*h = s
			}
			*h = hull(*h, s)
			p.cues, i = append(p.cues, cue{i: i, j: j, kind: kind, rel: p.rel, bound: !p.rel && (s.from.IsZero() || s.to.Equal(p.a)), s: s, ends: p.ends}), j
			if kind == dateCue {
				i = p.coordinated(i)
			}
		} else if j, y, _, ok := p.year(i); ok && p.joinsYear(j) {
			// "Bentley 2022 and 2023", "2012 and 2014 deliveries": a bare year joined to another.
			s := monthsSpan(y, 1, 12)
			p.cues, i = append(p.cues, cue{i: i, j: j, kind: dateCue, s: s}), j
			p.hull = s
			if len(p.cues) > 1 {
				p.hull = hull(p.hull, s)
			}
			i = p.coordinated(i)
		} else if cs := p.change(i); len(cs) > 0 {
			p.cues, i = append(p.cues, cs...), cs[0].j
		} else if j, ok := p.zhRecency(i); ok {
			p.cues, i = append(p.cues, cue{i: i, j: j, kind: recencyCue}), j
		} else if j, ok := p.history(i); ok {
			p.cues, i = append(p.cues, cue{i: i, j: j, kind: historyCue}), j
		} else {
			if p.is(i, recencyWords) {
				p.cues = append(p.cues, cue{i: i, j: i + 1, kind: recencyCue})
			}
			i++
		}
	}
	slices.SortFunc(p.cues, func(a, b cue) int { return a.i - b.i })
}

func (p *parser) has(kind int) bool {
	return slices.ContainsFunc(p.cues, func(c cue) bool { return c.kind == kind })
}

// taken reports whether token i is in a cue already (the verb of "how has … changed").
func (p *parser) taken(i int) bool {
	return slices.ContainsFunc(p.cues, func(c cue) bool { return c.i <= i && i < c.j })
}

// phrases returns the query text of the cues of the given kinds, in query order.
func (p *parser) phrases(kinds ...int) []string {
	var out []string
	for _, c := range p.cues {
		if slices.Contains(kinds, c.kind) {
			out = append(out, p.q[p.toks[c.i].start:p.toks[c.j-1].end])
		}
	}
	return out
}

// text returns the query without its cues, spaces squeezed and orphaned punctuation tidied.
// The Chinese particle 的 right before or after a cue goes with it ("2021年的通胀" → "通胀",
// "汇率的演变" → "汇率").
func (p *parser) text() string {
	var b strings.Builder
	last := 0
	for _, c := range p.cues {
		b.WriteString(strings.TrimSuffix(p.q[last:p.toks[c.i].start], "的") + " ")
		last = p.toks[c.j-1].end
		if rest := strings.TrimLeft(p.q[last:], " \u3000"); strings.HasPrefix(rest, "的") {
			last = len(p.q) - len(rest) + len("的")
		}
	}
	b.WriteString(p.q[last:])
	var words []string
	for _, f := range strings.Fields(b.String()) {
		if len(words) > 0 && strings.Trim(f, ".,;:!?)»，。；：！？）」』、") == "" {
			words[len(words)-1] += f
		} else {
			words = append(words, f)
		}
	}
	t := strings.Trim(strings.Join(words, " "), " ,;:-–—，。、；：")
	if len(p.cues) == 0 || !strings.ContainsFunc(t, isWordRune) {
		return strings.TrimSpace(p.q)
	}
	return t
}

func (p *parser) tok(i int) token {
	if i < 0 || i >= len(p.toks) {
		return token{n: -1}
	}
	return p.toks[i]
}

// is reports whether token i matches one of alts, "|"-separated words; a word ending in "*"
// is a stem and matches any token it begins.
func (p *parser) is(i int, alts string) bool {
	s := p.tok(i).s
	for alt := range strings.SplitSeq(alts, "|") {
		if stem, ok := strings.CutSuffix(alt, "*"); s != "" && (alt == s || ok && strings.HasPrefix(s, stem)) {
			return true
		}
	}
	return false
}

// seq matches one token per step from i; a step starting with "?" may be absent.
func (p *parser) seq(i int, steps ...string) (int, bool) {
	for _, st := range steps {
		alts, opt := strings.CutPrefix(st, "?")
		if p.is(i, alts) {
			i++
		} else if !opt {
			return i, false
		}
	}
	return i, true
}

// skip steps over token i if it matches alts.
func (p *parser) skip(i int, alts string) int {
	if p.is(i, alts) {
		return i + 1
	}
	return i
}

// glued reports whether token i touches the token before it and matches alts ("" is any).
func (p *parser) glued(i int, alts string) bool {
	return i > 0 && i < len(p.toks) && p.toks[i-1].end == p.toks[i].start && (alts == "" || p.is(i, alts))
}

// num returns token i as a number if it has lo..hi digits.
func (p *parser) num(i, lo, hi int) (int, bool) {
	t := p.tok(i)
	return t.n, t.n >= 0 && len(t.s) >= lo && len(t.s) <= hi
}

// recencyWords are one-word recency cues; they are tried last, so "current year" is a date.
const recencyWords = "current|currently|latest|now|recent|recently|newest|nowadays|today's|" +
	"актуальн*|сейчас|текущ*|свеж*|новейш*|сегодняшн*|нынешн*|" +
	"actualmente|ahora|reciente|recientes|recientemente|actuel|actuelle|actuellement|maintenant|récent|récente|récemment|" +
	"attuale|attualmente|adesso|ora|recente|recenti|recentemente"

// recencyPhrases are multi-word recency cues, tried before date expressions so that "as of
// today" and "на сегодня" are not read as a window on A's day.
var recencyPhrases = [][]string{
	{"as", "of", "now|today|yet"},
	{"right|just", "now"},
	{"up", "?-", "to", "?-", "date"},
	{"until|till|up", "?to", "now"},
	{"so", "far"},
	{"?in|over|during|for|within|the|в|за|на", "?the", "recent|последние|последних",
		"days|weeks|months|years|дни|дней|недели|недель|месяцы|месяцев|годы|лет"},
	{"последн*", "новост*"},
	{"на", "сегодня|сегодняшний|текущий|данный", "?день|момент"},
	{"в", "последнее", "время"},
	{"в|на", "настоящее", "время"},
	{"до", "сих", "пор"},
	{"по", "сей", "день"},
	{"últimas|ultimas|últimos|ultimos|dernières|dernieres|derniers|ultime|ultimi", "noticias|novedades|nouvelles|infos|informations|notizie|novità"},
	{"lo", "último|ultimo"},
	{"hasta|jusqu'à|fino", "?hoy|ahora|aujourd'hui|maintenant|oggi|ad|a", "?oggi"},
	{"hoy", "en", "día"},
	{"en|al", "este|el", "momento"},
	{"à|a|in", "l'heure|quest'ora", "?actuelle"},
	{"de|di", "nos|oggi", "jours|giorno"},
}

// phrase matches the first of phrases (see seq) at i.
func (p *parser) phrase(i int, phrases [][]string) (int, bool) {
	for _, ph := range phrases {
		if j, ok := p.seq(i, ph...); ok && j > i {
			return j, true
		}
	}
	return i, false
}

// changePhrases are contiguous change cues.
var changePhrases = [][]string{
	{"evolution|evolutions", "?of"},
	{"over", "time"},
	{"over", "the", "years|decades"},
	{"then", "and", "now"},
	{"history", "of"},
	{"what", "?has|have", "changed"},
	{"evolución|évolution|evoluzione", "?de|del|du|des|de|della|dello|di"},
	{"qué|que", "?ha|han", "cambiado"},
	{"ce", "qui", "a", "changé"},
	{"cosa", "è", "cambiato"},
	{"что", "изменил*|поменял*"},
	{"эволюци*"},
	{"динамик*"},
}

// change matches a change cue at i. "how [aux] … verb" and "как … verb" are two cues, or one
// when they touch; the verb must be within 12 words.
func (p *parser) change(i int) []cue {
	if cs := p.zhChange(i); cs != nil {
		return cs
	}
	if j, ok := p.phrase(i, changePhrases); ok {
		return []cue{{i: i, j: j, kind: changeCue}}
	}
	k, verbs := i+1, ""
	switch {
	case p.is(i, "how") && p.is(k, "did"):
		k, verbs = k+1, "change|evolve"
	case p.is(i, "how") && p.is(k, "is|are|was|were"):
		k, verbs = k+1, "changing|evolving|changed|evolved"
	case p.is(i, "how"):
		k, verbs = p.skip(k, "has|have|had"), "changed|evolved"
	case p.is(i, "как"):
		verbs = "изменил*|изменял*|изменяет*|изменяют*|менял*|меняет*|меняют*|поменял*|эволюционир*"
	case p.is(i, "cómo|comment|come"):
		verbs = "cambiado|cambió|cambia|cambian|cambiaron|evolucionado|evolucionó|evoluciona|changé|évolué|change|changent|évolue|évoluent|" +
			"cambiato|cambiata|cambiati|cambia|cambiano|evoluto|evoluta|evolve"
	default:
		return nil
	}
	for v := k; v < len(p.toks) && v < k+12; v++ {
		if p.is(v, verbs) && !p.taken(v) {
			if v == k {
				return []cue{{i: i, j: v + 1, kind: changeCue}}
			}
			return []cue{{i: i, j: k, kind: changeCue}, {i: v, j: v + 1, kind: changeCue}}
		}
	}
	return nil
}

// Stated is the period a document's title says it is about, as of its publication day: the
// title's first named period — a year, also bare ("Audi Report 2020", "Annual Report 2014"),
// a quarter, month or date ("Q3 2023 results", «Итоги 2021 года», 2021年年度报告) — that
// ends on or before that day. A period relative to the day ("this week"), an open range
// ("since 2019") or a period after the day (a plan: "Outlook 2025") states nothing: ok is
// false.
func Stated(title string, published time.Time) (Span, bool) {
	if title == "" || published.IsZero() {
		return Span{}, false
	}
	y, m, d := asofday.Start(published).Date()
	p := &parser{q: title, toks: tokenize(title), a: date(y, int(m), d)}
	for i := 0; i < len(p.toks); i++ {
		var s span
		if j, sp, ok := p.dateExprRel(i); ok {
			if p.rel || sp.from.IsZero() || p.ends != nil || sp.to.Equal(p.a) {
				i = j - 1
				continue
			}
			s = sp
		} else if _, yr, _, ok := p.year(i); ok {
			s = monthsSpan(yr, 1, 12)
		} else {
			continue
		}
		if s.to.After(p.a) {
			return Span{}, false
		}
		return Span{s.from, s.to}, true
	}
	return Span{}, false
}
