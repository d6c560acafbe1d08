package intent

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The Chinese grammar. Each Han character is a token, so a Chinese word is a run of tokens
// (zh matches one). Spaces between them are allowed ("2021 年 3 月", as pangu spacing writes
// it). Its date phrases follow the package's reading rules; the forms are listed in the
// package comment.

const (
	// zhJoins join the two ends of a range: "2019年至2021年", "3月到5月", "2019—2021年".
	zhJoins = "至|到|-|–|—|~|〜"
	// zhRecencyWords are recency cues, longest first; they are tried last, so "最近一周" is a date.
	zhRecencyWords = "到目前为止|截至目前|截止目前|目前为止|迄今为止|最近几天|最近几周|最近几个月|最近几年|" +
		"近几天|近几周|近几个月|近几年|近些年|近年来|这几天|这两天|近年|最近|最新|目前|现在|当前|当下|" +
		"近期|如今|眼下|时下|近日|近来|迄今|至今"
	// zhChangePhrases are contiguous change cues, longest first.
	zhChangePhrases = "发生了什么变化|发生了哪些变化|随着时间的推移|随着时间推移|有什么变化|有哪些变化|" +
		"有何变化|变化了吗|变化如何|变了吗|前后对比|前后比较|随时间|来龙去脉|发展历程|历年来|历年|演变|演化|变迁"
	// zhChangeVerbs follow 如何/怎样/怎么 within a few characters ("房价如何变化"); 如何改变 ("how
	// to change") is not a change cue.
	zhChangeVerbs = "变化|演变|演化|变迁|变动|变了"
)

// zhBlocked are words whose last character begins a Chinese date or cue word, so that word
// does not start there: 日本 holds no 本…, 过去年 no 去年, 说明年 no 明年, 实现在 no 现在.
var zhBlocked = func() map[string]bool {
	m := map[string]bool{}
	for w := range strings.SplitSeq("日本|资本|成本|基本|根本|版本|文本|样本|剧本|课本|账本|书本|范本|标本|副本|"+
		"脚本|原本|股本|一本|读本|蓝本|过去|失去|回去|进去|出去|下去|上去|死去|离去|除去|减去|省去|如今|"+
		"至今|迄今|当今|现今|古今|而今|从今|说明|声明|表明|证明|光明|文明|透明|聪明|分明|发明|鲜明|明明|"+
		"阐明|注明|标明|查明|指明|简明|高明|清明|黎明|英明|开明|以前|之前|提前|目前|当前|眼前|空前|此前|"+
		"先前|从前|生前|战前|事前|面前|跟前|向前|往前|日前|节前|会前|赛前|课前|饭前|睡前|门前|史前|超前|"+
		"接近|将近|附近|临近|靠近|亲近|邻近|贴近|逼近|就近|远近|实现|表现|出现|体现|发现|呈现|展现|再现|"+
		"兑现|浮现|显现|涌现|来自|各自|亲自|独自|擅自|暗自|私自|源自|出自|统一|唯一|万一|同一|之一|单一|逐一|经历|学历|病历|日历|履历|来历|阅历|简历|资历", "|") {
		m[w] = true
	}
	return m
}()

// zhStart reports whether a Chinese word may begin at token i: not inside a blocked word, and
// 年 or 月 not right after another Han character or a digit (青年初, 岁月底).
func (p *parser) zhStart(i int) bool {
	if i == 0 || !p.glued(i, "") {
		return true
	}
	prev := p.tok(i - 1)
	if p.is(i, "年|月") && (isHan(prev.s) || prev.n >= 0) {
		return false
	}
	return !zhBlocked[prev.s+p.tok(i).s]
}

func isHan(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.Is(unicode.Han, r)
}

// zh matches one of alts, "|"-separated words, one token per character, at token i.
func (p *parser) zh(i int, alts string) (int, bool) {
	for alt := range strings.SplitSeq(alts, "|") {
		j := i
		for k, r := range alt {
			if p.tok(j).s != alt[k:k+utf8.RuneLen(r)] {
				j = -1
				break
			}
			j++
		}
		if j > i {
			return j, true
		}
	}
	return i, false
}

// zhSkip steps over one of alts at i.
func (p *parser) zhSkip(i int, alts string) int {
	j, _ := p.zh(i, alts)
	return j
}

var (
	zhDigits = map[string]int{"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
		"六": 6, "七": 7, "八": 8, "九": 9}
	zhTens = map[string]int{"十": 10, "百": 100, "千": 1000}
)

// zhCount matches a count or ordinal: digits ("12", "１２") or a Han numeral in positional
// form ("三", "十二", "二十五", "一百零五"). A string of Han digits ("一二") is not a count.
func (p *parser) zhCount(i int) (int, int, bool) {
	if t := p.tok(i); t.n >= 0 {
		return t.n, i + 1, true
	}
	total, cur, last, k := 0, 0, false, i
	for ; k < i+8; k++ {
		s := p.tok(k).s
		if d, ok := zhDigits[s]; ok {
			if last {
				return 0, i, false
			}
			cur, last = d, d > 0
		} else if m, ok := zhTens[s]; ok {
			total, cur, last = total+max(cur, 1)*m, 0, false
		} else {
			break
		}
	}
	return total + cur, k, k > i
}

// zhYearNum matches four digits or four Han digits ("二〇二一", "二零二一").
func (p *parser) zhYearNum(i int) (int, int, bool) {
	if y, ok := p.num(i, 4, 4); ok {
		return y, i + 1, true
	}
	y := 0
	for k := i; k < i+4; k++ {
		d, ok := zhDigits[p.tok(k).s]
		if !ok || p.tok(k).s == "两" {
			return 0, i, false
		}
		y = y*10 + d
	}
	return y, i + 4, true
}

// zhYearAt matches a year: 2021年, 二〇二一年, 2021年度, 今年, 去年, 前年, 明年, 上年; short
// reports a two-digit year ("21年"), read as the nearest such year to A and valid only with a
// month, quarter or half after it ("21年3月").
func (p *parser) zhYearAt(i int) (j, y int, short, ok bool) {
	for off, w := range []string{"前年", "去年|上年|上一年", "今年|本年", "明年|下一年", "后年"} {
		if j, ok := p.zh(i, w); ok {
			p.rel = true
			return p.zhSkip(j, "度"), p.a.Year() + off - 2, false, true
		}
	}
	if y, j, ok := p.zhYearNum(i); ok && y >= 1900 && y <= 2100 {
		if j, ok := p.zh(j, "年"); ok {
			return p.zhSkip(j, "度"), y, false, true
		}
	}
	if y, ok := p.num(i, 2, 2); ok {
		if j, ok := p.zh(i+1, "年"); ok {
			y += p.a.Year() / 100 * 100
			switch {
			case y-p.a.Year() > 50:
				y -= 100
			case p.a.Year()-y > 50:
				y += 100
			}
			return j, y, true, true
		}
	}
	return i, 0, false, false
}

// zhDate matches a Chinese date phrase at i: [在|于|从|自] point, a range (point 至|到|—
// point, point 至今), an open range (point 以来|起|开始: since; 之后|以后|后: after; 以前|之前|前:
// before; 截至 point [为止]: until) or a point followed by 前后 (around it).
func (p *parser) zhDate(i int) (int, span, bool) {
	if t := p.tok(i); !isHan(t.s) && t.n < 0 || !p.zhStart(i) {
		return i, span{}, false
	}
	if k, ok := p.zh(i, "截至|截止到|截止|直到"); ok {
		if j, s, ok := p.zhPoint(k); ok {
			return p.bounded(p.zhSkip(j, "为止|止"), span{time.Time{}, s.to})
		}
		return i, span{}, false
	}
	k, since := p.zh(i, "自从|自")
	if !since {
		k = p.zhSkip(i, "在|于|从")
	}
	j, first, ok := p.zhYearRange(k)
	if !ok {
		j, first, ok = p.zhPoint(k)
	}
	if !ok {
		return i, span{}, false
	}
	if e, ok := p.zh(j, zhJoins); ok {
		e = p.zhSkip(e, "—")
		if e2, ok := p.zh(e, "今|现在|目前|今天"); ok {
			p.ends = []span{first, {p.a, p.a}}
			return p.bounded(p.zhSkip(e2, "为止"), span{first.from, p.a})
		}
		if e2, second, ok := p.zhTail(e, first); ok {
			p.ends = []span{first, second}
			return p.bounded(p.zhSkip(e2, "期间|之间|间"), hull(first, second))
		}
	}
	if e, ok := p.zh(j, "以来|起|开始|至今|迄今"); ok {
		p.ends = []span{first, {p.a, p.a}}
		return p.bounded(e, span{first.from, p.a})
	}
	if e, ok := p.zh(j, "前后"); ok {
		if _, cmp := p.zh(e, "对比|比较"); !cmp {
			return e, first, true
		}
	} else if e, ok := p.zh(j, "之后|以后|后"); ok {
		return p.bounded(e, span{first.to.AddDate(0, 0, 1), p.a})
	} else if e, ok := p.zh(j, "以前|之前|前"); ok {
		return p.bounded(e, span{time.Time{}, first.from.AddDate(0, 0, -1)})
	} else if e, ok := p.zh(j, "为止"); ok {
		return p.bounded(e, span{time.Time{}, first.to})
	}
	if since {
		p.ends = []span{first, {p.a, p.a}}
		return p.bounded(j, span{first.from, p.a})
	}
	return j, first, true
}

// bounded returns a range or open range: it bounds the search even when it was built from a
// date named in passing (三年前至今).
func (p *parser) bounded(j int, s span) (int, span, bool) {
	p.soft = false
	return j, s, true
}

// zhYearRange matches years joined without the first 年: "2019—2021年", "2019至2021年".
func (p *parser) zhYearRange(i int) (int, span, bool) {
	y1, j, ok := p.zhYearNum(i)
	if !ok || y1 < 1900 || y1 > 2100 {
		return i, span{}, false
	}
	if j, ok = p.zh(j, zhJoins); !ok {
		return i, span{}, false
	}
	if k, y2, short, ok := p.zhYearAt(p.zhSkip(j, "—")); ok && !short {
		p.ends = []span{monthsSpan(y1, 1, 12), monthsSpan(y2, 1, 12)}
		return k, hull(monthsSpan(y1, 1, 12), monthsSpan(y2, 1, 12)), true
	}
	return i, span{}, false
}

// zhTail matches the end of a range begun by first: a point of its own, or a month or day
// that takes its year (and month) from first ("2024年3月至5月", "3月5日至10日").
func (p *parser) zhTail(i int, first span) (int, span, bool) {
	if _, _, _, ok := p.zhYearAt(i); ok {
		return p.zhPoint(i)
	}
	y, m := first.from.Year(), int(first.from.Month())
	if j, s, ok := p.zhMonthDay(i, y); ok {
		if s.from.Before(first.from) { // "12月至2月"
			j, s, ok = p.zhMonthDay(i, y+1)
		}
		return j, s, ok
	}
	if d, j, ok := p.zhDay(i); ok {
		return day(j, y, m, d)
	}
	return p.zhPoint(i)
}

// zhPoint matches one period: a decade, a year with an optional month, day, quarter, half,
// season or third, a yearless month, day or quarter, or a period relative to A.
func (p *parser) zhPoint(i int) (int, span, bool) {
	if j, s, ok := p.zhDecade(i); ok {
		return j, s, true
	}
	if j, y, short, ok := p.zhYearAt(i); ok {
		if k, s, ok := p.zhInYear(j, y); ok {
			return k, s, true
		}
		if !short {
			if k, ok := p.zh(j, "全年"); ok {
				return k, monthsSpan(y, 1, 12), true
			}
			k, s := p.zhMod(j, monthsSpan(y, 1, 12))
			return k, s, true
		}
	}
	if j, s, ok := p.zhYearless(i); ok {
		return j, s, true
	}
	return p.zhRelative(i)
}

// zhInYear matches what may follow a year: months "1-3月", a month with an optional day or
// third, a quarter ("第三季度", "三季度", "Q3"), the first quarters or months ("前三季度",
// "前5个月"), a half ("上半年") or a season ("春天", "冬季": the winter of 2021 begins in December 2021).
func (p *parser) zhInYear(j, y int) (int, span, bool) {
	if m1, m2, k, ok := p.zhMonths(j); ok {
		return k, monthsSpan(y, m1, m2-m1+1), true
	}
	if k, s, ok := p.zhMonthDay(j, y); ok {
		return k, s, true
	}
	if q, k, ok := p.zhQuarter(j, false); ok {
		k, s := p.zhMod(k, monthsSpan(y, 3*q-2, 3))
		return k, s, true
	}
	if q, k, ok := p.part(j, "q", 4, ""); ok {
		return k, monthsSpan(y, 3*q-2, 3), true
	}
	if h, k, ok := p.part(j, "h", 2, ""); ok {
		return k, monthsSpan(y, 6*h-5, 6), true
	}
	if k, ok := p.zh(j, "前"); ok {
		if n, k, ok := p.zhCount(k); ok {
			if e, ok := p.zh(k, "个季度|季度"); ok && n >= 1 && n <= 4 {
				return e, monthsSpan(y, 1, 3*n), true
			}
			if e, ok := p.zh(k, "个月"); ok && n >= 1 && n <= 12 {
				return e, monthsSpan(y, 1, n), true
			}
		}
	}
	for h, w := range []string{"上半年|上半", "下半年|下半"} {
		if k, ok := p.zh(j, w); ok {
			return k, monthsSpan(y, 1+6*h, 6), true
		}
	}
	for s, w := range []string{"春天|春季", "夏天|夏季", "秋天|秋季", "冬天|冬季"} {
		if k, ok := p.zh(j, w); ok {
			return k, seasonSpan(y, s), true
		}
	}
	return j, span{}, false
}

// zhMonths matches a range of months in one year: "1-3月", "1至3月份".
func (p *parser) zhMonths(i int) (int, int, int, bool) {
	m1, k, ok := p.zhCount(i)
	if !ok {
		return 0, 0, i, false
	}
	if k, ok = p.zh(k, zhJoins); !ok {
		return 0, 0, i, false
	}
	m2, k, ok := p.zhCount(k)
	if !ok || m1 < 1 || m1 >= m2 || m2 > 12 {
		return 0, 0, i, false
	}
	if k, ok = p.zh(k, "月"); !ok {
		return 0, 0, i, false
	}
	return m1, m2, p.zhSkip(k, "份"), true
}

// zhMonth matches a month: "3月", "三月", "十二月份".
func (p *parser) zhMonth(i int) (int, int, bool) {
	m, j, ok := p.zhCount(i)
	if !ok || m < 1 || m > 12 {
		return 0, i, false
	}
	if j, ok = p.zh(j, "月"); !ok {
		return 0, i, false
	}
	return m, p.zhSkip(j, "份"), true
}

// zhDay matches a day of the month: "5日", "五号".
func (p *parser) zhDay(i int) (int, int, bool) {
	d, j, ok := p.zhCount(i)
	if !ok || d < 1 || d > 31 {
		return 0, i, false
	}
	if j, ok = p.zh(j, "日|号"); !ok {
		return 0, i, false
	}
	return d, j, true
}

// zhMonthDay matches a month of year y with an optional day or third: "3月", "3月5日", "3月上旬".
func (p *parser) zhMonthDay(i, y int) (int, span, bool) {
	m, j, ok := p.zhMonth(i)
	if !ok {
		return i, span{}, false
	}
	if d, k, ok := p.zhDay(j); ok {
		return day(k, y, m, d)
	}
	j, s := p.zhMod(j, monthsSpan(y, m, 1))
	return j, s, true
}

// zhQuarter matches a quarter: "第三季度", "三季度", "一季" (only after a year, unless needDu is false).
func (p *parser) zhQuarter(i int, needDu bool) (int, int, bool) {
	q, k, ok := p.zhCount(p.zhSkip(i, "第"))
	if !ok || q < 1 || q > 4 {
		return 0, i, false
	}
	unit := "季度|季"
	if needDu {
		unit = "季度"
	}
	if k, ok = p.zh(k, unit); !ok {
		return 0, i, false
	}
	return q, k, true
}

// zhMod reads a third of s after it: 初 or 上旬 (the first), 中 or 中旬 (the middle), 底, 末
// or 下旬 (the last): "2021年初", "今年年底", "3月上旬", "三季度末". 初步 and 初次 are not 初, and
// 中 needs no Han character after it but 的 or 期 ("2021年中国" is China in 2021).
func (p *parser) zhMod(j int, s span) (int, span) {
	k := p.zhSkip(j, "年|月")
	for t, w := range []string{"上旬|初", "中旬|中", "下旬|底|末"} {
		e, ok := p.zh(k, w)
		switch {
		case !ok:
			continue
		case e == k+1 && p.is(k, "初") && p.is(e, "步|次|期|级|中|稿|审|衷|创|始"):
		case e == k+1 && p.is(k, "中") && isHan(p.tok(e).s) && !p.is(e, "的|期"):
		default:
			if s, ok := third(s, t); ok {
				return e, s
			}
		}
		break
	}
	return j, s
}

// zhYearless matches a period without a year, read as its latest start on or before A (the
// package's rule): months "1-3月", a month with a day or third ("3月5日", "3月份"; a Han
// numeral month needs 份, a day or 在/于 before it: "三月份", "在三月"), a quarter
// ("第三季度"), or a part of A's year or month: 上半年, 下半年 (A's year's halves: 下半年 before
// July is read as a future period), 年初, 年底, 年末, 月初, 月底, 月末.
func (p *parser) zhYearless(i int) (int, span, bool) {
	if m1, m2, k, ok := p.zhMonths(i); ok {
		return k, latest(func(y int) span { return monthsSpan(y, m1, m2-m1+1) }, p.a), true
	}
	if m, j, ok := p.zhMonth(i); ok {
		if d, k, ok := p.zhDay(j); ok {
			for y := p.a.Year(); y > p.a.Year()-8; y-- {
				if k, s, ok := day(k, y, m, d); ok && !s.from.After(p.a) {
					return k, s, true
				}
			}
			return i, span{}, false
		}
		if p.tok(i).n < 0 && !p.is(j-1, "份") && !p.is(i-1, "在|于") {
			return i, span{}, false
		}
		j, s := p.zhMod(j, latest(func(y int) span { return monthsSpan(y, m, 1) }, p.a))
		return j, s, true
	}
	if q, j, ok := p.zhQuarter(i, true); ok {
		j, s := p.zhMod(j, latest(func(y int) span { return monthsSpan(y, 3*q-2, 3) }, p.a))
		return j, s, true
	}
	for h, w := range []string{"上半年", "下半年"} {
		if j, ok := p.zh(i, w); ok {
			p.rel = true
			return j, monthsSpan(p.a.Year(), 1+6*h, 6), true
		}
	}
	for _, u := range []unit{units[4], units[2]} {
		w := "年"
		if u.months == 1 {
			w = "月"
		}
		if j, ok := p.zh(i, w); ok {
			if k, s := p.zhMod(j, p.calendar(u, 0)); k > j && !p.is(j, "中") {
				p.rel = true
				return k, s, true
			}
		}
	}
	return i, span{}, false
}

// zhDecade matches a decade: "2010年代", "90年代" (the latest such decade begun by A),
// "20世纪90年代", "上世纪90年代", "九十年代初" (with a third).
func (p *parser) zhDecade(i int) (int, span, bool) {
	base, k := -1, i
	if j, ok := p.zh(i, "上世纪|上个世纪"); ok {
		base, k = (p.a.Year()/100-1)*100, j
	} else if j, ok := p.zh(i, "本世纪"); ok {
		base, k = p.a.Year()/100*100, j
	} else if c, j, ok := p.zhCount(i); ok && c >= 19 && c <= 21 {
		if j, ok := p.zh(j, "世纪"); ok {
			base, k = (c-1)*100, j
		}
	}
	n, j, ok := p.zhCount(k)
	if !ok || n%10 != 0 {
		return i, span{}, false
	}
	if j, ok = p.zh(j, "年代"); !ok {
		return i, span{}, false
	}
	y := n
	switch {
	case n >= 1900 && n <= 2090 && base < 0:
	case n < 100 && base >= 0:
		y = base + n
	case n < 100:
		if y = p.a.Year()/100*100 + n; y > p.a.Year() {
			y -= 100
		}
	default:
		return i, span{}, false
	}
	j, s := p.zhMod(j, monthsSpan(y, 1, 120))
	p.soft = true
	return j, s, true
}

// zhCalendar are the calendar periods relative to A, with their unit and offsets: last, this, next.
var zhCalendar = []struct {
	u     unit
	words [3]string
}{
	{units[0], [3]string{"昨天|昨日", "今天|今日", "明天|明日"}},
	{units[1], [3]string{"上周|上个星期|上星期|上个礼拜|上礼拜|上一周", "本周|这周|这个星期|这星期|本星期|这个礼拜|这礼拜",
		"下周|下个星期|下星期|下个礼拜|下礼拜|下一周"}},
	{units[2], [3]string{"上个月|上一个月|上月", "本月|这个月|这月", "下个月|下月"}},
	{units[3], [3]string{"上个季度|上一季度|上季度", "本季度|这个季度|这季度", "下个季度|下季度"}},
}

// zhRelative matches a period relative to A: 今天, 昨天, 前天, 本周, 上周, 本月, 上个月 (with a
// third: 上月底), 本季度, 上季度, the rolling 近三个月, 过去一年, 最近一周, 近30天, 过去半年,
// and N units ago: 三年前, 两周前, 3天前, 半年前 (see ago).
func (p *parser) zhRelative(i int) (int, span, bool) {
	for k, w := range []string{"前天", "后天"} {
		if j, ok := p.zh(i, w); ok {
			p.rel = true
			return j, p.calendar(units[0], 4*k-2), true
		}
	}
	for _, c := range zhCalendar {
		for k, w := range c.words {
			if j, ok := p.zh(i, w); ok {
				p.rel = true
				j, s := p.zhMod(j, p.calendar(c.u, k-1))
				return j, s, true
			}
		}
	}
	if k, ok := p.zh(i, "最近|过去的|过去|近"); ok {
		if n, u, j, ok := p.zhAmount(k); ok {
			p.rel = true
			return p.zhSkip(j, "以来|来|之内|内|里|中|期间|间"), p.rolling(u, n), true
		}
	}
	if n, u, j, ok := p.zhAmount(i); ok && !(u.months == 1 && p.is(j-1, "月") && !p.is(j-2, "个")) {
		if j, ok := p.zh(j, "以前|之前|前"); ok {
			k := p.zhSkip(j, "的")
			if e, ok := p.zh(k, "今天|今日|这一天|这天"); ok { // 两年前的今天: that day, N units back
				at := p.back(u, n)
				p.rel = true
				return e, span{at, at}, true
			}
			if e, ok := p.zh(k, "这个星期|这一周|这周|本周"); ok { // 一年前的这个星期: that week
				at := p.back(u, n)
				from := at.AddDate(0, 0, -(int(at.Weekday())+6)%7)
				p.rel = true
				return e, span{from, from.AddDate(0, 0, 6)}, true
			}
			if u.months == 12 {
				// 两年前5月, 四年前的三月, 两年前3月20日: a month or a date of the year N years back.
				if e, s, ok := p.zhInYear(k, p.a.Year()-n); ok {
					p.rel = true
					return e, s, true
				}
			}
			// 四年前 alone: in Chinese the time of what is asked ("四年前阿盟在哪个城市举行外长会议"),
			// a question about the past (Reading.Past), unlike English "two years ago", which
			// sets the scene of fresh news.
			p.rel, p.soft, p.zhAgo = true, true, true
			return j, p.around(u, n), true
		}
	}
	return i, span{}, false
}

// zhAmount matches a count and a unit: "三个月", "30天", "两周", "一年", "半年", "半个月".
func (p *parser) zhAmount(i int) (int, unit, int, bool) {
	if j, ok := p.zh(i, "半年"); ok {
		return 1, unit{"", 0, 6}, j, true
	}
	if j, ok := p.zh(i, "半个月|半月"); ok {
		return 1, unit{"", 15, 0}, j, true
	}
	n, k, ok := p.zhCount(i)
	if !ok || n <= 0 {
		return 0, unit{}, i, false
	}
	for _, c := range []struct {
		words string
		u     unit
	}{{"天|日", units[0]}, {"个星期|星期|周|个礼拜|礼拜", units[1]}, {"个月|月", units[2]},
		{"个季度|季度", units[3]}, {"年", units[4]}} {
		if j, ok := p.zh(k, c.words); ok && (n < 1000 || c.u.months != 12) {
			return n, c.u, j, true
		}
	}
	return 0, unit{}, i, false
}

// zhRecency matches a Chinese recency cue ("最新", "目前", "近期") at i.
func (p *parser) zhRecency(i int) (int, bool) {
	if !isHan(p.tok(i).s) || !p.zhStart(i) {
		return i, false
	}
	return p.zh(i, zhRecencyWords)
}

// zhChange matches a Chinese change cue at i: a phrase ("有何变化", "演变", "前后对比") or
// 如何/怎样/怎么 with a change verb within 12 characters ("房价如何变化", "利率如何随政策变化").
func (p *parser) zhChange(i int) []cue {
	if !isHan(p.tok(i).s) || !p.zhStart(i) {
		return nil
	}
	if j, ok := p.zh(i, zhChangePhrases); ok {
		return []cue{{i: i, j: j, kind: changeCue}}
	}
	k, ok := p.zh(i, "如何|怎样|怎么")
	if !ok {
		return nil
	}
	for v := k; v < len(p.toks) && v < k+12; v++ {
		if e, ok := p.zh(v, zhChangeVerbs); ok && !p.taken(v) {
			if v == k {
				return []cue{{i: i, j: e, kind: changeCue}}
			}
			return []cue{{i: i, j: k, kind: changeCue}, {i: v, j: e, kind: changeCue}}
		}
	}
	return nil
}
