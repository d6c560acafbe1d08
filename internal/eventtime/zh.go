package eventtime

import "time"

// zhRelative are the Chinese words for days relative to the publication day.
var zhRelative = []struct {
	words  []string
	offset int
}{
	{[]string{"前", "天"}, -2}, {[]string{"昨", "天"}, -1}, {[]string{"昨", "日"}, -1}, {[]string{"今", "天"}, 0},
	{[]string{"明", "天"}, 1}, {[]string{"后", "天"}, 2},
}

// zhWeekdays are the characters after 周, 星期 or 礼拜 for Monday to Sunday (日 and 天 both Sunday).
const zhWeekdays = "一二三四五六日"

// zh matches a Chinese date: "2011年2月17日", "2月17号", 昨天, 今天, 周三, 上周三, 下星期一.
// A month and day without a year are placed by inferYear.
func (s *scanner) zh(i int) (int, time.Time, bool, bool) {
	if j, t, rel, ok := s.zhDate(i); ok {
		return j, t, rel, true
	}
	for _, r := range zhRelative {
		if j, ok := s.seq(i, r.words); ok {
			return j, s.pub.AddDate(0, 0, r.offset), true, true
		}
	}
	return s.zhWeekday(i)
}

// zhDate matches [YYYY年]M月D日|号.
func (s *scanner) zhDate(i int) (int, time.Time, bool, bool) {
	y, k := 0, i
	if t := s.tok(k); t.num >= 1900 && len(t.s) == 4 && s.tok(k+1).s == "年" {
		y, k = t.num, k+2
	}
	m, d := s.tok(k), s.tok(k+2)
	if m.num < 1 || m.num > 12 || s.tok(k+1).s != "月" || d.num < 1 || d.num > 31 || !s.is(k+3, "日|号") {
		return i, time.Time{}, false, false
	}
	if y > 0 {
		t, ok := ymd(y, m.num, d.num)
		return k + 4, t, false, ok
	}
	t, ok := inferYear(s.pub, m.num, d.num)
	return k + 4, t, true, ok
}

// zhWeekday matches 周三, 星期三, 礼拜三, with 上 (last week's) or 下 (next week's) before.
// Alone it is the latest such day on or before the publication day.
func (s *scanner) zhWeekday(i int) (int, time.Time, bool, bool) {
	k, week := i, 0
	if s.is(k, "上") {
		k, week = k+1, -1
	} else if s.is(k, "下") {
		k, week = k+1, 1
	}
	switch {
	case s.is(k, "周"):
		k++
	case s.is(k, "星") && s.is(k+1, "期"), s.is(k, "礼") && s.is(k+1, "拜"):
		k += 2
	default:
		return i, time.Time{}, false, false
	}
	wd := -1
	for n, r := range []rune(zhWeekdays) {
		if s.tok(k).s == string(r) {
			wd = n
		}
	}
	if s.is(k, "天") {
		wd = 6
	}
	if wd < 0 {
		return i, time.Time{}, false, false
	}
	pubWd := (int(s.pub.Weekday()) + 6) % 7
	monday := s.pub.AddDate(0, 0, -pubWd)
	if week != 0 {
		return k + 1, monday.AddDate(0, 0, 7*week+wd), true, true
	}
	return k + 1, s.pub.AddDate(0, 0, -((pubWd - wd + 7) % 7)), true, true
}
