package eval

import (
	"slices"
	"testing"
	"time"
)

func TestGrid(t *testing.T) {
	tests := []struct {
		name string
		axes []string
		want []string
		err  bool
	}{
		{"one axis", []string{"wt=0.3,1"}, []string{"s@wt=0.3", "s@wt=1"}, false},
		{"first axis slowest", []string{"wt=0.3,1", "tr=competition,days"},
			[]string{"s@wt=0.3,tr=competition", "s@wt=0.3,tr=days", "s@wt=1,tr=competition", "s@wt=1,tr=days"}, false},
		{"same key twice", []string{"wt=1", "wt=2"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var axes []Axis
			for _, a := range tt.axes {
				ax, err := ParseAxis(a)
				if err != nil {
					t.Fatal(err)
				}
				axes = append(axes, ax)
			}
			got, err := Grid("s", axes)
			if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
				t.Fatalf("Grid = %v, %v; want %v (error %v)", got, err, tt.want, tt.err)
			}
		})
	}
	for _, bad := range []string{"wt", "wt=", "=1", "wt=1,,2", "wt=1,1"} {
		if _, err := ParseAxis(bad); err == nil {
			t.Errorf("ParseAxis(%q) accepted", bad)
		}
	}
}

// TestTune: variants are ranked on the choose span only (a variant that wins only on confirm
// questions is not chosen), and scored on both.
func TestTune(t *testing.T) {
	d := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	choose := Span{Name: "choose", From: d("2022-01-01"), To: d("2022-12-31")}
	confirm := Span{Name: "confirm", From: d("2023-01-01"), To: d("2023-12-31")}
	row := func(sys, day string, ndcg, mrr float64, g2 bool) Scored {
		return Scored{System: sys, AsOf: d(day), PerQuery: PerQuery{Valid: true, HasGrade2: g2, NDCG10: ndcg, MRR: mrr}}
	}
	rows := []Scored{
		row("a", "2022-03-01", 0.8, 1, true), row("a", "2022-12-31", 0.6, 0.5, true), row("a", "2023-01-01", 0.5, 0.5, true),
		row("b", "2022-03-01", 0.7, 1, true), row("b", "2022-12-31", 0.6, 1, true), row("b", "2023-01-01", 0.9, 1, true),
		row("a", "2022-05-01", 0.1, 0, false), row("b", "2022-05-01", 0.9, 0, false), // no grade 2: all-judged only
		row("a", "2021-06-01", 1, 1, true), // outside both spans
	}
	if all := Tune(rows, []string{"a", "b"}, choose, confirm, ObjectiveAll); all[0].System != "b" {
		t.Fatalf("on every judged question b (0.73) leads a (0.5), got %s first", all[0].System)
	}
	got := Tune(rows, []string{"b", "a"}, choose, confirm, ObjectiveG2)
	if got[0].System != "a" || got[1].System != "b" {
		t.Fatalf("order %s, %s; want a (choose grade-2 nDCG 0.70) before b (0.65)", got[0].System, got[1].System)
	}
	a := got[0]
	if a.Choose.G2Questions != 2 || a.Choose.Questions != 3 || !near(a.Choose.NDCG10G2, 0.7) || !near(a.Choose.NDCG10, 0.5) || !near(a.Choose.MRR, 0.75) {
		t.Fatalf("a on choose = %+v", a.Choose)
	}
	if a.Confirm.Questions != 1 || !near(a.Confirm.NDCG10G2, 0.5) || !near(got[1].Confirm.NDCG10G2, 0.9) {
		t.Fatalf("confirm scores a %+v b %+v", a.Confirm, got[1].Confirm)
	}
}
