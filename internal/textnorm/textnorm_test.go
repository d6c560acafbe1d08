package textnorm

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"spaces", "  a \t b  ", "a b"},
		{"paragraphs", "a\n\n\n\nb\r\nc", "a\n\nb\nc"},
		{"nfc", "e\u0301", "\u00e9"},
		{"controls and bom", "\uFEFFa\u0000b\u200Bc", "abc"},
		{"only whitespace", " \n\t ", ""},
		{"line trailing space", "a  \n  b", "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Fatalf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLang(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"english", "The Bank of Russia raised the key rate", "en"},
		{"russian", "Банк России повысил ключевую ставку до 16%", "ru"},
		{"russian with english words", "ЦБ: ставка 16% (key rate, Reuters)", "ru"},
		{"digits and punctuation only", "12345 !!!", ""},
		{"empty", "", ""},
		{"spaces only", " \n\t", ""},
		{"chinese", "中国人民银行宣布下调存款准备金率0.5个百分点", "zh"},
		{"chinese with english names", "OpenAI首席执行官Sam Altman表示", "zh"},
		{"chinese headline with a product name", "苹果发布iPhone新品", "zh"},
		{"traditional chinese", "臺灣央行宣布升息半碼", "zh"},
		{"japanese", "日本銀行は政策金利を引き上げた", "ja"},
		{"japanese katakana only", "インフレーション", "ja"},
		{"japanese headline with one kana", "東京都知事選挙の結果", "ja"},
		{"korean", "한국은행이 기준금리를 동결했다", "ko"},
		{"korean with hanja", "韓國銀行 기준금리 동결 발표", "ko"},
		{"english quoting chinese", "The slogan 为人民服务 (serve the people) was coined in 1944", "en"},
		{"russian quoting chinese", "Компания 华为 представила новый смартфон", "ru"},
		{"short chinese", "中", "zh"},
		{"short japanese", "ア", "ja"},
		{"short korean", "한", "ko"},
		{"short english", "a", "en"},
		{"short russian", "я", "ru"},
		{"chinese with digits", "2023年GDP增长5.2%", "zh"},
		{"prolonged sound mark alone is no letter", "ー", ""},
		{"fullwidth latin", "ＡＢＣ", "en"},
		{"spanish", "Libia: la coalición bombardeó ayer las tropas de Gadafi.", "es"},
		{"spanish question", "¿Qué pasó en Bengasi?", "es"},
		{"french", "Le jeudi, la journée de colère en Libye a fait 24 morts à Benghazi.", "fr"},
		{"french question", "Quand l'Otan a-t-elle pris le commandement ?", "fr"},
		{"italian", "Dopo tre giorni di combattimenti gli insorti espugnano il compound del rais.", "it"},
		{"italian question", "Cosa è successo a Bengasi?", "it"},
		{"latin names alone read as english", "Libia Gadafi", "en"},
		{"english with per", "How much did taxpayers pay per day during Liz Truss's time?", "en"},
		{"english quoting spanish", "The crowd chanted 'el pueblo unido' as the president spoke to the nation about the reforms and the budget that parliament had passed.", "en"},
		{"italian del is not spanish", "Assalto finale al bunker del raìs: gli insorti e la fine della guerra", "it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lang(tt.in); got != tt.want {
				t.Errorf("Lang(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCJK(t *testing.T) {
	tests := []struct {
		name, lang string
		want       bool
	}{
		{"chinese", "zh", true},
		{"japanese", "ja", true},
		{"korean", "ko", true},
		{"region", "zh-CN", true},
		{"script and underscore", "ZH_Hant", true},
		{"english", "en", false},
		{"russian", "ru", false},
		{"empty", "", false},
		{"prefix only", "zhx", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CJK(tt.lang); got != tt.want {
				t.Errorf("CJK(%q) = %v, want %v", tt.lang, got, tt.want)
			}
		})
	}
}

func TestTokens(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Don't panic: COVID-19 cases rose 5%.", "don't panic covid-19 cases rose 5"},
		{"Ёлка — ёж, ЕЖ", "елка еж еж"},
		{"it’s -dash- trailing-", "it's dash trailing"},
		{"", ""},
	}
	for _, tt := range tests {
		got := strings.Join(Tokens(tt.in), " ")
		if got != tt.want {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDedupKey(t *testing.T) {
	base := "Банк России повысил ключевую ставку до 16% https://t.me/c/1 @finnews"
	same := []string{
		"банк россии   повысил ключевую ставку до 16%!",
		"Банк России повысил ключевую ставку до 16% (@other_channel) www.example.com/x",
	}
	for _, s := range same {
		if DedupKey(s) != DedupKey(base) {
			t.Errorf("repost %q has another key", s)
		}
	}
	if DedupKey("Банк России повысил ключевую ставку до 17%") == DedupKey(base) {
		t.Fatal("a different number must give a different key")
	}
	if len(DedupKey("x")) != 32 {
		t.Fatal("key is 16 bytes of hex")
	}
}

// TestDedupKeyRepostMarks: a repost's urgency and edit marks ("BREAKING:", «Срочно:»,
// "#молния", "(update)") do not change the key; the same word inside the text does.
func TestDedupKeyRepostMarks(t *testing.T) {
	pairs := [][2]string{
		{"Governor: key rate has peaked, markets bet on April cut", "BREAKING: Governor: key rate has peaked, markets bet on April cut"},
		{"Governor Ilse Marten said the key rate of 8.00% is likely the peak.", "#breaking Governor Ilse Marten said the key rate of 8.00% is likely the peak. (update)"},
		{"Банк России сохранил ключевую ставку на уровне 21%", "Срочно: Банк России сохранил ключевую ставку на уровне 21%"},
		{"Банк России сохранил ключевую ставку на уровне 21%", "⚡ #молния Банк России сохранил ключевую ставку на уровне 21% (обновлено)"},
	}
	for _, p := range pairs {
		if DedupKey(p[0]) != DedupKey(p[1]) {
			t.Errorf("repost %q has another key than %q", p[1], p[0])
		}
	}
	if DedupKey("The bank will publish an update of its forecast") == DedupKey("The bank will publish its forecast") {
		t.Error("a word inside the text must count")
	}
}

func TestValidUTF8(t *testing.T) {
	if !ValidUTF8("ставка") || ValidUTF8("bad \xff\xfe bytes") {
		t.Fatal("ValidUTF8 wrong")
	}
}

func FuzzTokensClean(f *testing.F) {
	f.Add("Don't panic: COVID-19 ставка ёж https://x.y @h")
	f.Fuzz(func(t *testing.T, s string) {
		c := Clean(s)
		if Clean(c) != c {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
		for _, tok := range Tokens(s) {
			if tok == "" || strings.ContainsAny(tok, " \t\n") {
				t.Fatalf("bad token %q from %q", tok, s)
			}
		}
	})
}

func TestField(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "reuters", "reuters"},
		{"trimmed", "  tass \n", "tass"},
		{"escape sequence", "\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"osc title and bel", "a\x1b]0;title\x07b", "a]0;titleb"},
		{"c1 csi", "a\u009b2Jb", "a2Jb"},
		{"nul and del", "a\x00b\x7fc", "abc"},
		{"tab and newline become spaces", "a\tb\nc\r\nd", "a b c  d"},
		{"nel becomes a space", "a\u0085b", "a b"},
		{"bidi override and isolate", "abc\u202edef\u2066g\u2069", "abcdefg"},
		{"bom and zero-width space", "\ufeffa\u200bb", "ab"},
		{"cyrillic kept", "РИА Новости", "РИА Новости"},
		{"only controls", "\x1b\x07", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Field(tt.in); got != tt.want {
				t.Errorf("Field(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLooksEnglish(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     bool
	}{
		{"English news", "The European Central Bank raised its key interest rates by 25 basis points on Thursday, a decision markets had expected. The ECB president said inflation remained too high and that the governing council was ready to act again if needed.", true},
		{"French news", "La Banque centrale européenne a relevé jeudi ses taux directeurs de 25 points de base, une décision attendue par les marchés. La présidente de la BCE a déclaré que l'inflation restait trop élevée et que le conseil des gouverneurs était prêt à agir de nouveau si nécessaire.", false},
		{"German news", "Die Europäische Zentralbank hat am Donnerstag die Leitzinsen um 25 Basispunkte angehoben, eine Entscheidung, die von den Märkten erwartet worden war. Die Präsidentin der EZB sagte, die Inflation sei weiterhin zu hoch und der Rat sei bereit, erneut zu handeln, falls es nötig sei.", false},
		{"Spanish news", "El Banco Central Europeo elevó el jueves sus tipos de interés en 25 puntos básicos, una decisión que los mercados esperaban. La presidenta del BCE dijo que la inflación sigue siendo demasiado alta y que el consejo está dispuesto a actuar de nuevo si es necesario.", false},
		{"Dutch news", "De Europese Centrale Bank heeft donderdag de rente met 25 basispunten verhoogd, een besluit dat door de markten werd verwacht. De president van de ECB zei dat de inflatie te hoog blijft en dat de raad bereid is opnieuw in te grijpen als het nodig is.", false},
		{"a headline is too short to tell", "Banque centrale: les taux relevés de 25 points", true},
		{"empty", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LooksEnglish(tc.in); got != tc.want {
				t.Fatalf("LooksEnglish = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSameScript(t *testing.T) {
	for _, c := range []struct {
		q, d string
		want bool
	}{{"en", "en", true}, {"en", "es", true}, {"fr", "it", true}, {"en", "ru", false}, {"ru", "ru", true}, {"zh", "ja", false}, {"es", "zh", false}, {"en", "de", false}} {
		if got := SameScript(c.q, c.d); got != c.want {
			t.Errorf("SameScript(%q, %q) = %v, want %v", c.q, c.d, got, c.want)
		}
	}
}
