package intent_test

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/intent"
)

func ExampleParse() {
	asOf := time.Date(2024, time.May, 15, 0, 0, 0, 0, time.UTC)
	for _, q := range []string{
		"inflation in 2015",
		"how has the key rate changed since 2020",
		"инфляция в четвёртом квартале 2023 года",
		"latest key rate decision",
		"who won the election this week?",
		"elections in 2030",
		"ставка в конце прошлого года",
		"2020年以来房价如何变化",
		"rates a year ago",
		"how have rents changed since a year ago",
	} {
		r := intent.Parse(q, asOf)
		fmt.Printf("%s | %q\n", r.Explain(), r.Text)
	}
	// Output:
	// window 2015-01-01..2015-12-31 (from "in 2015") | "inflation"
	// evolution since 2020-01-01 (from "how has", "changed", "since 2020") | "the key rate"
	// window 2023-10-01..2023-12-31 (from "в четвёртом квартале 2023 года") | "инфляция"
	// recency, fresher preferred (from "latest") | "key rate decision"
	// recency, fresher preferred since 2024-05-13 (from "this week") | "who won the election?"
	// recency 2030-01-01..2030-12-31: after 2024-05-15, so what was published by then (from "in 2030") | "elections in 2030"
	// window 2023-09-01..2023-12-31 (from "в конце прошлого года") | "ставка"
	// evolution since 2020-01-01 (from "2020年以来", "如何变化") | "房价"
	// recency 2022-11-14..2023-11-13: named in passing, not a filter (from "a year ago") | "rates a year ago"
	// evolution since 2022-11-14 (from "how have", "changed", "since a year ago") | "rents"
}
