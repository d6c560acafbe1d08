package summarize_test

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/summarize"
)

func ExampleEvolve() {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	block := func(n int, date, text string) evidence.Block {
		return evidence.Block{N: n, Doc: evidence.Doc{Text: text, PublishedAt: day(date)}}
	}
	then := []evidence.Block{
		block(3, "2021-03-19", "Банк России повысил ключевую ставку до 4,5% годовых."),
		block(4, "2020-07-24", "Ключевая ставка снижена до исторического минимума 4,25%."),
	}
	now := []evidence.Block{
		block(1, "2024-06-07", "Ключевая ставка сохранена на уровне 16%. Регулятор допустил её повышение в июле."),
		block(2, "2024-05-20", "Погода в Москве: до +25 градусов."),
	}
	e, err := summarize.Evolve("как изменилась ключевая ставка", then, now, day("2024-06-30"), summarize.DefaultOptions())
	if err != nil {
		panic(err)
	}
	fmt.Print(render.Markdown(e, nil))
	// Output:
	// ### Then
	// - 2020-07-24 — Ключевая ставка снижена до исторического минимума 4,25%. [1]
	// - 2021-03-19 — Банк России повысил ключевую ставку до 4,5% годовых. [2]
	//
	// ### Now
	// - 2024-06-07 — Ключевая ставка сохранена на уровне 16%. [3]
}
