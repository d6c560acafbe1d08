package render

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

// asOf is the tests' anchor day.
var asOf = time.Date(2024, 6, 30, 0, 0, 0, 0, time.UTC)

// at is 09:00 UTC of a YYYY-MM-DD day.
func at(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t.Add(9 * time.Hour)
}

func claim(date, text string, cites ...int) schemas.Claim {
	return schemas.Claim{Date: at(date), Text: text, Cites: cites}
}

var (
	raised = claim("2024-06-28", "Raised to 18%.", 1, 2)
	held   = claim("2023-12-15", "Raised to  16%.", 4)
	cut    = claim("2022-09-16", "Cut to 7.5%.", 5)
)

// blocks are the context blocks the briefs of these tests cite.
var blocks = []schemas.ContextBlock{
	{N: 1, PublishedAt: at("2024-06-28"), Sources: []string{"tass", " rbc "}, Title: "Key rate\nraised", URL: "https://example.com/a"},
	{N: 2, PublishedAt: at("2024-06-27"), Sources: []string{""}, Snippet: "A post without a title, whose first words name it in the list of sources."},
	{N: 3, PublishedAt: at("2024-06-01"), Title: "Not cited"},
	{N: 4, DocID: "ce058c709d13b954", PublishedAt: at("2023-12-15")},
	{N: 5, PublishedAt: at("2022-09-16"), Title: "Cut", URL: "tg://channel/5"},
}

// TestMarkdown: each view as Markdown; the citations and the sources are numbered 1..n in
// the order they are shown, whatever blocks of the context they are (no [2], [4], [22]).
func TestMarkdown(t *testing.T) {
	digest := schemas.Brief{Method: "llm:m", AsOf: asOf, NewDays: 7,
		New: []schemas.Claim{raised}, Earlier: []schemas.Claim{held}, Timeline: []schemas.Claim{held, raised}}
	tests := []struct {
		name   string
		b      schemas.Brief
		blocks []schemas.ContextBlock
		want   string
	}{
		{
			name: "digest: new, then the timeline; earlier is in the timeline already, new is not shown again", b: digest,
			want: "### New in the last 7 days\n- 2024-06-28 — Raised to 18%. [1][2]\n\n" +
				"### Timeline\n- 2023-12-15 — Raised to 16%. [3]\n",
		},
		{
			name: "with the sources it cites, by number, titles never a bare id", b: digest, blocks: blocks,
			want: "### New in the last 7 days\n- 2024-06-28 — Raised to 18%. [1][2]\n\n" +
				"### Timeline\n- 2023-12-15 — Raised to 16%. [3]\n\n" +
				"### Sources\n" +
				"- [1] 2024-06-28 · tass, rbc · Key rate raised · https://example.com/a\n" +
				"- [2] 2024-06-27 · A post without a title, whose first words name it in the list of sources.\n" +
				"- [3] 2023-12-15 · untitled\n",
		},
		{
			name: "one-day window, nothing new", b: schemas.Brief{AsOf: asOf, NewDays: 1, Timeline: []schemas.Claim{held}},
			want: "### New in the last day\n_Nothing new in the last day._\n\n### Timeline\n- 2023-12-15 — Raised to 16%. [1]\n",
		},
		{
			name: "no window", b: schemas.Brief{AsOf: asOf, Earlier: []schemas.Claim{held}, Timeline: []schemas.Claim{held}},
			want: "### Timeline\n- 2023-12-15 — Raised to 16%. [1]\n",
		},
		{
			name: "stored before new_days: the default window; a timeline of shown claims only is left out", b: schemas.Brief{New: []schemas.Claim{raised}, Timeline: []schemas.Claim{raised}},
			want: "### New in the last 7 days\n- 2024-06-28 — Raised to 18%. [1][2]\n",
		},
		{
			name: "not enough, no claims", b: schemas.Brief{AsOf: asOf, NotEnough: true, NewDays: 7, New: []schemas.Claim{}},
			want: "Not enough information in the documents up to 2024-06-30 to answer.\n",
		},
		{
			name: "not enough, stored before as_of", b: schemas.Brief{NotEnough: true},
			want: "Not enough information in the documents to answer.\n",
		},
		{
			name: "not enough with partial claims and a note", b: schemas.Brief{AsOf: asOf, NotEnough: true, Note: "LLM summary\nreplaced.", Timeline: []schemas.Claim{held}},
			want: "_LLM summary replaced._\n\nNot enough information in the documents up to 2024-06-30 to answer.\n\n" +
				"### Timeline\n- 2023-12-15 — Raised to 16%. [1]\n",
		},
		{
			name: "evolution: then oldest first, now freshest first, no window", b: schemas.Brief{AsOf: asOf, NewDays: 7,
				Then: []schemas.Claim{held, cut}, Now: []schemas.Claim{claim("2024-06-01", "Held at 16%.", 3), raised}},
			want: "### Then\n- 2022-09-16 — Cut to 7.5%. [1]\n- 2023-12-15 — Raised to 16%. [2]\n\n" +
				"### Now\n- 2024-06-28 — Raised to 18%. [3][4]\n- 2024-06-01 — Held at 16%. [5]\n",
		},
		{
			name: "evolution with an empty side", b: schemas.Brief{AsOf: asOf, Then: []schemas.Claim{held}, Now: []schemas.Claim{}},
			want: "### Then\n- 2023-12-15 — Raised to 16%. [1]\n\n### Now\n_None._\n",
		},
		{
			name: "a claim without date or cites", b: schemas.Brief{Now: []schemas.Claim{{Text: "Undated."}}},
			want: "### Then\n_None._\n\n### Now\n- Undated.\n",
		},
		{
			name: "a timeline made of new and earlier when it is empty", b: schemas.Brief{AsOf: asOf, NewDays: 7, New: []schemas.Claim{raised}, Earlier: []schemas.Claim{held}},
			want: "### New in the last 7 days\n- 2024-06-28 — Raised to 18%. [1][2]\n\n" +
				"### Timeline\n- 2023-12-15 — Raised to 16%. [3]\n",
		},
		{
			name: "sections are put in order: the writer's lead first, the other new claims freshest first", b: schemas.Brief{AsOf: asOf, NewDays: 3000,
				New: []schemas.Claim{cut, held, raised}, Timeline: []schemas.Claim{raised, cut, held}},
			want: "### New in the last 3000 days\n- 2022-09-16 — Cut to 7.5%. [1]\n- 2024-06-28 — Raised to 18%. [2][3]\n- 2023-12-15 — Raised to 16%. [4]\n",
		},
		{
			name: "nothing new: the writer's latest earlier claim leads, the timeline holds the rest", b: schemas.Brief{AsOf: asOf, NewDays: 7, New: []schemas.Claim{},
				Earlier: []schemas.Claim{held, cut}, Timeline: []schemas.Claim{cut, held}},
			want: "### New in the last 7 days\n_Nothing new in the last 7 days._\n\n### Latest\n- 2023-12-15 — Raised to 16%. [1]\n\n" +
				"### Timeline\n- 2022-09-16 — Cut to 7.5%. [2]\n",
		},
		{
			name: "a repeat of a claim shown, on the same day, is left out", b: schemas.Brief{AsOf: asOf, NewDays: 7,
				New: []schemas.Claim{raised, claim("2024-06-28", "BREAKING: raised to 18%", 3)}, Timeline: []schemas.Claim{cut}},
			want: "### New in the last 7 days\n- 2024-06-28 — Raised to 18%. [1][2]\n\n### Timeline\n- 2022-09-16 — Cut to 7.5%. [3]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Markdown(tt.b, tt.blocks); got != tt.want {
				t.Errorf("Markdown:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSourceTitle(t *testing.T) {
	tests := []struct {
		name string
		b    schemas.ContextBlock
		want string
	}{
		{"title, on one line", schemas.ContextBlock{Title: " Key\n rate ", Snippet: "x"}, "Key rate"},
		{"no title: the snippet's first sentence", schemas.ContextBlock{DocID: "ce058c709d13b954", Snippet: "Подписчики пишут: ставка сохранена. ЦБ объяснил решение."}, "Подписчики пишут: ставка сохранена."},
		{"no title: the snippet's first line", schemas.ContextBlock{DocID: "ce058c709d13b954", Snippet: "Ставка сохранена\nЦБ объяснил решение"}, "Ставка сохранена"},
		{"a long snippet is cut", schemas.ContextBlock{Snippet: strings.Repeat("я", MaxTitleRunes+5)}, strings.Repeat("я", MaxTitleRunes-1) + "…"},
		{"nothing: untitled, never the id", schemas.ContextBlock{DocID: "ce058c709d13b954", Snippet: " \n"}, "untitled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SourceTitle(tt.b); got != tt.want {
				t.Errorf("SourceTitle = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCited(t *testing.T) {
	b := schemas.Brief{New: []schemas.Claim{raised}, Timeline: []schemas.Claim{raised, held, claim("2024-01-01", "x", 9)}}
	twice := append([]schemas.ContextBlock{{N: 4, Title: "a second [4]"}}, blocks...)
	var got []int
	for _, bl := range Cited(b, twice) {
		got = append(got, bl.N)
	}
	if want := []int{1, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("Cited = %v, want %v (cited, listed, once each, ascending)", got, want)
	}
	if got := Cites(b); !slices.Equal(got, []int{1, 2, 4, 9}) {
		t.Errorf("Cites = %v", got)
	}
	if Cited(schemas.Brief{NotEnough: true}, blocks) != nil {
		t.Error("a brief that cites nothing lists sources")
	}
}

// TestEveryBulletCites: in Markdown every bullet is a claim with its citation; an empty
// section ("Nothing new in the last 7 days.", "None.") says so on a line of its own, not as a
// bullet a reader takes for an uncited claim (the demo digest's "New" sections).
func TestEveryBulletCites(t *testing.T) {
	for _, b := range []schemas.Brief{
		{AsOf: asOf, NewDays: 7, New: []schemas.Claim{}, Earlier: []schemas.Claim{held, cut}, Timeline: []schemas.Claim{cut, held}},
		{AsOf: asOf, Then: []schemas.Claim{held}, Now: []schemas.Claim{}},
	} {
		md := Markdown(b, blocks)
		claims, _, _ := strings.Cut(md, "### Sources")
		for line := range strings.Lines(claims) {
			if strings.HasPrefix(line, "- ") && !strings.HasSuffix(strings.TrimSpace(line), "]") {
				t.Errorf("a bullet without a citation: %q in\n%s", line, md)
			}
		}
	}
}
