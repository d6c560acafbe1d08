package digest_test

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/schemas"
)

func ExampleMarkdown() {
	asOf := time.Date(2024, 6, 30, 0, 0, 0, 0, time.UTC)
	blocks := []schemas.ContextBlock{
		{N: 1, PublishedAt: time.Date(2024, 6, 28, 14, 0, 0, 0, time.UTC), Sources: []string{"reuters", "ft"},
			Title: "ECB holds rates", URL: "https://example.com/ecb-holds"},
		{N: 2, PublishedAt: time.Date(2024, 6, 6, 12, 15, 0, 0, time.UTC), Sources: []string{"ecb.europa.eu"},
			Title: "Monetary policy decisions"},
	}
	held := schemas.Claim{Date: time.Date(2024, 6, 28, 0, 0, 0, 0, time.UTC), Text: "The ECB kept its deposit rate at 3.75%.", Cites: []int{1}}
	cut := schemas.Claim{Date: time.Date(2024, 6, 6, 0, 0, 0, 0, time.UTC), Text: "The ECB cut its key rates by 25 basis points.", Cites: []int{2}}
	d := schemas.Digest{
		Version: schemas.DigestVersion, Name: "morning", Index: "news", AsOf: asOf, TimeZone: "Europe/Berlin",
		Topics: []schemas.DigestTopic{{
			Name: "ECB rates", Query: "what did the ECB decide", Mode: "recency", Interpretation: "recency (no date in query)",
			Brief:     schemas.Brief{Method: "extractive", AsOf: asOf, NewDays: 7, New: []schemas.Claim{held}, Earlier: []schemas.Claim{cut}, Timeline: []schemas.Claim{cut, held}},
			Sources:   blocks,
			Freshness: digest.Freshness(blocks, asOf),
			Judge:     schemas.JudgeReport{Method: "heuristic", Judged: 12, Kept: 2, Dropped: 10},
		}},
	}
	fmt.Print(digest.Markdown(d))
	// Output:
	// # Digest morning — index news, as of 2024-06-30
	//
	// Time zone Europe/Berlin · 1 topic
	//
	// ## 1. ECB rates
	//
	// Query: what did the ECB decide
	// Read as: recency (no date in query)
	//
	// ### New in the last 7 days
	// - 2024-06-28 — The ECB kept its deposit rate at 3.75%. [1]
	//
	// ### Timeline
	// - 2024-06-06 — The ECB cut its key rates by 25 basis points. [2]
	//
	// ### Sources
	// - [1] 2024-06-28 · reuters, ft · ECB holds rates · https://example.com/ecb-holds
	// - [2] 2024-06-06 · ecb.europa.eu · Monetary policy decisions
	//
	// Freshness: freshest evidence 2 days old, 50% within 7 days, 2 distinct days; median 13 days, 100% within 30 days, 2 context blocks
	// Judge: heuristic — 12 judged, 2 kept, 10 dropped, 0 failed
	// Summary: extractive
}
