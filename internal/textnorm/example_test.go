package textnorm_test

import (
	"fmt"
	"strings"

	"github.com/asofrag/asof/internal/textnorm"
)

func ExampleTidy() {
	text, removed := textnorm.Tidy("Рецессии в России нет, заявил Силуанов в интервью RT Подписаться на РИА Новости / Все наши каналы", "Риа Новости", nil)
	fmt.Println(text)
	fmt.Println(removed[0].Rule, "·", removed[0].Text)
	// Output:
	// Рецессии в России нет, заявил Силуанов в интервью RT
	// subscribe · Подписаться на РИА Новости / Все наши каналы
}

func ExampleFooters() {
	f := textnorm.NewFooters(textnorm.DefaultFooterOptions())
	for _, news := range []string{"Кофе подорожал.", "Какао подорожало.", "Сахар подешевел.", "Чай подорожал.", "Молоко подорожало."} {
		f.Add("Блумберг", news+" 🔵 Bloomberg")
	}
	text, _ := textnorm.Tidy("Шоколад подорожал. 🔵 Bloomberg", "Блумберг", f)
	fmt.Println(f.Learned("Блумберг"), text)
	// Output: [bloomberg] Шоколад подорожал.
}

func ExampleDisplayTitle() {
	text := "Минфин предлагает продлить еще на год срок действия указа об обязательной репатриации валютной выручки. Нормы уточнят."
	title := textnorm.DisplayTitle("", text, 60)
	fmt.Println(title)
	fmt.Println(textnorm.AfterTitle(title, text))
	fmt.Println(strings.Join(textnorm.Channels("Раньше всех. Ну почти; Риа Новости", "РИА Новости"), ", "))
	// Output:
	// Минфин предлагает продлить еще на год срок действия указа…
	// Нормы уточнят.
	// Раньше всех. Ну почти, Риа Новости
}
