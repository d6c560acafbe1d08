package lifecycle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/schemas"
)

func dayOf(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseKind(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{"", "", false}, {"news", "news", false}, {" Standing ", "standing", false}, {"NEWS", "news", false},
		{"regulation", "", true}, {"stand", "", true},
	} {
		got, err := ParseKind(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseKind(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"RBI circular", "RBI/2025-26/252 DOR.ACC.REC.No.118/21-02-067/2025-26 dated March 10, 2026", []string{"rbi/2025 26/252", "dor acc rec no 118/21 02 067/2025 26"}},
		{"SEBI circular", "Circular SEBI/HO/CFD/CMD1/CIR/P/2020/12 dated January 22, 2020", []string{"sebi/ho/cfd/cmd1/cir/p/2020/12"}},
		{"numbered circular", "in supersession of Circular No. 24 and Notification No. 5/2020", []string{"circular no 24", "notification no 5/2020"}},
		{"FEMA", "Notification No. FEMA 6(R)/2026-RB", []string{"notification no fema 6(r)/2026 rb", "fema 6(r)/2026 rb"}},
		{"Russian", "Указание Банка России от 01.01.2020 № 5678-У утратило силу", []string{"no 5678 у"}},
		{"Chinese", "《通知》（银发〔2023〕12号）同时废止", []string{"银发(2023)12号"}},
		{"none", "The Alternative Investment Fund shall not accept from an investor less than one crore rupees.", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Identifiers(tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("Identifiers = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestInstrumentAndProvision(t *testing.T) {
	for _, tc := range []struct {
		title, key string
		revised    bool
	}{
		{"Auction of State Government Securities (Revised)", "auction of state government securities", true},
		{"Auction of State Government Securities", "auction of state government securities", false},
		{"Securities and Exchange Board of India (Mutual Funds) Regulations, 1996", "securities and exchange board of india (mutual funds) regulations 1996", false},
		{"Указание о ставках (новая редакция)", "указание о ставках", true},
		{"关于调整存款准备金率的通知（修订）", "关于调整存款准备金率的通知", true},
	} {
		if key, rev := Instrument(tc.title); key != tc.key || rev != tc.revised {
			t.Errorf("Instrument(%q) = %q, %v; want %q, %v", tc.title, key, rev, tc.key, tc.revised)
		}
	}
	for _, tc := range []struct{ text, want string }{
		{"Regulation 21(1) (original, pre-2023): An investment adviser shall redress", "regulation 21(1)"},
		{"Regulation 2(1)(pa) (as amended w.e.f. 19-11-2025): 'large value fund'", "regulation 2(1)(pa)"},
		{"Regulation 14(g) (original): the client shall agree", "regulation 14(g)"},
		{"Section 4(2)(b) of the Act", "section 4(2)(b)"},
		{"Reg. 31A: disclosure", "regulation 31a"},
		{"Статья 5. Ключевая ставка", "статья 5"},
		{"第十二条 本办法自发布之日起施行", "第十二条"},
		{"Regulation 3(2) proviso (inserted by Amendment Regulations, 2020): Provided that", "regulation 3(2)"},
		{"No scheme of the Alternative Investment Fund shall have more than one thousand investors.", ""},
	} {
		if got := Provision(tc.text); got != tc.want {
			t.Errorf("Provision(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestRead(t *testing.T) {
	titles := []string{"securities and exchange board of india (intermediaries) regulations 2008"}
	for _, tc := range []struct {
		name, text string
		refs       []string
		eff        string
	}{
		{"in supersession of", "This Master Direction is issued in supersession of RBI/2024-25/12. It shall come into force on April 1, 2026.", []string{"rbi/2024 25/12"}, "2026-04-01"},
		{"stands repealed, by title", "The Securities and Exchange Board of India (Intermediaries) Regulations, 2008 stand repealed. These regulations come into force w.e.f. 01-07-2026.", []string{titles[0]}, "2026-07-01"},
		{"a citation is not a supersession", "As required under RBI/2024-25/12, banks shall report monthly.", nil, ""},
		{"Russian", "Признать утратившим силу Указание Банка России № 5678-У. Настоящее Указание вступает в силу с 1 января 2025 года.", []string{"no 5678 у"}, "2025-01-01"},
		{"Chinese", "本办法自2024年3月1日起施行，《通知》（银发〔2023〕12号）同时废止。", []string{"银发(2023)12号"}, "2024-03-01"},
		{"latest stated day", "Regulation 15(1) (pre-2018) ... (as substituted w.e.f. 30-05-2018) ... further amended w.e.f. 16-06-2020.", nil, "2020-06-16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := Read(tc.text, titles)
			if !slices.Equal(st.Refs, tc.refs) {
				t.Errorf("refs %q, want %q", st.Refs, tc.refs)
			}
			want := time.Time{}
			if tc.eff != "" {
				want = dayOf(tc.eff)
			}
			if !st.Effective.Equal(want) {
				t.Errorf("effective %s, want %s", st.Effective, want)
			}
		})
	}
}

// doc is a standing document of one version for Resolve's tests.
func doc(id, published, title, text string) Doc {
	return Doc{DocID: id, Version: 1, Kind: Standing, Published: dayOf(published), Title: title, Text: text}
}

// until is what the table says of one version: its end day, reason and what ended it.
func until(t Table, id string, v int32) string {
	for _, e := range t.Entries {
		if e.DocID == id && e.Version == v {
			out := ""
			if !e.Replaced.IsZero() {
				out = fmt.Sprintf("replaced %s by v%d", day2(e.Replaced), e.ReplacedBy)
			}
			if !e.Until.IsZero() {
				out += fmt.Sprintf("%s %s %s %s", day2(e.Until), e.Reason, e.By, e.Basis)
			}
			if out == "" {
				return "-"
			}
			return out
		}
	}
	return "-"
}

func day2(t time.Time) string {
	if t.IsZero() {
		return "∞"
	}
	return t.Format(time.DateOnly)
}

func TestResolve(t *testing.T) {
	const ia = "SEBI (Investment Advisers) Regulations, 2013"
	for _, tc := range []struct {
		name  string
		docs  []Doc
		want  map[string]string // "id v" → until(...)
		warns []string
	}{
		{
			name: "the same provision restated later, a chain",
			docs: []Doc{
				doc("a", "2013-01-01", ia, "Regulation 21(1) (original): An investment adviser shall redress client grievances promptly."),
				doc("b", "2023-08-18", ia, "Regulation 21(1) (as amended w.e.f. 18-08-2023): within twenty-one calendar days."),
				doc("c", "2025-01-01", ia, "Regulation 21(1): within ten days."),
				doc("d", "2013-01-01", ia, "Regulation 22: distribution services."),
			},
			want: map[string]string{"a 1": "2023-08-18 superseded b provision", "b 1": "2025-01-01 superseded c provision", "c 1": "-", "d 1": "-"},
		},
		{
			name: "another instrument's provision of the same number is another provision",
			docs: []Doc{
				doc("a", "2013-01-01", ia, "Regulation 21(1): promptly."),
				doc("b", "2020-01-01", "SEBI (Research Analysts) Regulations, 2014", "Regulation 21(1): within thirty days."),
			},
			want: map[string]string{"a 1": "-", "b 1": "-"},
		},
		{
			name: "a revised notice supersedes the notices of the last day before it",
			docs: []Doc{
				doc("w1", "2026-03-13", "Auction of State Government Securities", "aggregate of ₹40,000 crore"),
				doc("o1", "2026-03-20", "Auction of State Government Securities", "aggregate of ₹55,688 crore"),
				doc("o2", "2026-03-20", "Auction of State Government Securities", "Uttarakhand: 3280 crore"),
				doc("r1", "2026-03-21", "Auction of State Government Securities (Revised)", "aggregate of ₹57,408 crore"),
				doc("r2", "2026-03-21", "Auction of State Government Securities (Revised)", "Uttarakhand: 3500 crore"),
			},
			want: map[string]string{"w1 1": "-", "o1 1": "2026-03-21 superseded r1 revised", "o2 1": "2026-03-21 superseded r2 revised", "r1 1": "-"},
		},
		{
			name: "the supersedes column, by doc id and by identifier; a target missing",
			docs: []Doc{
				doc("c1", "2020-01-01", "Master Circular RBI/2019-20/1", "Master Circular on loans."),
				doc("c2", "2021-01-01", "Master Circular RBI/2020-21/7", "Master Circular on deposits."),
				{DocID: "c3", Version: 1, Kind: Standing, Published: dayOf("2022-04-01"), Title: "Master Direction", Text: "consolidated", Supersedes: []string{"c1", "RBI/2020-21/7", "RBI/1999-00/1"}},
			},
			want:  map[string]string{"c1 1": "2022-04-01 superseded c3 column", "c2 1": "2022-04-01 superseded c3 column"},
			warns: []string{"c3 missing_target"},
		},
		{
			name: "stated in the text, by identifier",
			docs: []Doc{
				doc("c1", "2020-01-01", "Circular RBI/2019-20/1", "on loans"),
				doc("c2", "2024-01-01", "Master Direction", "This Direction is issued in supersession of circular RBI/2019-20/1 dated January 1, 2020."),
				doc("c3", "2024-02-01", "Note", "As required under RBI/2019-20/1, banks report monthly."),
			},
			want: map[string]string{"c1 1": "2024-01-01 superseded c2 stated"},
		},
		{
			name: "a text comes into force after its publication: what it supersedes stays current until then",
			docs: []Doc{
				doc("a", "2013-01-01", ia, "Regulation 8: net worth of fifty lakh rupees."),
				{DocID: "b", Version: 1, Kind: Standing, Published: dayOf("2024-10-01"), Effective: dayOf("2024-12-16"), Title: ia, Text: "Regulation 8: a deposit."},
			},
			want: map[string]string{"a 1": "2024-12-16 superseded b provision"},
		},
		{
			name: "claims that run back in time: not older, and a cycle",
			docs: []Doc{
				{DocID: "old", Version: 1, Kind: Standing, Published: dayOf("2020-01-01"), Title: "A", Text: "x", Supersedes: []string{"new"}},
				doc("new", "2021-01-01", "B", "y"),
				{DocID: "p", Version: 1, Kind: Standing, Published: dayOf("2020-01-01"), Title: "P", Text: "x", Supersedes: []string{"q"}},
				{DocID: "q", Version: 1, Kind: Standing, Published: dayOf("2022-01-01"), Title: "Q", Text: "y", Supersedes: []string{"p"}},
			},
			want:  map[string]string{"old 1": "-", "new 1": "-", "p 1": "2022-01-01 superseded q column"},
			warns: []string{"old not_older", "p cycle"},
		},
		{
			name: "a news item is never superseded",
			docs: []Doc{
				{DocID: "n", Version: 1, Published: dayOf("2020-01-01"), Title: "news", Text: "x"},
				{DocID: "s", Version: 1, Kind: Standing, Published: dayOf("2021-01-01"), Title: "S", Text: "y", Supersedes: []string{"n"}},
			},
			want:  map[string]string{"n 1": "-"},
			warns: []string{"s not_standing"},
		},
		{
			name: "versions: each current until the next is published, whatever its kind",
			docs: []Doc{
				{DocID: "post", Version: 2, Published: dayOf("2025-03-02"), Text: "corrected"},
				{DocID: "post", Version: 1, Published: dayOf("2025-03-01"), Text: "first"},
				{DocID: "post", Version: 3, Published: dayOf("2025-04-01"), Text: "again"},
			},
			want: map[string]string{"post 1": "replaced 2025-03-02 by v2", "post 2": "replaced 2025-04-01 by v3", "post 3": "-"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := Resolve(tc.docs, DefaultOptions())
			for k, want := range tc.want {
				id, v, _ := strings.Cut(k, " ")
				if got := until(tab, id, int32(v[0]-'0')); got != want {
					t.Errorf("%s: %q, want %q", k, got, want)
				}
			}
			var warns []string
			for _, w := range tab.Warnings {
				warns = append(warns, w.DocID+" "+w.Reason)
			}
			slices.Sort(warns)
			if !slices.Equal(warns, tc.warns) {
				t.Errorf("warnings %q, want %q (%+v)", warns, tc.warns, tab.Warnings)
			}
			// The same documents in another order resolve the same.
			rev := slices.Clone(tc.docs)
			slices.Reverse(rev)
			if again := Resolve(rev, DefaultOptions()); fmt.Sprint(again) != fmt.Sprint(tab) {
				t.Errorf("order changed the table:\n%v\n%v", again, tab)
			}
		})
	}
}

// TestRestatements: a later passage of the same instrument that is the older one's closest,
// alike enough, and restates each of its sentences, ranks it after (a soft link); one that
// amends a single sentence of a passage of three does not, nor one that names another provision.
func TestRestatements(t *testing.T) {
	const mf = "SEBI (Mutual Funds) Regulations, 1996"
	v := func(x, y float32) []float32 { return []float32{x, y} }
	near := v(0.99, 0.141) // cosine 0.99 with {1, 0}
	docs := []Doc{
		{DocID: "old", Version: 1, Kind: Standing, Published: dayOf("1996-01-01"), Title: mf, Vec: v(1, 0),
			Text: "No asset management company shall deal in securities through any broker associated with the sponsor beyond 5% of the daily gross business of the mutual fund."},
		{DocID: "new", Version: 1, Kind: Standing, Published: dayOf("1998-01-12"), Title: mf, Vec: near,
			Text: "An asset management company shall not through any broker associated with the sponsor purchase or sell securities of 5 per cent or more of the aggregate business of the mutual fund."},
		{DocID: "three", Version: 1, Kind: Standing, Published: dayOf("2012-01-01"), Title: "AIF", Vec: v(0, 1),
			Text: "Category III funds shall invest not more than ten per cent in an investee company. The fund shall not accept an investment of less than one crore rupees. No scheme shall have more than one thousand investors."},
		{DocID: "one", Version: 1, Kind: Standing, Published: dayOf("2021-08-03"), Title: "AIF", Vec: v(0.141, 0.99),
			Text: "Regulation 15(1)(d): Category III funds shall invest not more than ten per cent in an investee company, and large value funds up to twenty per cent."},
		{DocID: "r7", Version: 1, Kind: Standing, Published: dayOf("2013-01-01"), Title: "IA", Vec: v(1, 0), Text: "Regulation 7(1): qualification in finance."},
		{DocID: "r8", Version: 1, Kind: Standing, Published: dayOf("2020-01-01"), Title: "IA", Vec: near, Text: "Regulation 8(1): qualification in finance and a certificate."},
	}
	tab := Resolve(docs, DefaultOptions())
	if got := until(tab, "old", 1); got != "1998-01-12 restated new restated" {
		t.Errorf("old: %q", got)
	}
	for _, id := range []string{"three", "r7"} {
		if got := until(tab, id, 1); got != "-" {
			t.Errorf("%s: %q, want no entry", id, got)
		}
	}
	o := DefaultOptions()
	o.RestatedCosine = 0
	if got := until(Resolve(docs, o), "old", 1); got != "-" {
		t.Errorf("restatements off: old %q", got)
	}
}

// TestLife: a table applied to rows says, as of each day, which rows are current.
func TestLife(t *testing.T) {
	tab := Resolve([]Doc{
		{DocID: "p", Version: 1, Published: dayOf("2025-03-01"), Text: "first"},
		{DocID: "p", Version: 2, Published: dayOf("2025-03-05"), Text: "corrected"},
		{DocID: "a", Version: 1, Kind: Standing, Published: dayOf("2013-01-01"), Title: "IA", Text: "Regulation 8: fifty lakh."},
		{DocID: "b", Version: 1, Kind: Standing, Published: dayOf("2024-10-01"), Effective: dayOf("2024-12-16"), Title: "IA", Text: "Regulation 8: a deposit."},
	}, DefaultOptions())
	chunks := []schemas.Chunk{{DocID: "p"}, {DocID: "p", Version: 2}, {DocID: "a"}, {DocID: "b"}, {DocID: "other"}}
	l := NewIndex(&tab).Life(chunks)
	for _, tc := range []struct {
		asOf string
		want []bool
	}{
		{"2025-03-04", []bool{true, true, false, true, true}}, // p v2 is not published yet: the publication mask hides it
		{"2025-03-05", []bool{false, true, false, true, true}},
		{"2024-12-15", []bool{true, true, true, false, true}},
		{"2024-12-16", []bool{true, true, false, true, true}},
	} {
		var got []bool
		for i := range chunks {
			got = append(got, l.Allows(i, dayOf(tc.asOf)))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("as of %s: %v, want %v", tc.asOf, got, tc.want)
		}
	}
	if !l.NotYet(3, dayOf("2024-12-15")) || l.NotYet(3, dayOf("2024-12-16")) {
		t.Error("b is not yet in force before 2024-12-16, and is from then on")
	}
	if e, ok := l.Ended(2, dayOf("2025-01-01")); !ok || e.By != "b" || !e.Effective.Equal(dayOf("2024-12-16")) {
		t.Errorf("a ended: %+v %v", e, ok)
	}
	if NewIndex(nil).Life(chunks) != nil || NewIndex(&Table{}).Life(chunks) != nil {
		t.Error("an empty table applies to no shard")
	}
}

// TestResolveProperty: for generated version histories and supersession chains, as of any day
// exactly one version of each document published by then is current, no standing text whose
// superseding text is published and in force by then is current, and a standing text is
// current only from its effective day on.
func TestResolveProperty(t *testing.T) {
	for trial := range 200 {
		rng := rand.New(rand.NewPCG(uint64(trial), 47))
		base := dayOf("2020-01-01")
		var docs []Doc
		var chunks []schemas.Chunk
		type fact struct {
			pub, eff time.Time
			kind     string
		}
		facts := map[Key]fact{}
		n := 2 + rng.IntN(6)
		for i := range n {
			id := fmt.Sprintf("d%d", i)
			kind := []string{News, Standing}[rng.IntN(2)]
			prov := fmt.Sprintf("Regulation %d: text %d", rng.IntN(3), i)
			pub := base.AddDate(0, 0, rng.IntN(300))
			for v := 1; v <= 1+rng.IntN(3); v++ {
				d := Doc{DocID: id, Version: v, Kind: kind, Published: pub, Title: "R", Text: prov}
				if kind == Standing && v == 1 && rng.IntN(3) == 0 {
					d.Effective = pub.AddDate(0, 0, rng.IntN(60))
				}
				if kind == Standing && rng.IntN(3) == 0 {
					d.Supersedes = []string{fmt.Sprintf("d%d", rng.IntN(n))}
				}
				docs = append(docs, d)
				chunks = append(chunks, schemas.Chunk{DocID: id, Version: int32(v), PublishedAt: pub})
				facts[Key{id, int32(v)}] = fact{pub, d.Effective, kind}
				pub = pub.AddDate(0, 0, 1+rng.IntN(60))
			}
		}
		tab := Resolve(docs, DefaultOptions())
		l := NewIndex(&tab).Life(chunks)
		for range 20 {
			a := base.AddDate(0, 0, rng.IntN(500))
			current := map[string]int{}
			for i, c := range chunks {
				if !asofday.Allows(a, c.PublishedAt) || !l.Allows(i, a) {
					continue
				}
				current[c.DocID]++
				f := facts[Key{c.DocID, c.Version}]
				if f.kind == Standing && !f.eff.IsZero() && asofday.Start(a).Before(asofday.Start(f.eff)) {
					t.Fatalf("trial %d as of %s: %s v%d is current before it is in force (%s)", trial, day2(a), c.DocID, c.Version, day2(f.eff))
				}
				// No link whose new text is published and in force by a ends it.
				for _, lk := range tab.Links {
					if lk.Old == c.DocID && !lk.Soft() && !asofday.Start(a).Before(lk.Since) {
						t.Fatalf("trial %d as of %s: %s is current though %s superseded it on %s", trial, day2(a), c.DocID, lk.New, day2(lk.Since))
					}
				}
				// The version served is the latest published by a.
				for v := c.Version + 1; ; v++ {
					f2, ok := facts[Key{c.DocID, v}]
					if !ok {
						break
					}
					if asofday.Allows(a, f2.pub) {
						t.Fatalf("trial %d as of %s: %s v%d is served though v%d is published (%s)", trial, day2(a), c.DocID, c.Version, v, day2(f2.pub))
					}
				}
			}
			for id, k := range current {
				if k != 1 {
					t.Fatalf("trial %d as of %s: %d versions of %s are current", trial, day2(a), k, id)
				}
			}
			// A document published by a that is neither superseded nor waiting to apply has a
			// current version.
			for i, c := range chunks {
				if c.Version != 1 || !asofday.Allows(a, c.PublishedAt) || current[c.DocID] > 0 {
					continue
				}
				f := facts[Key{c.DocID, 1}]
				superseded := false
				for _, lk := range tab.Links {
					superseded = superseded || (lk.Old == c.DocID && !asofday.Start(a).Before(lk.Since))
				}
				if !superseded && !(f.kind == Standing && l.NotYet(i, a)) {
					t.Fatalf("trial %d as of %s: no version of %s is current", trial, day2(a), c.DocID)
				}
			}
		}
	}
}
