package textnorm

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"one without a stop", "Rates held", []string{"Rates held"}},
		{"two", "Rates held. Markets rose.", []string{"Rates held.", "Markets rose."}},
		{"bang and question", "Really? Yes! It did.", []string{"Really?", "Yes!", "It did."}},
		{"runs of terminators", "What?! No... Fine.", []string{"What?!", "No...", "Fine."}},
		{"ellipsis rune", "Ждём… Потом решим.", []string{"Ждём…", "Потом решим."}},
		{"lower case after stop: no split", "It rose 5 p.c. on the day. Then fell.",
			[]string{"It rose 5 p.c. on the day.", "Then fell."}},
		{"digit starts a sentence", "It closed at a high. 2024 was a record.",
			[]string{"It closed at a high.", "2024 was a record."}},
		{"decimal", "Inflation was 3.5% in May. It fell to 3.2%.",
			[]string{"Inflation was 3.5% in May.", "It fell to 3.2%."}},
		{"U.S.", "The U.S. Treasury sold bonds. Yields rose.",
			[]string{"The U.S. Treasury sold bonds.", "Yields rose."}},
		{"titles", "Mr. Powell spoke. Dr. Who listened. Prof. X left.",
			[]string{"Mr. Powell spoke.", "Dr. Who listened.", "Prof. X left."}},
		{"initials", "J. Smith and A. B. Jones wrote it. Nobody read it.",
			[]string{"J. Smith and A. B. Jones wrote it.", "Nobody read it."}},
		{"month abbreviation", "Due Jan. 5 at noon. Or later.", []string{"Due Jan. 5 at noon.", "Or later."}},
		{"No. before a number", "Ranked No. 1 again. He said no. Then he left.",
			[]string{"Ranked No. 1 again.", "He said no.", "Then he left."}},
		{"e.g.", "Some banks, e.g. Citi, cut rates. Others did not.",
			[]string{"Some banks, e.g. Citi, cut rates.", "Others did not."}},
		{"т.е.", "Ставка 16%, т.е. Банк России её сохранил. Рынок ждал этого.",
			[]string{"Ставка 16%, т.е. Банк России её сохранил.", "Рынок ждал этого."}},
		{"г. before a name", "Встреча прошла в г. Москве. Итоги позже.",
			[]string{"Встреча прошла в г. Москве.", "Итоги позже."}},
		{"г. after a year ends a sentence", "Так было в 2023 г. Цены выросли.",
			[]string{"Так было в 2023 г.", "Цены выросли."}},
		{"Russian abbreviations", "Адрес: ул. Ленина, д. 5. Звоните проф. Иванову.",
			[]string{"Адрес: ул. Ленина, д. 5.", "Звоните проф. Иванову."}},
		{"closing quote", `He said "rates will rise." Then he left.`,
			[]string{`He said "rates will rise."`, "Then he left."}},
		{"opening quote", `Rates rose. "We expect more," he said.`,
			[]string{"Rates rose.", `"We expect more," he said.`}},
		{"guillemets", "ЦБ повысил ставку. «Это временно», — заявила Набиуллина.",
			[]string{"ЦБ повысил ставку.", "«Это временно», — заявила Набиуллина."}},
		{"closing guillemet", "Он сказал: «Ставка вырастет.» Рынок упал.",
			[]string{"Он сказал: «Ставка вырастет.»", "Рынок упал."}},
		{"quote after stop, lower case", `"Yes." he said.`, []string{`"Yes." he said.`}},
		{"newlines are boundaries", "Headline without a stop\nBody line one. Body two\n\nLast",
			[]string{"Headline without a stop", "Body line one.", "Body two", "Last"}},
		{"CRLF and spaces", "  First  line  \r\n\tSecond line ", []string{"First line", "Second line"}},
		{"list number stays with its item", "1. Rates rose.\n2. Prices fell.",
			[]string{"1. Rates rose.", "2. Prices fell."}},
		{"emoji starts a sentence", "Ставка 16%. 📈 Рубль укрепился.",
			[]string{"Ставка 16%.", "📈 Рубль укрепился."}},
		{"URL dots", "See example.com/a.b for more. Done.", []string{"See example.com/a.b for more.", "Done."}},
		{"only punctuation", "... !!! ???", []string{"... !!! ???"}},
		// Telegram items whose line breaks were lost (shapes from tg-finance-ru).
		{"emoji bullets of a merged post",
			"🌙 Важное за ночь ⚓ Кабмин поручил ведомствам — ТАСС 🇮🇱 Министр обороны Израиля утвердил операцию 🇦 Военные достижения России — РИА Новости",
			[]string{"🌙 Важное за ночь", "⚓ Кабмин поручил ведомствам — ТАСС", "🇮🇱 Министр обороны Израиля утвердил операцию", "🇦 Военные достижения России — РИА Новости"}},
		{"emoji glued to its item", "ROSN 574.85₽ 👉Полная новость", []string{"ROSN 574.85₽", "👉Полная новость"}},
		{"emoji before lower case stays", "Курс вырос 📈 на 2%", []string{"Курс вырос 📈 на 2%"}},
		{"emoji at the end stays", "Ставка 16% 📈", []string{"Ставка 16% 📈"}},
		{"degree sign is no bullet", "Жара до 35 ° Цельсия", []string{"Жара до 35 ° Цельсия"}},
		{"attribution then the same name", "Это важное достижение — Путин Путин назвал снижение инфляции важным",
			[]string{"Это важное достижение — Путин", "Путин назвал снижение инфляции важным"}},
		{"attribution of several words", "разрыв выпуска может закрыться — зампред ЦБ ЦБ РФ прогнозирует",
			[]string{"разрыв выпуска может закрыться — зампред ЦБ", "ЦБ РФ прогнозирует"}},
		{"doubled acronym", "Костин призвал «убить» систему SWIFT SWIFT объявил о расчетах",
			[]string{"Костин призвал «убить» систему SWIFT", "SWIFT объявил о расчетах"}},
		{"doubled name stays", "Французский ресторан Lou Lou теперь в Москве", []string{"Французский ресторан Lou Lou теперь в Москве"}},
		{"doubled lower-case word stays", "Ставки в в России вырастут", []string{"Ставки в в России вырастут"}},
		{"English attribution join", "Oil rose 3% — Reuters Reuters reported later that OPEC cut output",
			[]string{"Oil rose 3% — Reuters", "Reuters reported later that OPEC cut output"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sentences(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Sentences(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

// FuzzSentences checks that Sentences loses no word and returns trimmed one-line pieces.
func FuzzSentences(f *testing.F) {
	for _, s := range []string{
		"Mr. J. Smith said 3.5%. «Да.» Ну… Ок! Next?", "т.е. в 2024 г. Цены\nвыросли. 1. Пункт", "...", "",
		"A. B. C. D.", "\"Q.\" 'R.' (S.) [T.] ", "No. 5. no. 6", "г. гг. 2020 гг. Итог",
		"🌙 Важное ⚓ Кабмин — ТАСС 🇮🇱 Министр", "достижение — Путин Путин назвал", "SWIFT SWIFT ЦБ ЦБ", "👉Полная 🔵",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			t.Skip()
		}
		got := Sentences(text)
		for _, s := range got {
			if s == "" || s != strings.TrimSpace(s) || strings.ContainsRune(s, '\n') {
				t.Fatalf("bad piece %q in %q", s, got)
			}
		}
		if want, have := Tokens(Clean(text)), Tokens(strings.Join(got, "\n")); !slices.Equal(want, have) {
			t.Fatalf("tokens changed: %q → %q", want, have)
		}
	})
}
