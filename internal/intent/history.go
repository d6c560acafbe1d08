package intent

// History cues: words that ask about the past (Reading.Past). English and Russian forms are
// sequences of word steps (seq); Chinese ones are character runs (zh), longest first.
var historyPhrases = [][]string{
	{"when", "did|was|were|had"},
	{"?in", "what|which", "year|month|day|date", "did|was|were|had"},
	{"which|what", "?event|one", "came|happened|occurred|was", "first|earlier|before"},
	{"how", "long", "ago"},
	{"how", "many", "years|months|weeks|days", "ago"},
	{"когда", "был|была|было|были|произошл*|случил*|начал*|появил*|принял*|принят*|ввел*|введен*|стал*|прошл*|впервые"},
	{"в", "каком|какой", "году|месяце|день|числе"},
	{"что|какое|какой|какая|кто", "?событие", "произошло|случилось|было|был|была|состоялось", "раньше|прежде|первым|первой|первее"},
	{"как", "давно"},
	{"сколько", "лет|месяцев|недель|дней", "назад"},
	{"впервые"},
	{"в", "первый", "раз"},
}

// zhHistoryWords are Chinese history cues, longest first.
const zhHistoryWords = "是否在同一个月|是否在同一天|是否在同一年|是否在同一周|在同一个月|在同一天|在同一年|在同一周|" +
	"同一个月|同一天|同一年|同一周|同一月|哪个事件先发生|哪个事件更早|哪个先发生|哪一个先发生|哪个更早|哪个先|谁先|先后顺序|" +
	"先发生|更早发生|较早发生|最早发生|发生得最早|发生的最早|发生得更早|发生的更早|时间最早|最早|更早|较早|" +
	"之前还是之后|前还是后|什么时候|什么时间|什么日期|哪个日期|哪一天|哪一年|哪个月|哪一月|几月几日|几月几号|哪天|哪年|何时|" +
	"多久以前|多久之前|多少年前|多长时间|多久|首次|第一次|当天"

// history matches a history cue at i.
func (p *parser) history(i int) (int, bool) {
	if isHan(p.tok(i).s) {
		if !p.zhStart(i) {
			return i, false
		}
		return p.zh(i, zhHistoryWords)
	}
	return p.phrase(i, historyPhrases)
}
