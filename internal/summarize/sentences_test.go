package summarize

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/asofrag/asof/internal/textnorm"
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
		if want, have := textnorm.Tokens(textnorm.Clean(text)), textnorm.Tokens(strings.Join(got, "\n")); !slices.Equal(want, have) {
			t.Fatalf("tokens changed: %q → %q", want, have)
		}
	})
}

func TestKey(t *testing.T) {
	tests := []struct {
		name  string
		words []string // all must share one key
	}{
		{"rate", []string{"rate", "rates", "rated", "rating", "Rates"}},
		{"raise", []string{"raise", "raised", "raises", "raising"}},
		{"inflation", []string{"inflation", "inflationary"}},
		{"policy", []string{"policy", "policies"}},
		{"possessive", []string{"bank", "banks", "bank's"}},
		{"ставка", []string{"ставка", "ставку", "ставки", "ставкой", "ставке"}},
		{"ключевая", []string{"ключевая", "ключевую", "ключевой"}},
		{"банк", []string{"банк", "банка", "банке", "банком"}},
		{"цена", []string{"цена", "цены", "цен", "цене"}},
		{"рубль", []string{"рубль", "рубля", "рублей"}},
		{"ё", []string{"ещё", "еще"}},
		{"numbers whole", []string{"2024"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := textnorm.TermKey(textnorm.Tokens(tt.words[0])[0])
			for _, w := range tt.words[1:] {
				if got := textnorm.TermKey(textnorm.Tokens(w)[0]); got != want {
					t.Errorf("textnorm.TermKey(%q) = %q, textnorm.TermKey(%q) = %q", w, got, tt.words[0], want)
				}
			}
		})
	}
	distinct := [][2]string{{"interest", "international"}, {"2024", "2023"}, {"ставка", "стабильный"}, {"bus", "bu"}}
	for _, d := range distinct {
		if textnorm.TermKey(d[0]) == textnorm.TermKey(d[1]) {
			t.Errorf("textnorm.TermKey(%q) = textnorm.TermKey(%q) = %q, want different", d[0], d[1], textnorm.TermKey(d[0]))
		}
	}
}
