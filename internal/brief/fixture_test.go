package brief

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/evidence"
)

// asOf is the anchor of the tests: its day is 2024-06-30 (UTC), so with newDays 7 the "new"
// window is 2024-06-24 to 2024-06-30.
var asOf = time.Date(2024, 6, 30, 15, 0, 0, 0, time.UTC)

const newDays = 7

// at is noon UTC of a YYYY-MM-DD day.
func at(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t.Add(12 * time.Hour)
}

// blk is block n published on date, with a title, text and sources.
func blk(n int, date, title, text string, sources ...string) evidence.Block {
	id := fmt.Sprintf("d%d", n)
	return evidence.Block{N: n, Snippet: evidence.Snippet(text, 800), Doc: evidence.Doc{
		DocID: id, ChunkID: id + "#0", Title: title, Text: text, Sources: sources, PublishedAt: at(date),
	}}
}

// fixture is a small context, newest first as evidence builds it: [1] and [2] are in the new
// window, [3] and [4] are older.
func fixture() []evidence.Block {
	return []evidence.Block{
		blk(1, "2024-06-28", "Central bank raises the key rate to 18%",
			"The central bank raised the key rate to 18% on 28 June 2024. The next meeting is on July 26, 2024.", "tass", "rbc"),
		blk(2, "2024-06-25", "Analysts on the key rate",
			"Analysts expected the key rate to stay at 16% at the June meeting.", "tg:markets"),
		blk(3, "2024-05-10", "Rate held",
			"The key rate was held at 16% on 2024-04-26, the regulator said. Ставка сохранена 26 апреля 2024 года.", "interfax"),
		blk(4, "2023-12-15", "Key rate raised to 16%",
			"The key rate was raised to 16% in December to fight inflation.", "tass"),
	}
}

// goodDigest is a reply to the fixture that passes every check. "new" is oldest first and the
// timeline has a date tie, to see the sorting.
const goodDigest = `{"not_enough":false,
 "new":[{"text":"Analysts expected the rate to stay at 16%.","cites":[2]},
        {"text":"The key rate was raised to 18% on 28 June 2024; the next meeting is on 2024-07-26 [1].","cites":[1,1]}],
 "timeline":[{"date":"2023-12-15","text":"The key rate was raised to 16%.","cites":[4]},
             {"date":"2024-05-10","text":"The rate was held at 16% on April 26, 2024.","cites":[3]},
             {"date":"2024-05-10","text":"Регулятор сохранил ставку 26 апреля 2024 года.","cites":[3,4]},
             {"date":"2024-06-28","text":"The key rate was raised to 18%.","cites":[2,1]}]}`

// splitFixture is the fixture as an older and a newer group.
func splitFixture() (then, now []evidence.Block) {
	b := fixture()
	return b[2:], b[:2]
}

// goodEvolution is a reply to splitFixture that passes every check.
const goodEvolution = `{"not_enough":false,
 "then":[{"text":"The key rate was held at 16% on 2024-04-26.","cites":[3]},{"text":"The key rate was raised to 16%.","cites":[4]}],
 "now":[{"text":"Analysts expected 16%.","cites":[2]},{"text":"The key rate was raised to 18%.","cites":[1,2]}],
 "change":"The rate rose from 16% to 18%."}`
