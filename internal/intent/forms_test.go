package intent

import (
	"reflect"
	"testing"
	"time"
)

// form is one expected reading: mode, bounds, Empty, Fresh, cues and text. Soft is expected
// exactly when a recency reading has bounds, is not Empty, and is not Fresh for a recent period.
type form struct {
	name     string
	q        string
	asOf     string // "" means anchor (2024-05-15)
	mode     Mode
	from, to string // "" means zero
	empty    bool
	fresh    bool
	cues     []string
	text     string
}

func checkForms(t *testing.T, tests []form) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asOf := anchor
			if tt.asOf != "" {
				asOf = day0(tt.asOf)
			}
			r := Parse(tt.q, asOf)
			long := tt.from != "" && day0(tt.to).Sub(day0(tt.from)) >= recentDays*24*time.Hour
			soft := tt.mode == Recency && !tt.empty && tt.from != "" && (!tt.fresh || long)
			got := []any{r.Mode, fmtDay(r.From), fmtDay(r.To), r.Empty, r.Fresh, r.Soft, r.Cues, r.Text}
			want := []any{tt.mode, tt.from, tt.to, tt.empty, tt.fresh, soft, tt.cues, tt.text}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse(%q)\n got %v\nwant %v\n%s", tt.q, got, want, r.Explain())
			}
		})
	}
}

func cues(c ...string) []string { return c }

func TestParseChinese(t *testing.T) {
	const R, W, E = Recency, Window, Evolution
	checkForms(t, []form{
		// Explicit dates.
		{"day", "2021年3月5日发生了什么", "", W, "2021-03-05", "2021-03-05", false, false, cues("2021年3月5日"), "发生了什么"},
		{"day with 号", "2021年3月5号的会议", "", W, "2021-03-05", "2021-03-05", false, false, cues("2021年3月5号"), "会议"},
		{"invalid day is not a day", "2023年2月30日的数据", "", W, "2023-01-01", "2023-12-31", false, false, cues("2023年"), "2月30日的数据"},
		{"month", "2021年3月的通胀", "", W, "2021-03-01", "2021-03-31", false, false, cues("2021年3月"), "通胀"},
		{"year", "2021年GDP增长", "", W, "2021-01-01", "2021-12-31", false, false, cues("2021年"), "GDP增长"},
		{"year with 在", "在2021年的出口", "", W, "2021-01-01", "2021-12-31", false, false, cues("在2021年"), "出口"},
		{"year after a word", "中国2021年经济", "", W, "2021-01-01", "2021-12-31", false, false, cues("2021年"), "中国 经济"},
		{"fiscal year 年度", "2021年度报告", "", W, "2021-01-01", "2021-12-31", false, false, cues("2021年度"), "报告"},
		{"whole year 全年", "2021年全年的销量", "", W, "2021-01-01", "2021-12-31", false, false, cues("2021年全年"), "销量"},
		{"Han digit year", "二〇二一年的GDP", "", W, "2021-01-01", "2021-12-31", false, false, cues("二〇二一年"), "GDP"},
		{"Han digit year with 零", "二零二一年三月", "", W, "2021-03-01", "2021-03-31", false, false, cues("二零二一年三月"), "二零二一年三月"},
		{"full-width digits", "２０２１年３月的CPI", "", W, "2021-03-01", "2021-03-31", false, false, cues("２０２１年３月"), "CPI"},
		{"pangu spacing", "2021 年 3 月 5 日 的新闻", "", W, "2021-03-05", "2021-03-05", false, false, cues("2021 年 3 月 5 日"), "新闻"},
		{"ideographic space", "2021年　3月的出口", "", W, "2021-03-01", "2021-03-31", false, false, cues("2021年　3月"), "出口"},
		{"two-digit year with month", "21年3月的房价", "", W, "2021-03-01", "2021-03-31", false, false, cues("21年3月"), "房价"},
		{"slashed date", "2021/3/5的新闻", "", W, "2021-03-05", "2021-03-05", false, false, cues("2021/3/5"), "新闻"},
		{"weekday after a day", "2021年3月5日（星期五）股市", "", W, "2021-03-05", "2021-03-05", false, false, cues("2021年3月5日"), "（星期五）股市"},

		// Ranges and open ranges.
		{"years 至", "2019年至2021年的油价", "", W, "2019-01-01", "2021-12-31", false, false, cues("2019年至2021年"), "油价"},
		{"years em dash", "2019—2021年油价", "", W, "2019-01-01", "2021-12-31", false, false, cues("2019—2021年"), "油价"},
		{"years hyphen", "2019-2021年油价", "", W, "2019-01-01", "2021-12-31", false, false, cues("2019-2021年"), "油价"},
		{"years 从…到", "从2019年到2021年油价", "", W, "2019-01-01", "2021-12-31", false, false, cues("从2019年到2021年"), "油价"},
		{"years 期间", "2019年至2021年期间的油价", "", W, "2019-01-01", "2021-12-31", false, false, cues("2019年至2021年期间"), "油价"},
		{"months take the year", "2024年3月至5月的销量", "", W, "2024-03-01", "2024-05-15", false, false, cues("2024年3月至5月"), "销量"},
		{"days take the month", "3月5日至10日的新闻", "", W, "2024-03-05", "2024-03-10", false, false, cues("3月5日至10日"), "新闻"},
		{"months across new year", "12月至2月的销量", "", W, "2023-12-01", "2024-02-29", false, false, cues("12月至2月"), "销量"},
		{"month span in a year", "2024年1-3月的出口", "", W, "2024-01-01", "2024-03-31", false, false, cues("2024年1-3月"), "出口"},
		{"to now", "2019年到现在的油价", "", W, "2019-01-01", "2024-05-15", false, false, cues("2019年到现在"), "油价"},
		{"至今", "2020年至今的房价", "", W, "2020-01-01", "2024-05-15", false, false, cues("2020年至今"), "房价"},
		{"以来", "2020年以来的房价", "", W, "2020-01-01", "2024-05-15", false, false, cues("2020年以来"), "房价"},
		{"自…起", "自2020年起的政策", "", W, "2020-01-01", "2024-05-15", false, false, cues("自2020年起"), "政策"},
		{"自 alone", "自2020年的政策", "", W, "2020-01-01", "2024-05-15", false, false, cues("自2020年"), "政策"},
		{"从 alone is the year", "从2021年的数据看", "", W, "2021-01-01", "2021-12-31", false, false, cues("从2021年"), "数据看"},
		{"之后 excludes the year", "2020年之后的政策", "", W, "2021-01-01", "2024-05-15", false, false, cues("2020年之后"), "政策"},
		{"以后", "2020年以后的政策", "", W, "2021-01-01", "2024-05-15", false, false, cues("2020年以后"), "政策"},
		{"以前 excludes the year", "2020年以前的政策", "", W, "", "2019-12-31", false, false, cues("2020年以前"), "政策"},
		{"之前", "2020年之前的政策", "", W, "", "2019-12-31", false, false, cues("2020年之前"), "政策"},
		{"截至 includes the period", "截至2023年底的债务", "", W, "", "2023-12-31", false, false, cues("截至2023年底"), "债务"},
		{"前后 is around", "2020年前后的政策", "", W, "2020-01-01", "2020-12-31", false, false, cues("2020年前后"), "政策"},
		{"前后对比 is a change cue", "2020年前后对比", "", E, "2020-01-01", "2020-12-31", false, false, cues("2020年", "前后对比"), "2020年前后对比"},
		{"future since", "2030年以来", "", R, "2030-01-01", "2024-05-15", true, false, cues("2030年以来"), "2030年以来"},

		// Quarters, halves, seasons, thirds.
		{"quarter 第", "2023年第三季度营收", "", W, "2023-07-01", "2023-09-30", false, false, cues("2023年第三季度"), "营收"},
		{"quarter", "2023年三季度营收", "", W, "2023-07-01", "2023-09-30", false, false, cues("2023年三季度"), "营收"},
		{"quarter digit", "2023年第3季度营收", "", W, "2023-07-01", "2023-09-30", false, false, cues("2023年第3季度"), "营收"},
		{"quarter Q", "2023年Q3营收", "", W, "2023-07-01", "2023-09-30", false, false, cues("2023年Q3"), "营收"},
		{"quarter glued Q", "2023Q3营收", "", W, "2023-07-01", "2023-09-30", false, false, cues("2023Q3"), "营收"},
		{"quarter end", "2023年三季度末的库存", "", W, "2023-09-01", "2023-09-30", false, false, cues("2023年三季度末"), "库存"},
		{"first three quarters", "2023年前三季度GDP", "", W, "2023-01-01", "2023-09-30", false, false, cues("2023年前三季度"), "GDP"},
		{"first five months", "今年前5个月的出口", "", W, "2024-01-01", "2024-05-15", false, false, cues("今年前5个月"), "出口"},
		{"yearless quarter", "三季度GDP", "", W, "2023-07-01", "2023-09-30", false, false, cues("三季度"), "GDP"},
		{"yearless first quarter", "第一季度GDP", "", W, "2024-01-01", "2024-03-31", false, false, cues("第一季度"), "GDP"},
		{"this year's half", "今年上半年出口", "", W, "2024-01-01", "2024-05-15", false, false, cues("今年上半年"), "出口"},
		{"last year's half", "去年下半年的出口", "", W, "2023-07-01", "2023-12-31", false, false, cues("去年下半年"), "出口"},
		{"last year's quarter", "去年四季度的利润", "", W, "2023-10-01", "2023-12-31", false, false, cues("去年四季度"), "利润"},
		{"yearless first half", "上半年出口", "", W, "2024-01-01", "2024-05-15", false, false, cues("上半年"), "出口"},
		{"yearless second half is A's year", "下半年经济展望", "", R, "2024-07-01", "2024-12-31", true, false, cues("下半年"), "下半年经济展望"},
		{"yearless second half in September", "下半年经济", "2024-09-10", W, "2024-07-01", "2024-09-10", false, false, cues("下半年"), "经济"},
		{"last year's spring", "去年春天的房价", "", W, "2023-03-01", "2023-05-31", false, false, cues("去年春天"), "房价"},
		{"summer", "2021年夏天的洪水", "", W, "2021-06-01", "2021-08-31", false, false, cues("2021年夏天"), "洪水"},
		{"winter begins in its year", "2021年冬季的供暖", "", W, "2021-12-01", "2022-02-28", false, false, cues("2021年冬季"), "供暖"},
		{"early year", "2021年初的疫情", "", W, "2021-01-01", "2021-04-30", false, false, cues("2021年初"), "疫情"},
		{"end of this year", "今年年底的目标", "", R, "2024-09-01", "2024-12-31", true, false, cues("今年年底"), "今年年底的目标"},
		{"end of last year", "去年年底的库存", "", W, "2023-09-01", "2023-12-31", false, false, cues("去年年底"), "库存"},
		{"first ten days", "3月上旬的价格", "", W, "2024-03-01", "2024-03-10", false, false, cues("3月上旬"), "价格"},
		{"middle ten days", "3月中旬的价格", "", W, "2024-03-11", "2024-03-20", false, false, cues("3月中旬"), "价格"},
		{"early month", "3月初的价格", "", W, "2024-03-01", "2024-03-10", false, false, cues("3月初"), "价格"},
		{"end of month", "2023年12月底的价格", "", W, "2023-12-21", "2023-12-31", false, false, cues("2023年12月底"), "价格"},
		{"start of this month", "本月初的价格", "", W, "2024-05-01", "2024-05-10", false, false, cues("本月初"), "价格"},
		{"end of last month", "上月底的价格", "", W, "2024-04-21", "2024-04-30", false, false, cues("上月底"), "价格"},
		{"since the start of the year", "年初以来的涨幅", "", W, "2024-01-01", "2024-05-15", false, false, cues("年初以来"), "涨幅"},
		{"since this year", "今年以来的涨幅", "", W, "2024-01-01", "2024-05-15", false, false, cues("今年以来"), "涨幅"},

		// Yearless months and days: the latest begun by A.
		{"month 份", "3月份的销量", "", W, "2024-03-01", "2024-03-31", false, false, cues("3月份"), "销量"},
		{"current month", "5月的销量", "", W, "2024-05-01", "2024-05-15", false, false, cues("5月"), "销量"},
		{"month not yet begun is last year's", "6月的销量", "", W, "2023-06-01", "2023-06-30", false, false, cues("6月"), "销量"},
		{"Han month 份", "三月份的销量", "", W, "2024-03-01", "2024-03-31", false, false, cues("三月份"), "销量"},
		{"Han month after 在", "在十二月", "", W, "2023-12-01", "2023-12-31", false, false, cues("在十二月"), "在十二月"},
		{"Han month with a day", "十月一日的假期", "", W, "2023-10-01", "2023-10-01", false, false, cues("十月一日"), "假期"},
		{"day", "3月5日的会议", "", W, "2024-03-05", "2024-03-05", false, false, cues("3月5日"), "会议"},
		{"leap day goes back to a leap year", "2月29日的新闻", "2023-05-10", W, "2020-02-29", "2020-02-29", false, false, cues("2月29日"), "新闻"},

		// Relative periods.
		{"this year", "今年经济", "", W, "2024-01-01", "2024-05-15", false, false, cues("今年"), "经济"},
		{"last year", "去年的通胀", "", W, "2023-01-01", "2023-12-31", false, false, cues("去年"), "通胀"},
		{"last year formal", "上年同期", "", W, "2023-01-01", "2023-12-31", false, false, cues("上年"), "同期"},
		{"year before last", "前年的通胀", "", W, "2022-01-01", "2022-12-31", false, false, cues("前年"), "通胀"},
		{"next year", "明年经济展望", "", R, "2025-01-01", "2025-12-31", true, false, cues("明年"), "明年经济展望"},
		{"this month", "本月新闻", "", W, "2024-05-01", "2024-05-15", false, false, cues("本月"), "新闻"},
		{"last month 上个月", "上个月CPI", "", W, "2024-04-01", "2024-04-30", false, false, cues("上个月"), "CPI"},
		{"last month 上月", "上月CPI", "", W, "2024-04-01", "2024-04-30", false, false, cues("上月"), "CPI"},
		{"last month in January", "上个月CPI", "2024-01-10", W, "2023-12-01", "2023-12-31", false, false, cues("上个月"), "CPI"},
		{"last quarter", "上季度营收", "", W, "2024-01-01", "2024-03-31", false, false, cues("上季度"), "营收"},
		{"this week", "本周新闻", "", R, "2024-05-13", "2024-05-15", false, true, cues("本周"), "新闻"},
		{"this week 这周", "这周发生了什么", "", R, "2024-05-13", "2024-05-15", false, true, cues("这周"), "发生了什么"},
		{"last week", "上周股市", "", R, "2024-05-06", "2024-05-12", false, true, cues("上周"), "股市"},
		{"last week 上个星期", "上个星期的股市", "", R, "2024-05-06", "2024-05-12", false, true, cues("上个星期"), "股市"},
		{"today", "今天的新闻", "", R, "2024-05-15", "2024-05-15", false, true, cues("今天"), "新闻"},
		{"yesterday", "昨天股市", "", R, "2024-05-14", "2024-05-14", false, true, cues("昨天"), "股市"},
		{"day before yesterday", "前天的新闻", "", R, "2024-05-13", "2024-05-13", false, true, cues("前天"), "新闻"},
		{"past three months", "近三个月的房价", "", W, "2024-02-16", "2024-05-15", false, false, cues("近三个月"), "房价"},
		{"past year", "过去一年的通胀", "", W, "2023-05-16", "2024-05-15", false, false, cues("过去一年"), "通胀"},
		{"past year 来", "近一年来的通胀", "", W, "2023-05-16", "2024-05-15", false, false, cues("近一年来"), "通胀"},
		{"past week", "最近一周的新闻", "", R, "2024-05-09", "2024-05-15", false, true, cues("最近一周"), "新闻"},
		{"past 7 days", "近7天的新闻", "", R, "2024-05-09", "2024-05-15", false, true, cues("近7天"), "新闻"},
		{"past 30 days", "近30天的新闻", "", W, "2024-04-16", "2024-05-15", false, false, cues("近30天"), "新闻"},
		{"past half year", "过去半年的房价", "", W, "2023-11-16", "2024-05-15", false, false, cues("过去半年"), "房价"},

		// N units ago: one unit centred on A − N units.
		{"a year ago", "一年前的利率", "", R, "2022-11-14", "2023-11-13", false, false, cues("一年前"), "一年前的利率"},
		{"a year ago 以前", "一年以前的利率", "", R, "2022-11-14", "2023-11-13", false, false, cues("一年以前"), "一年以前的利率"},
		{"three months ago", "三个月前的利率", "", R, "2024-01-31", "2024-03-01", false, false, cues("三个月前"), "三个月前的利率"},
		{"two weeks ago", "两周前的新闻", "", R, "2024-04-28", "2024-05-04", false, false, cues("两周前"), "两周前的新闻"},
		{"three days ago is fresh", "3天前的新闻", "", R, "2024-05-12", "2024-05-12", false, true, cues("3天前"), "新闻"},
		{"thirty years ago", "30年前的房价", "", R, "1993-11-14", "1994-11-13", false, false, cues("30年前"), "30年前的房价"},

		// Decades.
		{"decade two digits", "90年代的音乐", "", R, "1990-01-01", "1999-12-31", false, false, cues("90年代"), "90年代的音乐"},
		{"decade two digits this century", "20年代的音乐", "", R, "2020-01-01", "2024-05-15", false, false, cues("20年代"), "20年代的音乐"},
		{"decade four digits", "2010年代的音乐", "", R, "2010-01-01", "2019-12-31", false, false, cues("2010年代"), "2010年代的音乐"},
		{"decade with century", "20世纪90年代的音乐", "", R, "1990-01-01", "1999-12-31", false, false, cues("20世纪90年代"), "20世纪90年代的音乐"},
		{"decade last century end", "上世纪80年代末的改革", "", R, "1986-09-01", "1989-12-31", false, false, cues("上世纪80年代末"), "上世纪80年代末的改革"},

		// Recency and change cues.
		{"最近", "最近的新闻", "", R, "", "", false, true, cues("最近"), "新闻"},
		{"最新", "最新的利率", "", R, "", "", false, true, cues("最新"), "利率"},
		{"目前", "目前的汇率", "", R, "", "", false, true, cues("目前"), "汇率"},
		{"现在", "现在的利率是多少？", "", R, "", "", false, true, cues("现在"), "利率是多少？"},
		{"近期", "近期的政策", "", R, "", "", false, true, cues("近期"), "政策"},
		{"so far", "到目前为止的进展", "", R, "", "", false, true, cues("到目前为止"), "进展"},
		{"recent years", "近年来的房价", "", R, "", "", false, true, cues("近年来"), "房价"},
		{"如何变化", "利率如何变化", "", E, "", "", false, false, cues("如何变化"), "利率"},
		{"有何变化", "房价有何变化", "", E, "", "", false, false, cues("有何变化"), "房价"},
		{"变化了吗", "政策变化了吗", "", E, "", "", false, false, cues("变化了吗"), "政策"},
		{"演变", "人民币汇率的演变", "", E, "", "", false, false, cues("演变"), "人民币汇率"},
		{"前后对比", "疫情前后对比", "", E, "", "", false, false, cues("前后对比"), "疫情"},
		{"如何 … 变化 apart", "房价如何随政策变化", "", E, "", "", false, false, cues("如何", "变化"), "房价 随政策"},
		{"change since with punctuation", "2020年以来，房价如何变化？", "", E, "2020-01-01", "2024-05-15", false, false, cues("2020年以来", "如何变化"), "房价？"},
		{"change since 自", "美联储利率政策自2020年以来如何变化", "", E, "2020-01-01", "2024-05-15", false, false, cues("自2020年以来", "如何变化"), "美联储利率政策"},
		{"change over a rolling period", "利率在过去五年里如何变化", "", E, "2019-05-16", "2024-05-15", false, false, cues("在过去五年里", "如何变化"), "利率"},
		{"how to change is not a change cue", "利率如何改变", "", R, "", "", false, false, nil, "利率如何改变"},
		{"date beats recency", "最新的2021年数据", "", W, "2021-01-01", "2021-12-31", false, false, cues("2021年"), "数据"},

		// Numbers and words that are not dates.
		{"money", "2000元的手机", "", R, "", "", false, false, nil, "2000元的手机"},
		{"duration", "三个月", "", R, "", "", false, false, nil, "三个月"},
		{"bond tenor", "5年期国债收益率", "", R, "", "", false, false, nil, "5年期国债收益率"},
		{"bond tenor two digits", "10年期国债", "", R, "", "", false, false, nil, "10年期国债"},
		{"mobile number", "电话13812345678", "", R, "", "", false, false, nil, "电话13812345678"},
		{"phone number with years in it", "电话010-2021-3344", "", R, "", "", false, false, nil, "电话010-2021-3344"},
		{"中 of 中国 is not mid-year", "2021年中国GDP", "", W, "2021-01-01", "2021-12-31", false, false, cues("2021年"), "中国GDP"},
		{"初步 is not early", "2021年初步核算数据", "", W, "2021-01-01", "2021-12-31", false, false, cues("2021年"), "初步核算数据"},
		{"bare Han month is not a date", "三月的销量", "", R, "", "", false, false, nil, "三月的销量"},
		{"October Revolution", "十月革命", "", R, "", "", false, false, nil, "十月革命"},
		{"本 of 日本", "日本月度数据", "", R, "", "", false, false, nil, "日本月度数据"},
		{"去 of 过去", "失去年轻人", "", R, "", "", false, false, nil, "失去年轻人"},
		{"明 of 说明", "说明年报", "", R, "", "", false, false, nil, "说明年报"},
		{"现 of 实现", "实现在线支付", "", R, "", "", false, false, nil, "实现在线支付"},
		{"年 inside a word", "新年初一", "", R, "", "", false, false, nil, "新年初一"},
		{"来自 is not since", "来自2021年的调查", "", W, "2021-01-01", "2021-12-31", false, false, cues("2021年"), "来自 调查"},
		{"到期 is not a range", "2021年到期的债券", "", W, "2021-01-01", "2021-12-31", false, false, cues("2021年"), "到期的债券"},
		{"year out of range", "1800年的人口", "", R, "", "", false, false, nil, "1800年的人口"},
	})
}

func TestParseSeasonsThirdsDecadesAgo(t *testing.T) {
	const R, W, E = Recency, Window, Evolution
	checkForms(t, []form{
		// Russian.
		{"ru month year without год", "инфляция в марте 2024", "", W, "2024-03-01", "2024-03-31", false, false, cues("в марте 2024"), "инфляция"},
		{"ru spring year", "ставка весной 2023", "", W, "2023-03-01", "2023-05-31", false, false, cues("весной 2023"), "ставка"},
		{"ru spring year года", "ставка весной 2023 года", "", W, "2023-03-01", "2023-05-31", false, false, cues("весной 2023 года"), "ставка"},
		{"ru last spring", "ставка прошлой весной", "", W, "2023-03-01", "2023-05-31", false, false, cues("прошлой весной"), "ставка"},
		{"ru last summer", "ставка прошлым летом", "", W, "2023-06-01", "2023-08-31", false, false, cues("прошлым летом"), "ставка"},
		{"ru this summer not begun", "ставка этим летом", "", R, "2024-06-01", "2024-08-31", true, false, cues("этим летом"), "ставка этим летом"},
		{"ru summer", "ставка летом", "", W, "2023-06-01", "2023-08-31", false, false, cues("летом"), "ставка"},
		{"ru summer in autumn", "ставка летом", "2024-10-01", W, "2024-06-01", "2024-08-31", false, false, cues("летом"), "ставка"},
		{"ru winter spans new year", "ставка зимой", "", W, "2023-12-01", "2024-02-29", false, false, cues("зимой"), "ставка"},
		{"ru since spring", "ставка с весны 2023 года", "", W, "2023-03-01", "2024-05-15", false, false, cues("с весны 2023 года"), "ставка"},
		{"ru spring of last year", "ставка весной прошлого года", "", W, "2023-03-01", "2023-05-31", false, false, cues("весной прошлого года"), "ставка"},
		{"ru month of last year", "ставка в марте прошлого года", "", W, "2023-03-01", "2023-03-31", false, false, cues("в марте прошлого года"), "ставка"},
		{"ru month of this year", "ставка в марте этого года", "", W, "2024-03-01", "2024-03-31", false, false, cues("в марте этого года"), "ставка"},
		{"ru early year", "ставка в начале 2024 года", "", W, "2024-01-01", "2024-04-30", false, false, cues("в начале 2024 года"), "ставка"},
		{"ru mid year", "ставка в середине 2019 года", "", W, "2019-05-01", "2019-08-31", false, false, cues("в середине 2019 года"), "ставка"},
		{"ru end of last year", "ставка в конце прошлого года", "", W, "2023-09-01", "2023-12-31", false, false, cues("в конце прошлого года"), "ставка"},
		{"ru by the end of year", "ставка к концу 2023 года", "", W, "2023-09-01", "2023-12-31", false, false, cues("к концу 2023 года"), "ставка"},
		{"ru end of yearless month", "ставка в конце марта", "", W, "2024-03-21", "2024-03-31", false, false, cues("в конце марта"), "ставка"},
		{"ru since start of the year", "инфляция с начала года", "", W, "2024-01-01", "2024-05-15", false, false, cues("с начала года"), "инфляция"},
		{"ru end of the year is ahead", "прогноз ставки на конец года", "", R, "2024-09-01", "2024-12-31", true, false, cues("на конец года"), "прогноз ставки на конец года"},
		{"ru a year ago", "ставка год назад", "", R, "2022-11-14", "2023-11-13", false, false, cues("год назад"), "ставка год назад"},
		{"ru two years ago", "ставка два года назад", "", R, "2021-11-14", "2022-11-13", false, false, cues("два года назад"), "ставка два года назад"},
		{"ru a month ago тому", "ставка месяц тому назад", "", R, "2024-03-31", "2024-04-30", false, false, cues("месяц тому назад"), "ставка месяц тому назад"},
		{"ru a week ago is fresh", "ставка неделю назад", "", R, "2024-05-05", "2024-05-11", false, true, cues("неделю назад"), "ставка"},
		{"ru 3 days ago", "ставка 3 дня назад", "", R, "2024-05-12", "2024-05-12", false, true, cues("3 дня назад"), "ставка"},
		{"ru 5 years ago", "ставка 5 лет назад", "", R, "2018-11-14", "2019-11-13", false, false, cues("5 лет назад"), "ставка 5 лет назад"},
		{"ru decade two digits", "рынок в 90-х годах", "", R, "1990-01-01", "1999-12-31", false, false, cues("в 90-х годах"), "рынок в 90-х годах"},
		{"ru decade", "рынок в 2010-х годах", "", R, "2010-01-01", "2019-12-31", false, false, cues("в 2010-х годах"), "рынок в 2010-х годах"},
		{"ru decade е годы", "рынок в 2000-е годы", "", R, "2000-01-01", "2009-12-31", false, false, cues("в 2000-е годы"), "рынок в 2000-е годы"},
		{"ru rubles", "скидка 500 рублей", "", R, "", "", false, false, nil, "скидка 500 рублей"},

		// English seasons.
		{"last spring", "rates last spring", "", W, "2023-03-01", "2023-05-31", false, false, cues("last spring"), "rates"},
		{"last spring in autumn", "rates last spring", "2024-10-10", W, "2024-03-01", "2024-05-31", false, false, cues("last spring"), "rates"},
		{"this summer ahead", "rates this summer", "", R, "2024-06-01", "2024-08-31", true, false, cues("this summer"), "rates this summer"},
		{"this summer in autumn", "rates this summer", "2024-10-10", W, "2024-06-01", "2024-08-31", false, false, cues("this summer"), "rates"},
		{"this winter in January", "rates this winter", "2024-01-10", W, "2023-12-01", "2024-01-10", false, false, cues("this winter"), "rates"},
		{"last winter in January", "rates last winter", "2024-01-10", W, "2022-12-01", "2023-02-28", false, false, cues("last winter"), "rates"},
		{"last fall", "rates last fall", "", W, "2023-09-01", "2023-11-30", false, false, cues("last fall"), "rates"},
		{"in spring year", "rates in spring 2021", "", W, "2021-03-01", "2021-05-31", false, false, cues("in spring 2021"), "rates"},
		{"the summer of", "floods in the summer of 2020", "", W, "2020-06-01", "2020-08-31", false, false, cues("in the summer of 2020"), "floods"},
		{"the fall of year", "banks in the fall of 2008", "", W, "2008-09-01", "2008-11-30", false, false, cues("in the fall of 2008"), "banks"},
		{"in the winter", "rates in the winter", "", W, "2023-12-01", "2024-02-29", false, false, cues("in the winter"), "rates"},
		{"summer of last year", "rates in the summer of last year", "", W, "2023-06-01", "2023-08-31", false, false, cues("in the summer of last year"), "rates"},
		{"in the fall is not a date", "rates in the fall", "", R, "", "", false, false, nil, "rates in the fall"},
		{"fall the verb", "stocks fall 2000 points", "", R, "", "", false, false, nil, "stocks fall 2000 points"},
		{"fall the verb this year", "did prices fall this year", "", W, "2024-01-01", "2024-05-15", false, false, cues("this year"), "did prices fall"},
		{"fall the noun", "the fall of the ruble in 2014", "", W, "2014-01-01", "2014-12-31", false, false, cues("in 2014"), "the fall of the ruble"},

		// English thirds.
		{"early year", "rates early 2020", "", W, "2020-01-01", "2020-04-30", false, false, cues("early 2020"), "rates"},
		{"in early year", "rates in early 2020", "", W, "2020-01-01", "2020-04-30", false, false, cues("in early 2020"), "rates"},
		{"mid-year", "rates mid-2019", "", W, "2019-05-01", "2019-08-31", false, false, cues("mid-2019"), "rates"},
		{"late year", "rates late 2022", "", W, "2022-09-01", "2022-12-31", false, false, cues("late 2022"), "rates"},
		{"end of year", "rates at the end of 2023", "", W, "2023-09-01", "2023-12-31", false, false, cues("at the end of 2023"), "rates"},
		{"end of last year", "rates by the end of last year", "", W, "2023-09-01", "2023-12-31", false, false, cues("by the end of last year"), "rates"},
		{"late last year", "layoffs late last year", "", W, "2023-09-01", "2023-12-31", false, false, cues("late last year"), "layoffs"},
		{"early this year", "layoffs early this year", "", W, "2024-01-01", "2024-04-30", false, false, cues("early this year"), "layoffs"},
		{"late quarter", "sales late Q3 2023", "", W, "2023-09-01", "2023-09-30", false, false, cues("late Q3 2023"), "sales"},
		{"in early month", "rates in early March", "", W, "2024-03-01", "2024-03-10", false, false, cues("in early March"), "rates"},
		{"mid-month", "rates in mid-March 2023", "", W, "2023-03-11", "2023-03-20", false, false, cues("in mid-March 2023"), "rates"},
		{"since the start of the year", "returns since the start of the year", "", W, "2024-01-01", "2024-05-15", false, false, cues("since the start of the year"), "returns"},
		{"early month needs a preposition", "rates early March", "", R, "", "", false, false, nil, "rates early March"},
		{"late payments", "late payments in 2020", "", W, "2020-01-01", "2020-12-31", false, false, cues("in 2020"), "late payments"},
		{"the end of the war", "the end of the war", "", R, "", "", false, false, nil, "the end of the war"},
		{"late may the verb", "rates late may change", "", R, "", "", false, false, nil, "rates late may change"},
		{"start is not early", "start 2024 strong", "", R, "", "", false, false, nil, "start 2024 strong"},

		// Decades.
		{"decade", "music in the 2010s", "", R, "2010-01-01", "2019-12-31", false, false, cues("in the 2010s"), "music in the 2010s"},
		{"decade 1990s", "music in the 1990s", "", R, "1990-01-01", "1999-12-31", false, false, cues("in the 1990s"), "music in the 1990s"},
		{"year 1990 is not the decade", "music in 1990", "", W, "1990-01-01", "1990-12-31", false, false, cues("in 1990"), "music"},
		{"decade apostrophe", "1990's music", "", R, "1990-01-01", "1999-12-31", false, false, cues("1990's"), "1990's music"},
		{"late decade", "music of the late 1990s", "", R, "1996-09-01", "1999-12-31", false, false, cues("of the late 1990s"), "music of the late 1990s"},
		{"decade not ten", "music in the 1995s", "", R, "", "", false, false, nil, "music in the 1995s"},
		{"two digits are not a decade in English", "temperatures in the 90s", "", R, "", "", false, false, nil, "temperatures in the 90s"},

		// Ago.
		{"a year ago", "rates a year ago", "", R, "2022-11-14", "2023-11-13", false, false, cues("a year ago"), "rates a year ago"},
		{"two years ago", "rates two years ago", "", R, "2021-11-14", "2022-11-13", false, false, cues("two years ago"), "rates two years ago"},
		{"a month ago from March 31", "rates a month ago", "2024-03-31", R, "2024-02-14", "2024-03-15", false, false, cues("a month ago"), "rates a month ago"},
		{"3 weeks ago", "rates 3 weeks ago", "", R, "2024-04-21", "2024-04-27", false, false, cues("3 weeks ago"), "rates 3 weeks ago"},
		{"a week ago is fresh", "rates a week ago", "", R, "2024-05-05", "2024-05-11", false, true, cues("a week ago"), "rates"},
		{"yesterday is fresh", "rates 1 day ago", "", R, "2024-05-14", "2024-05-14", false, true, cues("1 day ago"), "rates"},
		{"years ago without a number", "years ago the rate was low", "", R, "", "", false, false, nil, "years ago the rate was low"},
		{"a few years ago", "a few years ago", "", R, "", "", false, false, nil, "a few years ago"},

		// Dates named in passing: they decide only when nothing else is dated, and a range
		// built on them bounds the search.
		{"ago in a comparison", "prices higher than a year ago", "", R, "2022-11-14", "2023-11-13", false, false, cues("a year ago"), "prices higher than a year ago"},
		{"ago with a recency cue stays fresh", "rents recently rose most in which city, compared to a year ago", "", R, "2022-11-14", "2023-11-13", false, true, cues("recently", "a year ago"), "rents recently rose most in which city, compared to a year ago"},
		{"decade describing a thing", "her role in the 1960s TV series", "", R, "1960-01-01", "1969-12-31", false, false, cues("in the 1960s"), "her role in the 1960s TV series"},
		{"ago with this week", "after stepping down two years ago, who returned as CEO this week?", "", R, "2024-05-13", "2024-05-15", false, true, cues("this week"), "after stepping down, who returned as CEO?"},
		{"decade with this week", "which 1990s movie premiered as a series this week", "", R, "2024-05-13", "2024-05-15", false, true, cues("this week"), "which movie premiered as a series"},
		{"ago with a year", "rates in 2015 compared to a year ago", "", W, "2015-01-01", "2015-12-31", false, false, cues("in 2015"), "rates compared to"},
		{"ago with a change cue", "how have rents changed compared to a year ago", "", E, "2022-11-14", "2024-05-15", false, false, cues("how have", "changed", "a year ago"), "rents compared to"},
		{"since ago bounds", "rents since two years ago", "", W, "2021-11-14", "2024-05-15", false, false, cues("since two years ago"), "rents"},
		{"decade range bounds", "music from the 1970s to the 1990s", "", W, "1970-01-01", "1999-12-31", false, false, cues("from the 1970s to the 1990s"), "music"},
		{"zh ago to now bounds", "房价三年前至今", "", W, "2020-11-14", "2024-05-15", false, false, cues("三年前至今"), "房价"},
		{"future decade", "cars in the 2030s", "", R, "2030-01-01", "2039-12-31", true, false, cues("in the 2030s"), "cars in the 2030s"},

		// English seasons that are nouns' modifiers or follow "of" or "for".
		{"end of summer", "the unofficial end of summer", "", R, "", "", false, false, nil, "the unofficial end of summer"},
		{"start of winter", "the astronomical start of winter in the north", "", R, "", "", false, false, nil, "the astronomical start of winter in the north"},
		{"plans for winter", "plans for winter", "", R, "", "", false, false, nil, "plans for winter"},
		{"spring break", "shootings during spring break", "", R, "", "", false, false, nil, "shootings during spring break"},
		{"winter surge", "infections after the winter surge", "", R, "", "", false, false, nil, "infections after the winter surge"},
		{"summer night sky", "fireworks in the summer night sky", "", R, "", "", false, false, nil, "fireworks in the summer night sky"},
		{"season before a comma", "in the summer, prices rose", "", W, "2023-06-01", "2023-08-31", false, false, cues("in the summer"), "prices rose"},
		{"season before when", "prices rose in the summer when rates fell", "", W, "2023-06-01", "2023-08-31", false, false, cues("in the summer"), "prices rose when rates fell"},
		{"since spring", "prices have risen since spring", "", W, "2024-03-01", "2024-05-15", false, false, cues("since spring"), "prices have risen"},

		// Year to date, glued quarters, relative years.
		{"YTD", "YTD returns", "", W, "2024-01-01", "2024-05-15", false, false, cues("YTD"), "returns"},
		{"year-to-date", "year-to-date returns", "", W, "2024-01-01", "2024-05-15", false, false, cues("year-to-date"), "returns"},
		{"year to is not YTD", "year to 2020", "", R, "", "", false, false, nil, "year to 2020"},
		{"glued quarter", "2023Q3 revenue", "", W, "2023-07-01", "2023-09-30", false, false, cues("2023Q3"), "revenue"},
		{"glued half", "2024H1 revenue", "", W, "2024-01-01", "2024-05-15", false, false, cues("2024H1"), "revenue"},
		{"month this year", "rates in March this year", "", W, "2024-03-01", "2024-03-31", false, false, cues("in March this year"), "rates"},
		{"month of last year", "rates in March of last year", "", W, "2023-03-01", "2023-03-31", false, false, cues("in March of last year"), "rates"},
		{"slashed date", "news on 2021/3/5", "", W, "2021-03-05", "2021-03-05", false, false, cues("on 2021/3/5"), "news"},
		{"dotted ISO date", "news 2021.03.05", "", W, "2021-03-05", "2021-03-05", false, false, cues("2021.03.05"), "news"},
		{"mixed separators are not a date", "version 2021.3/5", "", R, "", "", false, false, nil, "version 2021.3/5"},

		// Numbers that are not years.
		{"rubles", "500 rubles", "", R, "", "", false, false, nil, "500 rubles"},
		{"phone number", "call 8-800-2020-2021", "", R, "", "", false, false, nil, "call 8-800-2020-2021"},
		{"year range is two numbers", "oil 2019-2021", "", W, "2019-01-01", "2021-12-31", false, false, cues("2019-2021"), "oil"},
		{"English with a Chinese particle", "Q3 2023的营收", "", W, "2023-07-01", "2023-09-30", false, false, cues("Q3 2023"), "营收"},
	})
}
