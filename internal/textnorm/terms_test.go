package textnorm

import (
	"slices"
	"testing"
)

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"The latest key rates", []string{"key", "rat"}},                    // stop-words and time cues go; plural meets singular
		{"rate-setting meeting", []string{"meet", "rat", "rate-s", "sett"}}, // a hyphenated word counts as its parts too
		{"Ключевая ставка и ставки сейчас", []string{"ключ", "ставк"}},      // Russian inflections meet
		{"COVID-19 in 2024", []string{"19", "2024", "covid", "covid-19"}},   // numbers stay whole
		{"", nil},
	} {
		if got := Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	a, b := Terms("key rate raised"), Terms("the key rate was raised again")
	if Overlap(a, b) != 3 || Jaccard(a, b) != 0.75 {
		t.Errorf("overlap %d jaccard %v", Overlap(a, b), Jaccard(a, b))
	}
	if Jaccard(nil, nil) != 1 || !IsStopWord("сейчас") || IsStopWord("rate") {
		t.Error("edge cases")
	}
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
			want := TermKey(Tokens(tt.words[0])[0])
			for _, w := range tt.words[1:] {
				if got := TermKey(Tokens(w)[0]); got != want {
					t.Errorf("TermKey(%q) = %q, TermKey(%q) = %q", w, got, tt.words[0], want)
				}
			}
		})
	}
	distinct := [][2]string{{"interest", "international"}, {"2024", "2023"}, {"ставка", "стабильный"}, {"bus", "bu"}}
	for _, d := range distinct {
		if TermKey(d[0]) == TermKey(d[1]) {
			t.Errorf("TermKey(%q) = TermKey(%q) = %q, want different", d[0], d[1], TermKey(d[0]))
		}
	}
}

func TestIsCopy(t *testing.T) {
	const post = "Газпром нефть передала Газпрому 5,15% акций сербской нефтяной компании NIS"
	tests := []struct {
		name        string
		query, text string
		want        bool
	}{
		{"the post itself", post, post, true},
		{"the post with a channel footer", post, post + "\nПодписаться на канал", true},
		{"a follow-up on the same story", post, "Вучич: вопрос санкций против NIS решат Россия и Сербия", false},
		{"the post inside a long digest", post, post + ". Нефть Brent подорожала на 2%. Рубль укрепился к доллару. Минфин разместил ОФЗ на 50 млрд рублей.", false},
		{"a short query is never a copy, even of a title equal to it", "ключевая ставка ЦБ", "Ключевая ставка ЦБ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsCopy(Terms(tt.query), Terms(tt.text)); got != tt.want {
				t.Errorf("IsCopy = %v, want %v (Jaccard %.2f)", got, tt.want, Jaccard(Terms(tt.query), Terms(tt.text)))
			}
		})
	}
}
