package textnorm

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTidyHandRules: one case per rule and the shapes met in tg-finance-ru (Russian Telegram,
// line breaks lost) and realtimeqa (English news sites), with no learned footers.
func TestTidyHandRules(t *testing.T) {
	tests := []struct {
		name, source, text string
		want               string
		rules              []string
	}{
		{"RIA footer after a stop", "Риа Новости",
			"Рецессии в России нет, заявил Силуанов. Подписаться на РИА Новости / Все наши каналы",
			"Рецессии в России нет, заявил Силуанов.", []string{RuleSubscribe}},
		{"RIA footer glued without a stop", "Риа Новости",
			"Рецессии в России нет, есть плановое охлаждение экономики, заявил Силуанов в интервью RT Подписаться на РИА Новости / Все наши каналы",
			"Рецессии в России нет, есть плановое охлаждение экономики, заявил Силуанов в интервью RT", []string{RuleSubscribe}},
		{"RIA footer with its square", "Риа Новости",
			"Внедрение будет позже запланированной даты. 🟦 Подписаться на РИА Новости / Все наши каналы",
			"Внедрение будет позже запланированной даты.", []string{RuleSubscribe}},
		{"RIA footer cut by the export", "Риа Новости", "Курс опустился ниже 97 пунктов Подписаться на РИ",
			"Курс опустился ниже 97 пунктов", []string{RuleSubscribe}},
		{"subscribe in a sentence stays", "Банк", "Клиентам предложили подписаться на уведомления о переводах",
			"Клиентам предложили подписаться на уведомления о переводах", nil},
		{"spy signature and bot", "Сигналы РЦБ",
			"ЦБ РФ С 21 ЯНВАРЯ СНИЗИЛ ОФИЦИАЛЬНЫЙ КУРС ДОЛЛАРА США НА 45,58 КОП., ДО 101,9579 РУБ. Замечено Шпионом РЦБ. Подключить: @StockSpy_bot",
			"ЦБ РФ С 21 ЯНВАРЯ СНИЗИЛ ОФИЦИАЛЬНЫЙ КУРС ДОЛЛАРА США НА 45,58 КОП., ДО 101,9579 РУБ.", []string{RuleSubscribe, RuleSignature}},
		{"full news link before the signature", "Сигналы РЦБ",
			"ГЛТР отменил дивидендную политику, сообщила компания. GLTR 543.55₽ 👉Полная новость Замечено Шпионом РЦБ. Подключить: @StockSpy_bot",
			"ГЛТР отменил дивидендную политику, сообщила компания. GLTR 543.55₽", []string{RuleSubscribe, RuleSignature, RuleReadMore}},
		{"channel handle after a stop", "Банки, деньги, два офшора",
			"Юань прыгнул выше 13,5 рубля впервые с октября 2023 года. @bankrollo",
			"Юань прыгнул выше 13,5 рубля впервые с октября 2023 года.", []string{RuleLink}},
		{"handle naming someone stays", "x", "Об этом написал в соцсети @elonmusk", "Об этом написал в соцсети @elonmusk", nil},
		{"ad label after the handle", "Банки, деньги, два офшора",
			"Оставляйте заявку на сайте Точка Банк. @bankrollo Реклама. Рекламодатель АО «Точка», ИНН 9705120864.",
			"Оставляйте заявку на сайте Точка Банк.", []string{RuleAd, RuleLink}},
		{"photo credit and read more", "Forbes Russia",
			"Почему растет золото и как инвесторы могут на этом сыграть? Рассказываем на сайте 📸: Владимир Смирнов / ТАСС",
			"Почему растет золото и как инвесторы могут на этом сыграть?", []string{RuleReadMore}},
		{"photo credit", "Forbes Russia", "Безработица будет вблизи исторических минимумов 📸: Олег Елков / ТАСС",
			"Безработица будет вблизи исторических минимумов", []string{RuleCredit}},
		{"sponsored marker", "Forbes Russia", "О трендах рынка рассказала Светлана Филимонова *Информационная поддержка",
			"О трендах рынка рассказала Светлана Филимонова", []string{RuleSignature}},
		{"read more here", "Риа Новости", "Путин одобрил закон о периоде охлаждения. Подробнее о нем можно прочитать тут.",
			"Путин одобрил закон о периоде охлаждения.", []string{RuleReadMore}},
		{"details on the site", "Forbes Russia", "Выручка выросла на 12%. Подробности на сайте 📸: Александр К",
			"Выручка выросла на 12%.", []string{RuleReadMore}},
		{"trailing link after a number", "Сигналы РЦБ", "Таргет по нефти Urals — $72 https://t.me/finpizdec/23191",
			"Таргет по нефти Urals — $72", []string{RuleLink}},
		{"link a sentence needs stays", "x", "For details visit www.example.org", "For details visit www.example.org", nil},
		{"hashtag tail", "demo", "Central bank raises the key rate to 16% #rates #economy", "Central bank raises the key rate to 16%", []string{RuleHashtags}},
		{"hashtag tail after a stop", "demo", "Урожай собран. #урожай", "Урожай собран.", []string{RuleHashtags}},
		{"a rank is no hashtag", "usatoday.com", "Indianapolis — #1, Lydia Deetz. #2,", "Indianapolis — #1, Lydia Deetz. #2,", nil},
		{"leading hashtag stays", "demo", "#breaking Central bank raises the key rate", "#breaking Central bank raises the key rate", nil},
		{"emoji-only line", "x", "Ставка 16%\n🔥🔥🔥\nРынок ждал", "Ставка 16%\nРынок ждал", []string{RuleEmoji}},
		{"emoji tail", "x", "Рубль укрепился. 👍", "Рубль укрепился.", []string{RuleEmoji}},
		{"currency sign stays", "x", "Зарплата свыше 100 тыс. ₽.", "Зарплата свыше 100 тыс. ₽.", nil},
		{"rule line", "usatoday.com", "Stocks fell.\n\n___\n\nBonds rose.", "Stocks fell.\n\nBonds rose.", []string{RuleEmoji}},
		// English news sites.
		{"newsletter line", "usatoday.com",
			"The orchestra is offering a big incentive.\n\nTHE CURRENT: Subscribe to The Desert Sun's energy and water newsletter\n\nBut getting to 100 percent is harder.",
			"The orchestra is offering a big incentive.\n\nBut getting to 100 percent is harder.", []string{RuleSubscribe}},
		{"sign up after a sentence", "usatoday.com",
			"Editor's note: The following content is by DailyChatter. Sign up to receive the daily newsletter here.\n\nEuropean officials met.",
			"Editor's note: The following content is by DailyChatter.\n\nEuropean officials met.", []string{RuleSubscribe}},
		{"sign up in news stays", "usatoday.com", "Sign up for the vaccine opens Monday, officials said.", "Sign up for the vaccine opens Monday, officials said.", nil},
		{"follow us", "usatoday.com", "Like All the Moms? Follow us on Facebook.", "Like All the Moms?", []string{RuleSubscribe}},
		{"read more lines", "usatoday.com",
			"The port board oversees the complex.\n\nRead more here.\n\nREAD MORE: Still on candid camera: Body camera bill watered down\n\nA boy was shot.",
			"The port board oversees the complex.\n\nA boy was shot.", []string{RuleReadMore, RuleReadMore}},
		{"read more after a stop", "cnn.com", "The team won, he said. Read More", "The team won, he said.", []string{RuleReadMore}},
		{"related link", "usatoday.com", "Officials approved the plan.\nRELATED: Governor announces budget deal with teacher pay raise\nThe vote was 5-2.",
			"Officials approved the plan.\nThe vote was 5-2.", []string{RuleReadMore}},
		{"AP photo credit", "cnn.com", "Prices are displayed at a gas station in Sacramento, Calif., Friday, May 27, 2022. (AP Photo/Rich Pedroncelli)",
			"Prices are displayed at a gas station in Sacramento, Calif., Friday, May 27, 2022.", []string{RuleCredit}},
		{"share lines", "usatoday.com", "Lon's story.\nShare this story on Twitter\nShare this story on Facebook\nEmail this story",
			"Lon's story.", []string{RuleReadMore, RuleReadMore, RuleReadMore}},
		{"only a footer", "Риа Новости", "Подписаться на РИА Новости / Все наши каналы", "", []string{RuleSubscribe}},
		{"nothing to remove", "Блумберг", "Цены на кофе выросли на 20%. Причина — неурожай в Бразилии.", "Цены на кофе выросли на 20%. Причина — неурожай в Бразилии.", nil},
		{"empty", "x", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, removed := Tidy(Clean(tt.text), tt.source, nil)
			if got != tt.want {
				t.Fatalf("Tidy(%q)\n got %q\nwant %q\nremoved %q", tt.text, got, tt.want, removed)
			}
			var rules []string
			for _, r := range removed {
				rules = append(rules, r.Rule)
			}
			if !sameSet(rules, tt.rules) {
				t.Fatalf("rules %q, want %q (removed %q)", rules, tt.rules, removed)
			}
			if again, more := Tidy(got, tt.source, nil); again != got || len(more) > 0 {
				t.Fatalf("Tidy is not idempotent: %q → %q (%q)", got, again, more)
			}
		})
	}
}

// sameSet compares two lists as multisets.
func sameSet(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// channelPosts makes n posts of a channel ending with footer, each with its own news.
func channelPosts(n int, footer string) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("Новость номер %d о ценах на нефть и газ. %s", i, footer))
	}
	return out
}

// TestFootersLearned: a trailing piece that ends MinPosts posts of a channel is learned,
// near-verbatim (emoji, case and styled letters aside) and only for that channel; fewer posts,
// another channel, a piece that does not start at a cut point, or one too long, are not.
func TestFootersLearned(t *testing.T) {
	type post struct{ source, text string }
	var posts []post
	for i, text := range channelPosts(6, "🔵 Bloomberg") {
		if i%2 == 1 {
			text = strings.Replace(text, "🔵 Bloomberg", "💸 BLOOMBERG", 1) // near-verbatim
		}
		posts = append(posts, post{"Блумберг", text})
	}
	for _, text := range channelPosts(5, "𝔼ℂ𝕆ℕ𝕆𝕄𝕀𝕂𝔸") {
		posts = append(posts, post{"Экономика", text})
	}
	for _, text := range channelPosts(4, "👍 The Economist") { // one post short
		posts = append(posts, post{"Другой", text})
	}
	for i := range 6 { // an attribution, not a footer: no cut point before it
		posts = append(posts, post{"Сигналы", fmt.Sprintf("Цены на нефть выросли на %d%% — Путин", i)})
	}
	for i := range 6 { // a whole post repeated is no footer of itself
		posts = append(posts, post{"Доллар", "Доллар"})
		_ = i
	}
	f := NewFooters(DefaultFooterOptions())
	for _, p := range posts {
		f.Add(p.source, Clean(p.text))
	}
	tests := []struct {
		name, source, text, want string
	}{
		{"learned", "Блумберг", "Кофе подорожал. 🔵 Bloomberg", "Кофе подорожал."},
		{"near-verbatim", "Блумберг", "Кофе подорожал. 🟢 bloomberg", "Кофе подорожал."},
		{"channel in a list", "Раньше всех; Блумберг", "Кофе подорожал. 🔵 Bloomberg", "Кофе подорожал."},
		{"channel spelled otherwise", "БЛУМБЕРГ", "Кофе подорожал. 🔵 Bloomberg", "Кофе подорожал."},
		{"styled letters", "Экономика", "Рубль укрепился. 𝔼ℂ𝕆ℕ𝕆𝕄𝕀𝕂𝔸", "Рубль укрепился."},
		{"other channel", "Forbes Russia", "Кофе подорожал. 🔵 Bloomberg", "Кофе подорожал. 🔵 Bloomberg"},
		{"too few posts", "Другой", "Кофе подорожал. 👍 The Economist", "Кофе подорожал. 👍 The Economist"},
		{"attribution stays", "Сигналы", "Нефть дешевеет — Путин", "Нефть дешевеет — Путин"},
		{"repeated whole post stays", "Доллар", "Доллар", "Доллар"},
		{"only the footer", "Блумберг", "🔵 Bloomberg", ""},
		{"not at the end of a sentence", "Блумберг", "Агентство 🔵 Bloomberg сообщило о сделке", "Агентство 🔵 Bloomberg сообщило о сделке"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, removed := Tidy(Clean(tt.text), tt.source, f); got != tt.want {
				t.Fatalf("Tidy(%q, %q) = %q (removed %q), want %q", tt.text, tt.source, got, removed, tt.want)
			}
		})
	}
	if got, want := f.Learned("Блумберг"), []string{"bloomberg"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Learned(Блумберг) = %q, want %q", got, want)
	}
	if got := f.Learned("Сигналы"); len(got) != 0 {
		t.Fatalf("Learned(Сигналы) = %q, want none", got)
	}
}

// TestFootersPromoLines: a promotional line recurring in many articles of a site is learned
// wherever it sits; a recurring line without a promotional cue (a byline) is not.
func TestFootersPromoLines(t *testing.T) {
	f := NewFooters(DefaultFooterOptions())
	promo := "Need a break? Play the USA TODAY Daily Crossword Puzzle."
	byline := "From USA TODAY Network and wire reports"
	for i := range 6 {
		f.Add("usatoday.com", Clean(fmt.Sprintf("%s\nStory %d about the budget vote.\n%s\nThe council met on Monday.", byline, i, promo)))
	}
	text := Clean(byline + "\nThe mayor resigned.\n" + promo + "\nAn election follows.")
	got, removed := Tidy(text, "usatoday.com", f)
	if want := Clean(byline + "\nThe mayor resigned.\nAn election follows."); got != want {
		t.Fatalf("Tidy = %q (removed %q), want %q", got, removed, want)
	}
	if len(removed) != 1 || removed[0].Rule != RuleLearned {
		t.Fatalf("removed %q, want the learned promo line", removed)
	}
}

func TestFooterOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		o    FooterOptions
		ok   bool
	}{
		{"default", DefaultFooterOptions(), true},
		{"one post", FooterOptions{MinPosts: 1, MaxWords: 8, MaxLineWords: 60}, false},
		{"share above one", FooterOptions{MinPosts: 5, MinShare: 1.5, MaxWords: 8, MaxLineWords: 60}, false},
		{"no words", FooterOptions{MinPosts: 5, MaxLineWords: 60}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.o.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// FuzzTidy checks that Tidy only removes: the words left are the text's words in order with
// some removed, it is idempotent, and it never grows the text.
func FuzzTidy(f *testing.F) {
	for _, s := range []string{
		"Рост. Подписаться на РИА Новости / Все наши каналы", "Текст 🔵 Bloomberg", "a #b #c", "👉Полная новость @x",
		"Read more here.\nSign up for the newsletter here", "https://t.me/x", "📸: Фото", "Реклама. Рекламодатель ООО",
		"(AP Photo/X)", "1. #", "@", "Текст. @канал\n\n🔥",
	} {
		f.Add(s, "Риа Новости")
	}
	learned := NewFooters(DefaultFooterOptions())
	for _, p := range channelPosts(6, "🔵 Bloomberg") {
		learned.Add("Риа Новости", p)
	}
	f.Fuzz(func(t *testing.T, text, source string) {
		if !utf8.ValidString(text) || !utf8.ValidString(source) {
			t.Skip()
		}
		text = Clean(text)
		for _, fs := range []*Footers{nil, learned} {
			got, removed := Tidy(text, source, fs)
			if len(got) > len(text) {
				t.Fatalf("Tidy grew %q to %q", text, got)
			}
			if !subsequence(Tokens(got), Tokens(text)) {
				t.Fatalf("Tidy(%q) = %q: not a subsequence of the words", text, got)
			}
			if (got != text) != (len(removed) > 0) {
				t.Fatalf("Tidy(%q) = %q but reported %q", text, got, removed)
			}
			if again, more := Tidy(got, source, fs); again != got || len(more) > 0 {
				t.Fatalf("not idempotent: %q → %q → %q (%q)", text, got, again, more)
			}
		}
	})
}

// subsequence reports whether a is b with some elements removed.
func subsequence(a, b []string) bool {
	i := 0
	for _, s := range b {
		if i < len(a) && a[i] == s {
			i++
		}
	}
	return i == len(a)
}

// BenchmarkTidy measures Tidy on the shapes of tg-finance-ru and realtimeqa with learned
// footers (texts/s).
func BenchmarkTidy(b *testing.B) {
	f := NewFooters(DefaultFooterOptions())
	for _, p := range channelPosts(20, "🔵 Bloomberg") {
		f.Add("Блумберг", p)
	}
	texts := []struct{ source, text string }{
		{"Блумберг", strings.Repeat("Цены на кофе выросли на 20% за год, сообщили аналитики. ", 8) + "🔵 Bloomberg"},
		{"Риа Новости", strings.Repeat("Рецессии в России нет, есть плановое охлаждение экономики. ", 6) + "Подписаться на РИА Новости / Все наши каналы"},
		{"usatoday.com", strings.Repeat("The council voted 5-2 on Monday to approve the budget, officials said.\n\n", 10) + "Sign up for our weekly newsletter.\n\nThe mayor will sign it."},
		{"Сигналы РЦБ", "🌙 Важное за ночь ⚓ Кабмин поручил ведомствам — ТАСС 🇮🇱 Министр обороны Израиля утвердил операцию Замечено Шпионом РЦБ. Подключить: @StockSpy_bot"},
	}
	for i := range texts {
		texts[i].text = Clean(texts[i].text)
	}
	n := 0
	for b.Loop() {
		for _, t := range texts {
			Tidy(t.text, t.source, f)
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
}
