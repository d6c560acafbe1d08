package brief

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/schemas"
)

// claimLines renders claims as "YYYY-MM-DD [1 3] text".
func claimLines(cs []schemas.Claim) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s %v %s", c.Date.Format(evidence.DateLayout), c.Cites, c.Text))
	}
	return out
}

// digestReplyWith is a reply with the given "new" and "timeline" arrays (JSON text).
func digestReplyWith(news, timeline string) string {
	return `{"not_enough":false,"new":` + news + `,"timeline":` + timeline + `}`
}

// okTimeline is a valid timeline for replies that test "new".
const okTimeline = `[{"date":"2024-06-28","text":"The rate was raised to 18%.","cites":[1]}]`

// wantProblems checks that err is a *CheckError wrapping ErrCheck whose problems contain
// each of want, and that there are exactly len(want) problems when exact.
func wantProblems(t *testing.T, err error, want []string, exact bool) {
	t.Helper()
	var ce *CheckError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCheck) {
		t.Fatalf("err = %v, want a *CheckError wrapping ErrCheck", err)
	}
	joined := strings.Join(ce.Problems, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("problems do not mention %q:\n%s", w, joined)
		}
	}
	if exact && len(ce.Problems) != len(want) {
		t.Errorf("got %d problems, want %d:\n%s", len(ce.Problems), len(want), joined)
	}
}

func TestParseDigestAccepts(t *testing.T) {
	tests := []struct {
		name                       string
		reply                      string
		newDays                    int
		notEnough                  bool
		wantNew, wantEarlier, want []string // want: the timeline
	}{
		{
			name:    "good reply: new freshest first, earlier from the timeline, marks stripped, cites deduplicated and sorted",
			reply:   goodDigest,
			newDays: newDays,
			wantNew: []string{
				"2024-06-28 [1] The key rate was raised to 18% on 28 June 2024; the next meeting is on 2024-07-26.",
				"2024-06-25 [2] Analysts expected the rate to stay at 16%.",
			},
			wantEarlier: []string{
				"2024-05-10 [3] The rate was held at 16% on April 26, 2024.",
				"2024-05-10 [3 4] Регулятор сохранил ставку 26 апреля 2024 года.",
				"2023-12-15 [4] The key rate was raised to 16%.",
			},
			want: []string{
				"2023-12-15 [4] The key rate was raised to 16%.",
				"2024-05-10 [3] The rate was held at 16% on April 26, 2024.",
				"2024-05-10 [3 4] Регулятор сохранил ставку 26 апреля 2024 года.",
				"2024-06-28 [1 2] The key rate was raised to 18%.",
			},
		},
		{
			name:    "one ```json fence around the object",
			reply:   "```json\n" + digestReplyWith(`[]`, okTimeline) + "\n```",
			newDays: newDays, wantNew: []string{}, wantEarlier: []string{},
			want: []string{"2024-06-28 [1] The rate was raised to 18%."},
		},
		{
			name:    "bare ``` fence",
			reply:   "```\n" + digestReplyWith(`[]`, okTimeline) + "```",
			newDays: newDays, wantNew: []string{}, wantEarlier: []string{},
			want: []string{"2024-06-28 [1] The rate was raised to 18%."},
		},
		{
			name:    "not enough with no claims",
			reply:   `{"not_enough":true,"new":[],"timeline":[]}`,
			newDays: newDays, notEnough: true, wantNew: []string{}, wantEarlier: []string{}, want: []string{},
		},
		{
			name:    "not enough with missing lists",
			reply:   `{"not_enough":true}`,
			newDays: newDays, notEnough: true, wantNew: []string{}, wantEarlier: []string{}, want: []string{},
		},
		{
			name:    "not enough with partial claims keeps them",
			reply:   `{"not_enough":true,"new":[{"text":"Analysts expected 16%.","cites":[2]}],"timeline":[]}`,
			newDays: newDays, notEnough: true,
			wantNew: []string{"2024-06-25 [2] Analysts expected 16%."}, wantEarlier: []string{}, want: []string{},
		},
		{
			name:    "new window of 1 day: the timeline entry of 2024-06-28 is earlier",
			reply:   digestReplyWith(`[]`, okTimeline),
			newDays: 1, wantNew: []string{},
			wantEarlier: []string{"2024-06-28 [1] The rate was raised to 18%."},
			want:        []string{"2024-06-28 [1] The rate was raised to 18%."},
		},
		{
			name:    "window boundary: a block of 2024-06-24 is new",
			reply:   digestReplyWith(`[{"text":"Boundary.","cites":[5]}]`, `[{"date":"2024-06-24","text":"Boundary.","cites":[5]}]`),
			newDays: newDays,
			wantNew: []string{"2024-06-24 [5] Boundary."}, wantEarlier: []string{},
			want: []string{"2024-06-24 [5] Boundary."},
		},
		{
			name:    "a timeline freshest first is put in ascending order",
			reply:   digestReplyWith(`[]`, `[{"date":"2024-06-28","text":"Raised to 18%.","cites":[1]},{"date":"2023-12-15","text":"Raised to 16%.","cites":[4]}]`),
			newDays: newDays, wantNew: []string{},
			wantEarlier: []string{"2023-12-15 [4] Raised to 16%."},
			want:        []string{"2023-12-15 [4] Raised to 16%.", "2024-06-28 [1] Raised to 18%."},
		},
		{
			name:    "a scheduled date after the as-of day that a cited document states",
			reply:   digestReplyWith(`[{"text":"The next meeting is on 26 July 2024.","cites":[1]}]`, okTimeline),
			newDays: newDays,
			wantNew: []string{"2024-06-28 [1] The next meeting is on 26 July 2024."}, wantEarlier: []string{},
			want: []string{"2024-06-28 [1] The rate was raised to 18%."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks := append(fixture(), blk(5, "2024-06-24", "", "Boundary day text for the test."))
			blocks[4].Doc.PublishedAt = time.Date(2024, 6, 24, 0, 0, 0, 0, time.UTC)
			b, err := ParseBrief(tt.reply, blocks, asOf, tt.newDays)
			if err != nil {
				t.Fatalf("ParseBrief: %v", err)
			}
			if b.NotEnough != tt.notEnough {
				t.Errorf("NotEnough = %v, want %v", b.NotEnough, tt.notEnough)
			}
			for _, c := range []struct {
				name      string
				got, want []string
			}{{"New", claimLines(b.New), tt.wantNew}, {"Earlier", claimLines(b.Earlier), tt.wantEarlier}, {"Timeline", claimLines(b.Timeline), tt.want}} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
				}
			}
			if b.Method != "" || b.Then != nil || b.Now != nil {
				t.Errorf("Method %q, Then %v, Now %v: want empty", b.Method, b.Then, b.Now)
			}
		})
	}
}

func TestParseDigestRejects(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		noNew bool     // newDays 0 instead of 7
		want  []string // each a problem, exactly
	}{
		{name: "prose before the object", reply: "Here is the digest: " + digestReplyWith(`[]`, okTimeline),
			want: []string{"the reply is not a JSON object"}},
		{name: "empty reply", reply: "  ", want: []string{"the reply is not a JSON object"}},
		{name: "JSON array", reply: `[` + okTimeline + `]`, want: []string{"the reply is not a JSON object"}},
		{name: "truncated JSON", reply: `{"not_enough":false,"new":[`, want: []string{"not valid JSON"}},
		{name: "two fences", reply: "```json\n{}\n```\n```json\n{}\n```", want: []string{"not a JSON object"}},
		{name: "text after the object", reply: digestReplyWith(`[]`, okTimeline) + " Hope this helps!", want: []string{"not valid JSON"}},
		{name: "text is not a string", reply: digestReplyWith(`[{"text":5,"cites":[1]}]`, okTimeline), want: []string{"not valid JSON"}},
		{name: "empty text", reply: digestReplyWith(`[{"text":"  ","cites":[1]}]`, okTimeline), want: []string{"new #1: has no text"}},
		{name: "text only a citation mark", reply: digestReplyWith(`[{"text":"[1]","cites":[1]}]`, okTimeline), want: []string{"new #1: has no text"}},
		{name: "placeholder text", reply: digestReplyWith(`[{"text":"…","cites":[1]}]`, okTimeline), want: []string{"new #1: text \"…\" says nothing (a placeholder?): write the claim itself"}},
		{name: "the question restated as a claim", reply: digestReplyWith(`[{"text":"The House was stuck. Which Republican suffered a string of defeats?","cites":[1]}]`, okTimeline),
			want: []string{`new #1: asks a question ("The House was stuck. Which Republican suffered a string of defeats?"): a claim states what the documents say`}},
		{name: "a question in quotes", reply: digestReplyWith(`[]`, `[{"date":"2024-06-28","text":"«Что будет со ставкой?» — спросил аналитик.","cites":[1]}]`),
			want: []string{`timeline #1: asks a question`}},
		{name: "a full-width question mark", reply: digestReplyWith(`[{"text":"央行会降息吗？","cites":[1]}]`, okTimeline),
			want: []string{`new #1: asks a question ("央行会降息吗？")`}},
		{name: "no cites", reply: digestReplyWith(`[{"text":"The rate rose.","cites":[]}]`, okTimeline),
			want: []string{"new #1: cites no document"}},
		{name: "missing cites", reply: digestReplyWith(`[{"text":"The rate rose."}]`, okTimeline),
			want: []string{"new #1: cites no document"}},
		{name: "cite of no block", reply: digestReplyWith(`[{"text":"The rate rose.","cites":[1,9]}]`, okTimeline),
			want: []string{"new #1: cites [9], but there is no document [9]"}},
		{name: "cite 0", reply: digestReplyWith(`[]`, `[{"date":"2024-06-28","text":"x","cites":[1,0]}]`),
			want: []string{"timeline #1: cites [0], but there is no document [0]"}},
		{name: "cite as a string", reply: digestReplyWith(`[{"text":"The rate rose.","cites":["1"]}]`, okTimeline),
			want: []string{`new #1: cite "1" is not a document number`}},
		{name: "fractional cite", reply: digestReplyWith(`[{"text":"The rate rose.","cites":[1.5,1]}]`, okTimeline),
			want: []string{`new #1: cite 1.5 is not a document number`}},
		{name: "mark in text not among cites", reply: digestReplyWith(`[{"text":"The rate rose [3].","cites":[1]}]`, okTimeline),
			want: []string{"new #1: its text has the mark [3], which is not among its cites"}},
		{name: "ISO date not in the cited documents", reply: digestReplyWith(`[{"text":"The rate rose on 2024-06-27.","cites":[1]}]`, okTimeline),
			want: []string{`new #1: date "2024-06-27" (2024-06-27) is not in the documents it cites ([1] 2024-06-28)`}},
		{name: "English day-month date not in the documents", reply: digestReplyWith(`[{"text":"The rate rose on 2 March 2023.","cites":[1]}]`, okTimeline),
			want: []string{`new #1: date "2 March 2023" (2023-03-02) is not in the documents`}},
		{name: "English month-day date not in the documents", reply: digestReplyWith(`[]`, `[{"date":"2024-06-28","text":"Raised on March 2nd, 2023.","cites":[1]}]`),
			want: []string{`timeline #1: date "March 2nd, 2023" (2023-03-02) is not in the documents`}},
		{name: "abbreviated month", reply: digestReplyWith(`[]`, `[{"date":"2024-06-28","text":"Raised on Jun. 27, 2024.","cites":[1]}]`),
			want: []string{`timeline #1: date "Jun. 27, 2024" (2024-06-27) is not in the documents`}},
		{name: "Russian date not in the documents", reply: digestReplyWith(`[{"text":"Ставку повысили 2 марта 2023 года.","cites":[1]}]`, okTimeline),
			want: []string{`new #1: date "2 марта 2023" (2023-03-02) is not in the documents`}},
		{name: "date written in a document the claim does not cite", reply: digestReplyWith(`[{"text":"Held on 2024-04-26.","cites":[1]}]`, okTimeline),
			want: []string{`new #1: date "2024-04-26" (2024-04-26) is not in the documents it cites`}},
		{name: "new claim citing only older documents", reply: digestReplyWith(`[{"text":"The rate was held.","cites":[3]}]`, okTimeline),
			want: []string{"new #1: cites no document published in the new window, 2024-06-24 to 2024-06-30"}},
		{name: "new claim with no new window", reply: digestReplyWith(`[{"text":"The rate rose.","cites":[1]}]`, okTimeline), noNew: true,
			want: []string{`new #1: cites no document published in the new window (none: "new" must be [])`}},
		{name: "timeline without a date", reply: digestReplyWith(`[]`, `[{"text":"The rate rose.","cites":[1]}]`),
			want: []string{`timeline #1: has no "date"`}},
		{name: "timeline date not ISO", reply: digestReplyWith(`[]`, `[{"date":"June 28","text":"The rate rose.","cites":[1]}]`),
			want: []string{`timeline #1: date "June 28" is not a date in YYYY-MM-DD form`}},
		{name: "timeline date after the as-of day", reply: digestReplyWith(`[]`, `[{"date":"2024-07-01","text":"The rate rose.","cites":[1]}]`),
			want: []string{"timeline #1: date 2024-07-01 is after the as-of day 2024-06-30"}},
		{name: "timeline date not a publication date of a cited block", reply: digestReplyWith(`[]`, `[{"date":"2024-06-25","text":"The rate rose.","cites":[1]}]`),
			want: []string{"timeline #1: date 2024-06-25 is not the publication date of a document it cites ([1] 2024-06-28)"}},
		{name: "no claims and not_enough false", reply: `{"not_enough":false,"new":[],"timeline":[]}`,
			want: []string{"there are no claims and not_enough is false"}},
		{name: "empty object", reply: `{}`, want: []string{"there are no claims and not_enough is false"}},
		{name: "new claims but no timeline", reply: digestReplyWith(`[{"text":"The rate rose.","cites":[1]}]`, `[]`),
			want: []string{"the timeline is empty and not_enough is false"}},
		{name: "not_enough with a bad claim is still checked", reply: `{"not_enough":true,"new":[{"text":"x","cites":[7]}]}`,
			want: []string{"new #1: cites [7], but there is no document [7]"}},
		{
			name: "every problem is reported at once",
			reply: digestReplyWith(`[{"text":"","cites":[9]},{"text":"On 2020-01-01.","cites":[4]}]`,
				`[{"date":"2024-06-28","text":"a","cites":[1]},{"date":"2024-06-25","text":"b","cites":[2]},{"date":"2024-05-10","text":"c","cites":[1]}]`),
			want: []string{
				"new #1: cites [9], but there is no document [9]",
				"new #1: has no text",
				`new #2: date "2020-01-01" (2020-01-01) is not in the documents it cites`,
				"new #2: cites no document published in the new window",
				"timeline #3: date 2024-05-10 is not the publication date of a document it cites",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nd := newDays
			if tt.noNew {
				nd = 0
			}
			b, err := ParseBrief(tt.reply, fixture(), asOf, nd)
			if err == nil {
				t.Fatalf("accepted: %+v", b)
			}
			wantProblems(t, err, tt.want, true)
		})
	}
}

func TestParseEvolution(t *testing.T) {
	then, now := splitFixture()
	tests := []struct {
		name          string
		reply         string
		notEnough     bool
		wantThen, now []string
		problems      []string // nil: accepted
	}{
		{
			name: "good reply: then oldest first, now freshest first, change ignored", reply: goodEvolution,
			wantThen: []string{"2023-12-15 [4] The key rate was raised to 16%.", "2024-05-10 [3] The key rate was held at 16% on 2024-04-26."},
			now:      []string{"2024-06-28 [1 2] The key rate was raised to 18%.", "2024-06-25 [2] Analysts expected 16%."},
		},
		{name: "one side empty", reply: `{"not_enough":false,"then":[],"now":[{"text":"Raised to 18%.","cites":[1]}]}`,
			wantThen: []string{}, now: []string{"2024-06-28 [1] Raised to 18%."}},
		{name: "not enough", reply: "```json\n{\"not_enough\":true,\"then\":[],\"now\":[]}\n```", notEnough: true,
			wantThen: []string{}, now: []string{}},
		{name: "then claim cites a newer block", reply: `{"then":[{"text":"Raised.","cites":[4,1]}],"now":[]}`,
			problems: []string{`then #1: cites [1], a NEWER document; "then" claims cite only OLDER documents ([3], [4])`}},
		{name: "now claim cites an older block", reply: `{"then":[],"now":[{"text":"Raised.","cites":[3]}]}`,
			problems: []string{`now #1: cites [3], an OLDER document; "now" claims cite only NEWER documents ([1], [2])`}},
		{name: "cite of no block", reply: `{"then":[],"now":[{"text":"Raised.","cites":[1,12]}]}`,
			problems: []string{"now #1: cites [12], but there is no document [12]"}},
		{name: "date not in the cited documents", reply: `{"then":[{"text":"Raised on 15 December 2023.","cites":[3]}],"now":[]}`,
			problems: []string{`then #1: date "15 December 2023" (2023-12-15) is not in the documents it cites ([3] 2024-05-10)`}},
		{name: "no claims and not_enough false", reply: `{"not_enough":false,"then":[],"now":[],"change":"none"}`,
			problems: []string{"there are no claims and not_enough is false"}},
		{name: "not JSON", reply: `Then: 16%. Now: 18%.`, problems: []string{"the reply is not a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ParseEvolution(tt.reply, then, now, asOf)
			if tt.problems != nil {
				if err == nil {
					t.Fatalf("accepted: %+v", b)
				}
				wantProblems(t, err, tt.problems, true)
				return
			}
			if err != nil {
				t.Fatalf("ParseEvolution: %v", err)
			}
			if got := claimLines(b.Then); !reflect.DeepEqual(got, tt.wantThen) {
				t.Errorf("Then:\n got %q\nwant %q", got, tt.wantThen)
			}
			if got := claimLines(b.Now); !reflect.DeepEqual(got, tt.now) {
				t.Errorf("Now:\n got %q\nwant %q", got, tt.now)
			}
			if b.NotEnough != tt.notEnough || len(b.New)+len(b.Earlier)+len(b.Timeline) != 0 || b.Note != "" {
				t.Errorf("NotEnough %v New %v Earlier %v Timeline %v Note %q", b.NotEnough, b.New, b.Earlier, b.Timeline, b.Note)
			}
		})
	}
}

func TestParseInputErrors(t *testing.T) {
	future := fixture()
	future[0].Doc.PublishedAt = time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC)
	dup := fixture()
	dup[1].N = 1
	zero := fixture()
	zero[3].N = 0
	lastInstant := fixture()
	lastInstant[1].Doc.PublishedAt = time.Date(2024, 6, 30, 23, 59, 59, 0, time.UTC)
	tests := []struct {
		name    string
		blocks  []evidence.Block
		asOf    time.Time
		newDays int
		ok      bool
	}{
		{name: "block after the as-of day", blocks: future, asOf: asOf, newDays: newDays},
		{name: "block at the last instant of the as-of day", blocks: lastInstant, asOf: asOf, newDays: newDays, ok: true},
		{name: "duplicate block number", blocks: dup, asOf: asOf, newDays: newDays},
		{name: "block number 0", blocks: zero, asOf: asOf, newDays: newDays},
		{name: "zero as-of", blocks: fixture(), newDays: newDays},
		{name: "negative new days", blocks: fixture(), asOf: asOf, newDays: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseBrief(goodDigest, tt.blocks, tt.asOf, tt.newDays)
			if tt.ok {
				if err != nil {
					t.Fatalf("ParseBrief: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInput) || errors.Is(err, ErrCheck) {
				t.Errorf("ParseBrief err = %v, want ErrInput only", err)
			}
			if tt.newDays < 0 {
				return
			}
			_, err = ParseEvolution(goodEvolution, tt.blocks[2:], tt.blocks[:2], tt.asOf)
			if !errors.Is(err, ErrInput) {
				t.Errorf("ParseEvolution err = %v, want ErrInput", err)
			}
		})
	}
}

func TestFindDates(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"On 2024-06-28T10:00 and 2023-12-15.", []string{"2024-06-28", "2023-12-15"}},
		{"2 March 2023, 2nd of March 2023, 21 Sept. 2024", []string{"2023-03-02", "2023-03-02", "2024-09-21"}},
		{"March 2, 2023 and Dec 1 2022 and MAY 5, 2020", []string{"2023-03-02", "2022-12-01", "2020-05-05"}},
		{"2 марта 2023 года; 15 Декабря 2023", []string{"2023-03-02", "2023-12-15"}},
		{"No dates: 18% in 2024, March 2023, 12/03/2023, 20240628, Marching 2 2023.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			var got []string
			for _, d := range findDates(tt.text) {
				got = append(got, d.civil.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findDates = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckErrorMessage(t *testing.T) {
	var ps []string
	for i := range 25 {
		ps = append(ps, fmt.Sprintf("p%d", i))
	}
	msg := (&CheckError{Problems: ps}).Error()
	if !strings.Contains(msg, "p19; and 5 more") || strings.Contains(msg, "p20") {
		t.Errorf("message = %q", msg)
	}
	rm := RepairMessage(ps, BriefFormat)
	if !strings.Contains(rm, "- p19\n- … and 5 more\n") || strings.Contains(rm, "p20") || !strings.Contains(rm, BriefFormat) {
		t.Errorf("repair message = %q", rm)
	}
}

// FuzzParseDigest checks that any reply is either accepted with every invariant holding or
// rejected with a *CheckError, never a panic.
func FuzzParseDigest(f *testing.F) {
	f.Add(goodDigest)
	f.Add(digestReplyWith(`[{"text":"x [1]","cites":[1]}]`, okTimeline))
	f.Add(`{"not_enough":true}`)
	f.Add("```json\n{\"new\":[{\"text\":\"On 2 March 2023\",\"cites\":[3]}]}\n```")
	f.Fuzz(func(t *testing.T, reply string) {
		blocks := fixture()
		b, err := ParseBrief(reply, blocks, asOf, newDays)
		if err != nil {
			if !errors.Is(err, ErrCheck) {
				t.Fatalf("err = %v, want ErrCheck", err)
			}
			return
		}
		from := newFrom(asOf, newDays)
		for _, c := range slices.Concat(b.New, b.Timeline) {
			if strings.TrimSpace(c.Text) == "" || len(c.Cites) == 0 || c.Date.After(asOf) {
				t.Fatalf("bad claim %+v", c)
			}
			for _, n := range c.Cites {
				if n < 1 || n > len(blocks) {
					t.Fatalf("claim %+v cites [%d]", c, n)
				}
			}
		}
		for _, c := range b.New {
			if c.Date.Before(from) {
				t.Fatalf("new claim %+v is older than the window", c)
			}
		}
		for i := 1; i < len(b.Timeline); i++ {
			if b.Timeline[i].Date.Before(b.Timeline[i-1].Date) {
				t.Fatalf("timeline not ascending: %+v", b.Timeline)
			}
		}
	})
}

func TestQuestionMark(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Which Republican suffered a string of defeats?", true},
		{"He asked: \"Will rates fall?\" and left.", true},
		{"«Что будет со ставкой?» — спросил аналитик.", true},
		{"降息了吗？", true},
		{"The notice is at https://example.com/a?id=5 since Monday.", false},
		{"The key rate was raised to 18%.", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := questionMark.MatchString(tt.text); got != tt.want {
			t.Errorf("questionMark(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	if got := clip("abcdef", 4); got != "abc…" {
		t.Errorf("clip = %q, want abc…", got)
	}
	if got := clip("abc", 4); got != "abc" {
		t.Errorf("clip = %q, want abc", got)
	}
}

func TestScriptOf(t *testing.T) {
	tests := []struct {
		query string
		want  *unicode.RangeTable
	}{
		{"курс доллара к рублю", unicode.Cyrillic},
		{"Как изменилась ключевая ставка ЦБ в 2024?", unicode.Cyrillic},
		{"央行降息了吗", unicode.Han},
		{"key rate", nil},                         // Latin questions are not checked
		{"нефть Brent", nil},                      // half and half
		{"Brent нефть цены ЦБ", unicode.Cyrillic}, // 11 of 16 letters
		{"2024", nil},
	}
	for _, tt := range tests {
		if got := scriptOf(tt.query); got != tt.want {
			t.Errorf("scriptOf(%q) = %v, want %v", tt.query, scriptNames[got], scriptNames[tt.want])
		}
	}
}

// TestClaimInTheQuestionsLanguage: a Russian question's claim with no Cyrillic letter fails
// its check; one with a Latin name in it passes; ParseBrief alone checks no language.
func TestClaimInTheQuestionsLanguage(t *testing.T) {
	reply := digestReplyWith(`[{"text":"The rate was raised to 18%.","cites":[1]}]`,
		`[{"date":"2024-06-28","text":"ЦБ повысил ставку до 18%, сообщает Reuters.","cites":[1]}]`)
	_, err := parseBrief(reply, fixture(), asOf, newDays, scriptOf("ключевая ставка"))
	wantProblems(t, err, []string{`new #1: is not in the language of the question ("The rate was raised to 18%."): write it in the question's language (Cyrillic script`}, true)
	if _, err := ParseBrief(reply, fixture(), asOf, newDays); err != nil {
		t.Errorf("ParseBrief: %v", err)
	}
	then, now := splitFixture()
	ev := `{"not_enough":false,"then":[{"text":"Ставка была 16%.","cites":[3]}],"now":[{"text":"Raised to 18%.","cites":[1]}]}`
	_, err = parseEvolution(ev, then, now, asOf, unicode.Cyrillic)
	wantProblems(t, err, []string{`now #1: is not in the language of the question`}, true)
}
