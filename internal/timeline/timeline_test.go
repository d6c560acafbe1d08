package timeline

import (
	"strings"
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t.Add(9 * time.Hour)
}

func TestBuild(t *testing.T) {
	ps := []Passage{
		{DocID: "a", Lang: "es", Published: at("2011-02-18"), Text: "Ayer murieron 24 personas en Bengasi durante el Día de la Ira."},
		{DocID: "b", Lang: "es", Published: at("2011-02-18"), Text: "El jueves murieron 24 manifestantes en Bengasi, según Al Jazeera."},
		{DocID: "c", Lang: "fr", Published: at("2011-02-19"), Text: "Le 17 février, la journée de colère a fait 24 morts à Benghazi."},
		{DocID: "d", Lang: "it", Published: at("2011-03-20"), Text: "La Francia avvia i primi raid aerei ieri contro le truppe di Gheddafi. Il vertice di domani a Londra."},
		{DocID: "e", Lang: "es", Published: at("2011-03-25"), Text: "Published after the anchor: el 17 de febrero y el 19 de marzo."},
	}
	tl := Build(ps, Options{AsOf: at("2011-03-20"), Dates: 2})
	if tl.Passages != 4 {
		t.Errorf("read %d passages, want 4 (one is after the anchor)", tl.Passages)
	}
	var got []string
	for _, e := range tl.Entries {
		got = append(got, e.Day.Format(time.DateOnly))
	}
	// 2011-02-17 is mentioned by three documents; 2011-03-19 by one ("ieri"); 2011-02-18 only
	// published on (two documents at half weight) and next to 02-17, so it is discounted.
	if strings.Join(got, " ") != "2011-02-17 2011-03-19" {
		t.Fatalf("days %v, want 2011-02-17 2011-03-19", got)
	}
	e := tl.Entries[0]
	if e.Documents != 3 || len(e.Sentences) != 1 || !e.Sentences[0].Mentioned {
		t.Errorf("2011-02-17: %+v", e)
	}
	for _, e := range Build(ps, Options{AsOf: at("2011-03-20"), Dates: 50}).Entries {
		if e.Day.After(at("2011-03-20")) {
			t.Errorf("day %s after the anchor (domani from a text of the anchor's day)", e.Day)
		}
		for _, s := range e.Sentences {
			if s.DocID == "e" {
				t.Errorf("a sentence of a document published after the anchor: %+v", s)
			}
		}
	}
	if n := len(Build(ps, Options{AsOf: at("2011-03-20"), From: at("2011-03-01"), Dates: 50}).Entries); n != 2 {
		t.Errorf("with From 2011-03-01: %d days, want 2 (03-19 mentioned, 03-20 published)", n)
	}
}

func TestPickPrefersAgreement(t *testing.T) {
	sents := []Sentence{
		{DocID: "a", Text: "The weather was mild in the capital today, officials noted.", Mentioned: true},
		{DocID: "b", Text: "Rebels took the airport of Misrata after heavy fighting.", Mentioned: true},
		{DocID: "c", Text: "Rebels said the Misrata airport fell after fighting that killed twelve.", Mentioned: true},
		{DocID: "d", Text: "The airport of Misrata is in rebel hands, fighters said.", Mentioned: true},
	}
	got := pick(sents, 2)
	if len(got) != 2 || got[0].DocID == "a" || got[1].DocID == "a" || got[0].DocID == got[1].DocID {
		t.Fatalf("picked %+v: want two of the agreeing sentences, not the weather", got)
	}
}

func TestDefaultDates(t *testing.T) {
	for _, c := range []struct {
		span       time.Duration
		cands, out int
	}{{0, 100, 10}, {70 * 24 * time.Hour, 100, 11}, {3 * 365 * 24 * time.Hour, 100, 40}, {365 * 24 * time.Hour, 5, 5}} {
		if got := DefaultDates(c.span, c.cands); got != c.out {
			t.Errorf("DefaultDates(%v, %d) = %d, want %d", c.span, c.cands, got, c.out)
		}
	}
}

func TestBuildShowsASentenceOnce(t *testing.T) {
	ps := []Passage{
		{DocID: "a", Lang: "fr", Published: at("2011-03-24"), Text: "La coalition a bombardé Tripoli dans la nuit de mardi à mercredi."},
		{DocID: "b", Lang: "fr", Published: at("2011-03-24"), Text: "Mardi, Kadhafi est apparu en public à Tripoli. La coalition a bombardé Tripoli dans la nuit de mardi à mercredi."},
	}
	tl := Build(ps, Options{AsOf: at("2011-03-25"), Dates: 2})
	if len(tl.Entries) != 2 {
		t.Fatalf("%d days, want 2", len(tl.Entries))
	}
	if a, b := tl.Entries[0].Text(), tl.Entries[1].Text(); a == b {
		t.Errorf("both days show %q", a)
	}
}
