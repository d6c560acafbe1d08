package brief

import (
	"reflect"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// sameClaims checks that claims are the sentences, one for one, in order.
func sameClaims(t *testing.T, what string, cs []schemas.Claim, ss []summarize.Sentence) {
	t.Helper()
	if cs == nil {
		t.Errorf("%s is nil, want a list", what)
	}
	if len(cs) != len(ss) {
		t.Fatalf("%s: %d claims for %d sentences", what, len(cs), len(ss))
	}
	for i, s := range ss {
		want := schemas.Claim{Date: s.Date, Text: s.Text, Cites: []int{s.N}}
		if !reflect.DeepEqual(cs[i], want) {
			t.Errorf("%s[%d] = %+v, want %+v", what, i, cs[i], want)
		}
	}
}

func TestFromSummary(t *testing.T) {
	tests := []struct {
		name             string
		query            string
		blocks           []evidence.Block
		notEnough, note  bool
		minNew, minEarly int
	}{
		{name: "new and earlier", query: "key rate", blocks: fixture(), minNew: 1, minEarly: 1},
		{name: "fallback", query: "inflation football tennis hockey basketball volleyball swimming chess", blocks: fixture(), note: true, minEarly: 1},
		{name: "not enough", query: "football results", blocks: fixture(), notEnough: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := summarize.Brief(tt.query, tt.blocks, asOf, summarize.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if s.Fallback != tt.note || s.NotEnough != tt.notEnough || len(s.New) < tt.minNew || len(s.Earlier) < tt.minEarly {
				t.Fatalf("fixture does not give the case: fallback %v not enough %v, %d new, %d earlier", s.Fallback, s.NotEnough, len(s.New), len(s.Earlier))
			}
			b := FromSummary(s)
			if b.Method != "extractive" || b.NotEnough != tt.notEnough || (b.Note == FallbackNote) != tt.note || b.Then != nil || b.Now != nil {
				t.Errorf("brief = %+v", b)
			}
			sameClaims(t, "New", b.New, s.New)
			sameClaims(t, "Earlier", b.Earlier, s.Earlier)
			sameClaims(t, "Timeline", b.Timeline, s.Timeline)
			if got, want := Markdown(b, asOf, s.NewDays), s.Markdown(); got != want {
				t.Errorf("Markdown differs from summarize's:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestFromEvolution(t *testing.T) {
	then, now := splitFixture()
	tests := []struct {
		name      string
		query     string
		notEnough bool
	}{
		{name: "both sides", query: "key rate"},
		{name: "not enough", query: "football results", notEnough: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := summarize.Evolve(tt.query, then, now, asOf, summarize.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if e.NotEnough != tt.notEnough || !tt.notEnough && (len(e.Then) == 0 || len(e.Now) == 0) {
				t.Fatalf("fixture does not give the case: %+v", e)
			}
			b := FromEvolution(e)
			if b.Method != "extractive" || b.NotEnough != tt.notEnough || len(b.New)+len(b.Earlier)+len(b.Timeline) != 0 {
				t.Errorf("brief = %+v", b)
			}
			sameClaims(t, "Then", b.Then, e.Then)
			sameClaims(t, "Now", b.Now, e.Now)
			if got, want := Markdown(b, asOf, 7), e.Markdown(); got != want {
				t.Errorf("Markdown differs from summarize's:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestMarkdown(t *testing.T) {
	d := func(s string) time.Time { return at(s) }
	digest := schemas.Brief{
		Method:   "llm:m",
		New:      []schemas.Claim{{Date: d("2024-06-28"), Text: "Raised to 18%.", Cites: []int{1, 2}}},
		Earlier:  []schemas.Claim{{Date: d("2023-12-15"), Text: "Raised to  16%.", Cites: []int{4}}},
		Timeline: []schemas.Claim{{Date: d("2023-12-15"), Text: "Raised to 16%.", Cites: []int{4}}, {Date: d("2024-06-28"), Text: "Raised to 18%.", Cites: []int{1, 2}}},
	}
	tests := []struct {
		name    string
		b       schemas.Brief
		newDays int
		want    string
	}{
		{
			name: "digest", b: digest, newDays: 7,
			want: "### New in the last 7 days\n- 2024-06-28 — Raised to 18%. [1][2]\n\n" +
				"### Earlier context\n- 2023-12-15 — Raised to 16%. [4]\n\n" +
				"### Timeline\n- 2023-12-15 — Raised to 16%. [4]\n- 2024-06-28 — Raised to 18%. [1][2]\n",
		},
		{
			name: "one-day window and empty sections", b: schemas.Brief{Timeline: digest.Timeline[:1]}, newDays: 1,
			want: "### New in the last day\n- None.\n\n### Earlier context\n- None.\n\n### Timeline\n- 2023-12-15 — Raised to 16%. [4]\n",
		},
		{
			name: "no window", b: schemas.Brief{Earlier: digest.Earlier, Timeline: digest.Earlier}, newDays: 0,
			want: "### Earlier context\n- 2023-12-15 — Raised to 16%. [4]\n\n### Timeline\n- 2023-12-15 — Raised to 16%. [4]\n",
		},
		{
			name: "not enough, no claims", b: schemas.Brief{NotEnough: true, New: []schemas.Claim{}}, newDays: 7,
			want: "Not enough information in the documents up to 2024-06-30 to answer.\n",
		},
		{
			name: "not enough with partial claims and a note", b: schemas.Brief{NotEnough: true, Note: "LLM summary\nreplaced.", Timeline: digest.Timeline[:1]}, newDays: 0,
			want: "_LLM summary replaced._\n\nNot enough information in the documents up to 2024-06-30 to answer.\n\n" +
				"### Earlier context\n- None.\n\n### Timeline\n- 2023-12-15 — Raised to 16%. [4]\n",
		},
		{
			name: "evolution", b: schemas.Brief{Then: digest.Earlier, Now: []schemas.Claim{}}, newDays: 7,
			want: "### Then\n- 2023-12-15 — Raised to 16%. [4]\n\n### Now\n- None.\n",
		},
		{
			name: "claim without date or cites", b: schemas.Brief{Now: []schemas.Claim{{Text: "Undated."}}}, newDays: 7,
			want: "### Then\n- None.\n\n### Now\n- Undated.\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Markdown(tt.b, asOf, tt.newDays)
			if got != tt.want {
				t.Errorf("Markdown:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestLLMMarkdownMatchesExtractive renders a parsed LLM reply and checks the result has the
// shape of an extractive one (headings, line form).
func TestLLMMarkdownMatchesExtractive(t *testing.T) {
	b, err := ParseBrief(goodDigest, fixture(), asOf, newDays)
	if err != nil {
		t.Fatal(err)
	}
	got := Markdown(b, asOf, newDays)
	want := "### New in the last 7 days\n" +
		"- 2024-06-28 — The key rate was raised to 18% on 28 June 2024; the next meeting is on 2024-07-26. [1]\n" +
		"- 2024-06-25 — Analysts expected the rate to stay at 16%. [2]\n\n" +
		"### Earlier context\n" +
		"- 2024-05-10 — The rate was held at 16% on April 26, 2024. [3]\n" +
		"- 2024-05-10 — Регулятор сохранил ставку 26 апреля 2024 года. [3][4]\n" +
		"- 2023-12-15 — The key rate was raised to 16%. [4]\n\n" +
		"### Timeline\n" +
		"- 2023-12-15 — The key rate was raised to 16%. [4]\n" +
		"- 2024-05-10 — The rate was held at 16% on April 26, 2024. [3]\n" +
		"- 2024-05-10 — Регулятор сохранил ставку 26 апреля 2024 года. [3][4]\n" +
		"- 2024-06-28 — The key rate was raised to 18%. [1][2]\n"
	if got != want {
		t.Errorf("Markdown:\n got %q\nwant %q", got, want)
	}
}
