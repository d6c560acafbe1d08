package brief

import (
	"reflect"
	"strings"
	"testing"
)

func TestClaimsKeepAtMostMaxCites(t *testing.T) {
	// The fixture with more blocks in the new window: [5] a bank's advert and [6] a weather post,
	// which share few words with the key-rate claims, and [7] a later repost of [2].
	blocks := append(fixture(),
		blk(5, "2024-06-29", "Deposit offer", "A bank offers a deposit at a good rate this summer."),
		blk(6, "2024-06-27", "Weather", "Rain is expected in Moscow on Saturday."),
		blk(7, "2024-06-29", "Analysts on the key rate", "Analysts expected the key rate to stay at 16% at the June meeting."),
	)
	tests := []struct {
		name     string
		news     string // the "new" array
		timeline string // the timeline array
		wantNew  []string
		wantTL   []string
	}{
		{
			name:     "a new claim citing every block keeps the in-window block that states it, then the best supported",
			news:     `[{"text":"The central bank raised the key rate to 18%.","cites":[6,2,5,4,3,1]}]`,
			timeline: okTimeline,
			// [1] states it (in the window); [4] "key rate raised to 16%" (3 terms) follows, then [2]
			// "key rate", first of the blocks with 2 terms in the model's order;
			// dated by the kept block in the window that states it, [1] of 2024-06-28.
			wantNew: []string{"2024-06-28 [1 2 4] The central bank raised the key rate to 18%."},
			wantTL:  []string{"2024-06-28 [1] The rate was raised to 18%."},
		},
		{
			name:     "a written date keeps the block that holds it even with little else in common",
			news:     `[{"text":"Rain on 28 June 2024 and a deposit offer.","cites":[6,5,2,4,3,1]}]`,
			timeline: okTimeline,
			wantNew:  []string{"2024-06-28 [1 5 6] Rain on 28 June 2024 and a deposit offer."}, // [1] shares "28 June 2024"
			wantTL:   []string{"2024-06-28 [1] The rate was raised to 18%."},
		},
		{
			name:     "a timeline entry keeps a block of its date",
			news:     `[]`,
			timeline: `[{"date":"2023-12-15","text":"Analysts expected the key rate to stay.","cites":[1,2,3,5,6,4]}]`,
			wantNew:  []string{},
			wantTL:   []string{"2023-12-15 [1 2 4] Analysts expected the key rate to stay."},
		},
		{
			name:     "three cites or fewer are kept as they are; a new claim is dated by the block in the window that states it",
			news:     `[{"text":"The key rate was raised to 18%.","cites":[5,6,1]}]`,
			timeline: okTimeline,
			// not the earliest in the window ([6], the weather, 2024-06-27) nor the latest ([5], an advert, 2024-06-29)
			wantNew: []string{"2024-06-28 [1 5 6] The key rate was raised to 18%."},
			wantTL:  []string{"2024-06-28 [1] The rate was raised to 18%."},
		},
		{
			name:     "two blocks that state it: the first report dates it",
			news:     `[{"text":"Analysts expected the key rate to stay at 16%.","cites":[7,2]}]`,
			timeline: okTimeline,
			wantNew:  []string{"2024-06-25 [2 7] Analysts expected the key rate to stay at 16%."},
			wantTL:   []string{"2024-06-28 [1] The rate was raised to 18%."},
		},
		{
			name:     "an older block does not date a new claim",
			news:     `[{"text":"The key rate was raised to 18%.","cites":[3,1]}]`,
			timeline: okTimeline,
			wantNew:  []string{"2024-06-28 [1 3] The key rate was raised to 18%."},
			wantTL:   []string{"2024-06-28 [1] The rate was raised to 18%."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ParseBrief(digestReplyWith(tt.news, tt.timeline), blocks, asOf, newDays)
			if err != nil {
				t.Fatalf("ParseBrief: %v", err)
			}
			if got := claimLines(b.New); !reflect.DeepEqual(got, tt.wantNew) {
				t.Errorf("new =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.wantNew, "\n"))
			}
			if got := claimLines(b.Timeline); !reflect.DeepEqual(got, tt.wantTL) {
				t.Errorf("timeline =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.wantTL, "\n"))
			}
			for _, c := range append(b.New, b.Timeline...) {
				if len(c.Cites) > MaxCites {
					t.Errorf("claim %q cites %v, more than %d", c.Text, c.Cites, MaxCites)
				}
			}
		})
	}
}

func TestSupportTerms(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The key rates were raised", "key rais rat"},
		{"央行降息", "央行 行降 降息"},
		{"央 rate", "rat 央"},
	}
	for _, tt := range tests {
		if got := strings.Join(supportTerms(tt.in), " "); got != tt.want {
			t.Errorf("supportTerms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
