package digest

import (
	"time"

	"github.com/asofrag/asof/schemas"
)

// anchor is the fixture's as-of day.
var anchor = time.Date(2024, 6, 30, 0, 0, 0, 0, time.UTC)

// on is a publication time on y-m-d, at 09:30 UTC.
func on(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 9, 30, 0, 0, time.UTC) }

func claim(t time.Time, text string, cites ...int) schemas.Claim {
	return schemas.Claim{Date: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), Text: text, Cites: cites}
}

// fixture is a digest of three topics as of 2024-06-30: an English recency topic with new
// claims and a source older than the chart's 60 days, a Russian evolution topic (then vs
// now, nothing new, a summary note) and a topic whose Ask failed.
func fixture() schemas.Digest {
	ecb := []schemas.ContextBlock{
		{N: 1, DocID: "reuters-20240628-ecb", PublishedAt: on(2024, 6, 28), Sources: []string{"reuters", "ft"},
			Title: "ECB holds rates, signals patience", URL: "https://www.reuters.com/markets/ecb-holds-2024-06-28/",
			Snippet: "The European Central Bank kept its deposit rate at 3.75% on Thursday.", Hot: true},
		{N: 2, DocID: "ecb-20240606-pr", PublishedAt: on(2024, 6, 6), Sources: []string{"ecb.europa.eu"},
			Title: "Monetary policy decisions", URL: "https://www.ecb.europa.eu/press/pr/date/2024/html/ecb.mp240606.en.html",
			Snippet: "The Governing Council today decided to lower the three key ECB interest rates by 25 basis points.", Hot: true},
		{N: 3, DocID: "bloomberg-20240629-lagarde", PublishedAt: on(2024, 6, 29), Sources: []string{"bloomberg"},
			Title: "Lagarde: no rush to cut again", URL: "https://www.bloomberg.com/news/lagarde-no-rush",
			Snippet: "Christine Lagarde said the ECB is in no rush to lower borrowing costs further.", Hot: true},
		{N: 4, DocID: "ft-20240411-ecb", PublishedAt: on(2024, 4, 11), Sources: []string{"ft"},
			Title: "ECB signals June cut", URL: "https://www.ft.com/content/ecb-june-cut",
			Snippet: "The ECB signalled it could cut rates in June."},
		{N: 5, DocID: "reuters-20230914-ecb", PublishedAt: on(2023, 9, 14), Sources: []string{"reuters"},
			Title: "ECB raises rates to record high", URL: "https://www.reuters.com/markets/ecb-hike-2023-09-14/",
			Snippet: "The ECB raised its deposit rate to a record 4%."},
	}
	// The context held one more block than the brief cited.
	ecbContext := append(ecb[:5:5], schemas.ContextBlock{N: 6, DocID: "dw-20240627", PublishedAt: on(2024, 6, 27),
		Sources: []string{"dw"}, Title: "Eurozone inflation eases"})
	ecbClaims := []schemas.Claim{
		claim(on(2023, 9, 14), "The ECB raised its deposit rate to a record 4%.", 5),
		claim(on(2024, 4, 11), "The ECB signalled it could cut rates in June.", 4),
		claim(on(2024, 6, 6), "The ECB lowered its three key interest rates by 25 basis points.", 2),
		claim(on(2024, 6, 28), "The ECB kept its deposit rate at 3.75%.", 1, 3),
		claim(on(2024, 6, 29), "Lagarde said the ECB is in no rush to lower borrowing costs further.", 3),
	}

	cbr := []schemas.ContextBlock{
		{N: 1, DocID: "interfax-20220228", PublishedAt: on(2022, 2, 28), Sources: []string{"interfax", "tass"},
			Title: "ЦБ повысил ключевую ставку до 20%", URL: "https://www.interfax.ru/business/826023",
			Snippet: "Банк России повысил ключевую ставку с 9,5% до 20% годовых."},
		{N: 2, DocID: "rbc-20220916", PublishedAt: on(2022, 9, 16), Sources: []string{"rbc"},
			Title: "Ставка снижена до 7,5%", URL: "https://www.rbc.ru/finances/16/09/2022/ставка",
			Snippet: "Совет директоров снизил ключевую ставку до 7,5%."},
		{N: 3, DocID: "cbr-20240607", PublishedAt: on(2024, 6, 7), Sources: []string{"cbr.ru", "interfax"},
			Title: "Банк России сохранил ключевую ставку 16%", URL: "https://www.cbr.ru/press/pr/?file=07062024_133000key.htm",
			Snippet: "Совет директоров Банка России 7 июня 2024 года принял решение сохранить ключевую ставку на уровне 16,00% годовых."},
		{N: 4, DocID: "kommersant-20240614", PublishedAt: on(2024, 6, 14), Sources: []string{"kommersant"},
			Title: "Аналитики ждут повышения ставки в июле", URL: "https://www.kommersant.ru/doc/6770000",
			Snippet: "Большинство аналитиков ожидают повышения ставки до 18% на заседании 26 июля."},
	}

	return schemas.Digest{
		Version:  schemas.DigestVersion,
		Name:     "morning",
		Index:    "news",
		AsOf:     anchor,
		TimeZone: "Europe/Berlin",
		RunID:    "digest/morning/2024-06-30",
		Topics: []schemas.DigestTopic{
			{
				Name:           "ECB interest rates",
				Query:          "what did the ECB decide on interest rates",
				Mode:           "recency",
				Interpretation: "recency (no date in query)",
				Brief: schemas.Brief{
					Method:   "llm:qwen2.5-7b-instruct",
					AsOf:     anchor,
					NewDays:  NewDays,
					New:      []schemas.Claim{ecbClaims[4], ecbClaims[3]},
					Earlier:  ecbClaims[:3],
					Timeline: ecbClaims,
				},
				Sources:   ecb,
				Freshness: Freshness(ecbContext, anchor),
				Judge: schemas.JudgeReport{Method: "llm:qwen2.5-7b-instruct", Policy: "keep", Batches: 3,
					Judged: 24, Kept: 9, Dropped: 15},
				AskRunID: "ask/morning/2024-06-30/1",
			},
			{
				Name:           "Ключевая ставка ЦБ",
				Query:          "как менялась ключевая ставка Банка России с 2022 года",
				Mode:           "evolution",
				Interpretation: `evolution since 2022-01-01 (from "как менялась", "с 2022 года")`,
				Brief: schemas.Brief{
					Method: "extractive",
					Then: []schemas.Claim{
						claim(on(2022, 2, 28), "Банк России повысил ключевую ставку с 9,5% до 20% годовых.", 1),
						claim(on(2022, 9, 16), "Совет директоров снизил ключевую ставку до 7,5%.", 2),
					},
					Now: []schemas.Claim{
						claim(on(2024, 6, 7), "Банк России сохранил ключевую ставку на уровне 16,00% годовых.", 3),
						claim(on(2024, 6, 14), "Большинство аналитиков ожидают повышения ставки до 18% на заседании 26 июля.", 4, 3),
					},
					Note: "The LLM summary cited a block after the anchor and was replaced by the extractive one.",
				},
				Sources:   cbr,
				Freshness: Freshness(cbr, anchor),
				Judge: schemas.JudgeReport{Method: "heuristic", Policy: "keep", Batches: 2, FailedBatches: 1,
					Judged: 10, Kept: 6, Dropped: 4, Failed: 8, Reason: "candidates 11..18: activity StartToClose timeout"},
				AskRunID: "ask/morning/2024-06-30/2",
			},
			{
				Name:     "Chip export rules",
				Query:    "new US chip export restrictions",
				Mode:     "auto",
				Error:    "ask failed: activity RetrieveDense timed out after 3 attempts (StartToClose 2m0s)",
				AskRunID: "ask/morning/2024-06-30/3",
			},
		},
	}
}
