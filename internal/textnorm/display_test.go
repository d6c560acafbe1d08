package textnorm

import (
	"reflect"
	"testing"
	"unicode/utf8"
)

func TestDisplayTitle(t *testing.T) {
	tests := []struct {
		name, title, text string
		max               int
		want              string
	}{
		{"title wins", "Bank raises rate", "The central bank raised its key rate.", 0, "Bank raises rate"},
		{"title on one line", "Bank\n raises  rate", "x", 0, "Bank raises rate"},
		{"no title: first sentence", "", "ЦБ повысил ставку до 16%. Рынок ждал этого.", 0, "ЦБ повысил ставку до 16%."},
		{"title without a word", "🔥", "ЦБ повысил ставку.", 0, "ЦБ повысил ставку."},
		{"long sentence cut at a word", "",
			"Минфин предлагает продлить еще на год срок действия указа об обязательной репатриации и продаже части валютной выручки российских экспортеров", 60,
			"Минфин предлагает продлить еще на год срок действия указа…"},
		{"cut drops a trailing comma", "", "Ограничения на движение капитала уместны, сообщили в Центробанке", 40, "Ограничения на движение капитала…"},
		{"emoji bullet is the first item", "", "🌙 Важное за ночь ⚓ Кабмин поручил ведомствам", 0, "🌙 Важное за ночь"},
		{"skips a wordless first line", "", "🔥🔥\nРубль укрепился", 0, "Рубль укрепился"},
		{"one long word", "", "Ааааааааааааааааааааааааааааааааааааааааааааааа", 20, "Ааааааааааааааааааа…"},
		{"nothing", "", "👍 !!!", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DisplayTitle(tt.title, tt.text, tt.max)
			if got != tt.want {
				t.Fatalf("DisplayTitle(%q, %q) = %q, want %q", tt.title, tt.text, got, tt.want)
			}
			if limit := tt.max; limit > 0 && tt.title == "" && utf8.RuneCountInString(got) > limit {
				t.Fatalf("%q has %d runes, more than %d", got, utf8.RuneCountInString(got), limit)
			}
		})
	}
}

func TestChannels(t *testing.T) {
	tests := []struct {
		name    string
		sources []string
		want    []string
	}{
		{"case", []string{"Риа Новости", "РИА Новости"}, []string{"Риа Новости"}},
		{"lists split", []string{"Раньше всех. Ну почти; Риа Новости", "Риа Новости"}, []string{"Раньше всех. Ну почти", "Риа Новости"}},
		{"spaces and ё", []string{"Банки,  деньги", "банки, деньги", "Всё о рынке", "Все о рынке"}, []string{"Банки, деньги", "Всё о рынке"}},
		{"blanks dropped", []string{"", " ; ", "cnn.com"}, []string{"cnn.com"}},
		{"order kept", []string{"b", "a", "B"}, []string{"b", "a"}},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Channels(tt.sources...); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Channels(%q) = %q, want %q", tt.sources, got, tt.want)
			}
		})
	}
}

func TestRepeatsTitle(t *testing.T) {
	tests := []struct {
		name, title, sentence string
		want                  bool
	}{
		{"same", "ЦБ повысил ставку до 16%", "ЦБ повысил ставку до 16%.", true},
		{"prefixed title", "СРОЧНО: ЦБ повысил ставку до 16%", "⚡ ЦБ повысил ставку до 16% годовых.", true},
		{"english update", "Bank raises key rate (update)", "The bank raised its key rate to 16% on Friday.", true},
		{"display title", "Минфин предлагает продлить еще на год срок…", "Минфин предлагает продлить еще на год срок действия указа.", true},
		{"different", "Bank raises key rate", "Markets fell on Friday.", false},
		{"empty title", "", "Markets fell.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RepeatsTitle(tt.title, tt.sentence); got != tt.want {
				t.Fatalf("RepeatsTitle(%q, %q) = %v, want %v", tt.title, tt.sentence, got, tt.want)
			}
		})
	}
}

func TestAfterTitle(t *testing.T) {
	tests := []struct{ name, title, text, want string }{
		{"repeated lead dropped", "ЦБ повысил ставку до 16%", "ЦБ повысил ставку до 16%. Рынок ждал этого.", "Рынок ждал этого."},
		{"display title of a title-less post", DisplayTitle("", "Минфин предлагает продлить указ о репатриации валютной выручки экспортеров на год. Нормы уточнят.", 40),
			"Минфин предлагает продлить указ о репатриации валютной выручки экспортеров на год. Нормы уточнят.", "Нормы уточнят."},
		{"other lead kept", "Bank raises rate", "Markets fell. Bonds rose.", "Markets fell. Bonds rose."},
		{"only the lead", "Rates rose", "Rates rose.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AfterTitle(tt.title, tt.text); got != tt.want {
				t.Fatalf("AfterTitle(%q, %q) = %q, want %q", tt.title, tt.text, got, tt.want)
			}
		})
	}
}
