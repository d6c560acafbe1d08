package demo_test

import (
	"fmt"

	"github.com/asofrag/asof/internal/demo"
)

func ExampleDocuments() {
	for _, d := range demo.Documents()[:3] {
		fmt.Println(d.PublishedAt.Format("2006-01-02 15:04"), d.Lang, d.Source, "|", d.Title)
	}
	// Output:
	// 2026-01-05 14:02 en capital-daily | Snowstorm closes roads in northern Nordavia
	// 2026-01-08 15:10 en nordavia-wire | Economists see Nordavia key rate on hold at 6.50%
	// 2026-01-08 16:10 en capital-daily | Lindholm bridge 70% complete, opening set for June
}
