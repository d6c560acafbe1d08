package dedup

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// at is noon UTC on 2024-03-01 plus days.
func at(days int) time.Time { return time.Date(2024, 3, 1+days, 12, 0, 0, 0, time.UTC) }

// unit2 is the 2-d unit vector whose cosine with (1, 0) is c.
func unit2(c float64) []float32 { return []float32{float32(c), float32(math.Sqrt(1 - c*c))} }

// angle is the 2-d unit vector at theta radians from (1, 0).
func angle(theta float64) []float32 {
	return []float32{float32(math.Cos(theta)), float32(math.Sin(theta))}
}

type shape struct {
	Best    int
	Members []int
}

func shapes(cs []Cluster) []shape {
	out := make([]shape, len(cs))
	for i, c := range cs {
		out[i] = shape{c.Best, c.Members}
	}
	return out
}

func TestGroup(t *testing.T) {
	def := DefaultOptions()
	step := math.Acos(0.96) // cos(step) = 0.96 ≥ 0.95, cos(2·step) ≈ 0.843 < 0.95
	tests := []struct {
		name  string
		items []Item
		opts  Options
		want  []shape
	}{
		{"empty", nil, def, []shape{}},
		{
			"exact key same day",
			[]Item{{Key: "h", PublishedAt: at(0), Score: 1}, {Key: "h", PublishedAt: at(0).Add(time.Hour), Score: 2}},
			def, []shape{{1, []int{0, 1}}},
		},
		{
			"exact key different day",
			[]Item{{Key: "h", PublishedAt: at(0), Score: 1}, {Key: "h", PublishedAt: at(1), Score: 2}},
			def, []shape{{1, []int{1}}, {0, []int{0}}},
		},
		{
			"exact key compares UTC days, not local ones",
			[]Item{
				{Key: "h", PublishedAt: time.Date(2024, 3, 1, 23, 30, 0, 0, time.UTC), Score: 2},
				{Key: "h", PublishedAt: time.Date(2024, 3, 2, 1, 0, 0, 0, time.FixedZone("MSK", 3*3600)), Score: 1}, // 22:00Z on 1 March
				{Key: "h", PublishedAt: time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC), Score: 0},
			},
			def, []shape{{0, []int{0, 1}}, {2, []int{2}}},
		},
		{
			"empty key never matches exactly",
			[]Item{{PublishedAt: at(0), Score: 1}, {PublishedAt: at(0), Score: 2}},
			def, []shape{{1, []int{1}}, {0, []int{0}}},
		},
		{
			"cosine 0.951 merges",
			[]Item{{Vec: unit2(1), PublishedAt: at(0), Score: 2}, {Vec: unit2(0.951), PublishedAt: at(0), Score: 1}},
			def, []shape{{0, []int{0, 1}}},
		},
		{
			"cosine 0.949 does not",
			[]Item{{Vec: unit2(1), PublishedAt: at(0), Score: 2}, {Vec: unit2(0.949), PublishedAt: at(0), Score: 1}},
			def, []shape{{0, []int{0}}, {1, []int{1}}},
		},
		{
			"cosine exactly at the threshold merges",
			[]Item{{Vec: unit2(1), PublishedAt: at(0), Score: 2}, {Vec: unit2(0.95), PublishedAt: at(0), Score: 1}},
			def, []shape{{0, []int{0, 1}}},
		},
		{
			"day gap 1 merges",
			[]Item{{Vec: unit2(1), PublishedAt: at(0), Score: 2}, {Vec: unit2(0.99), PublishedAt: at(1).Add(11 * time.Hour), Score: 1}},
			def, []shape{{0, []int{0, 1}}},
		},
		{
			"day gap 2 does not",
			[]Item{{Vec: unit2(1), PublishedAt: at(0), Score: 2}, {Vec: unit2(0.99), PublishedAt: at(2).Add(-12 * time.Hour), Score: 1}},
			def, []shape{{0, []int{0}}, {1, []int{1}}},
		},
		{
			"day gap counts calendar days, not hours",
			[]Item{
				{Vec: unit2(1), PublishedAt: time.Date(2024, 3, 1, 0, 1, 0, 0, time.UTC), Score: 2},
				{Vec: unit2(1), PublishedAt: time.Date(2024, 3, 2, 23, 59, 0, 0, time.UTC), Score: 1}, // 47h58m later, 1 day
				{Vec: unit2(1), PublishedAt: time.Date(2024, 3, 3, 0, 0, 0, 0, time.UTC), Score: 0},   // 2 days after item 0
			},
			Options{MinCosine: 0.95, MaxDayGap: 1}, []shape{{0, []int{0, 1, 2}}}, // 2 joins through 1
		},
		{
			"max day gap 0 is same day only",
			[]Item{{Vec: unit2(1), PublishedAt: at(0), Score: 2}, {Vec: unit2(1), PublishedAt: at(1), Score: 1}},
			Options{MinCosine: 0.95, MaxDayGap: 0}, []shape{{0, []int{0}}, {1, []int{1}}},
		},
		{
			"transitive chain A~B, B~C, A!~C",
			[]Item{
				{Vec: angle(0), PublishedAt: at(0), Score: 1},
				{Vec: angle(2 * step), PublishedAt: at(0), Score: 3},
				{Vec: angle(step), PublishedAt: at(0), Score: 2},
			},
			def, []shape{{1, []int{0, 1, 2}}},
		},
		{
			"chain across days through the middle item",
			[]Item{
				{Vec: unit2(1), PublishedAt: at(0), Score: 1},
				{Vec: unit2(1), PublishedAt: at(2), Score: 2},
				{Vec: unit2(1), PublishedAt: at(1), Score: 3},
			},
			def, []shape{{2, []int{0, 1, 2}}},
		},
		{
			"same DocID merges chunks of one document",
			[]Item{
				{DocID: "d1", ChunkID: "d1#0", Vec: angle(0), PublishedAt: at(0), Score: 1},
				{DocID: "d2", ChunkID: "d2#0", Vec: angle(1), PublishedAt: at(0), Score: 2},
				{DocID: "d1", ChunkID: "d1#3", Vec: angle(2), PublishedAt: at(0), Score: 3},
			},
			def, []shape{{2, []int{0, 2}}, {1, []int{1}}},
		},
		{
			"nil vectors group only by key",
			[]Item{{Key: "a", PublishedAt: at(0), Score: 1}, {Key: "b", PublishedAt: at(0), Score: 2}, {Key: "a", Vec: unit2(1), PublishedAt: at(0), Score: 0}},
			def, []shape{{1, []int{1}}, {0, []int{0, 2}}}, // 0 and 2 share a key; 1 has no vector to match
		},
		{
			"tie on score goes to the earliest",
			[]Item{{Key: "h", PublishedAt: at(0).Add(time.Hour), Score: 1}, {Key: "h", PublishedAt: at(0), Score: 1}},
			def, []shape{{1, []int{0, 1}}},
		},
		{
			"tie on score and time goes to the lowest index",
			[]Item{{Key: "h", PublishedAt: at(0), Score: 1}, {Key: "h", PublishedAt: at(0), Score: 1}},
			def, []shape{{0, []int{0, 1}}},
		},
		{
			"clusters tied on score are ordered by best index",
			[]Item{{Key: "a", PublishedAt: at(0), Score: 1}, {Key: "b", PublishedAt: at(0), Score: 5}, {Key: "c", PublishedAt: at(0), Score: 1}},
			def, []shape{{1, []int{1}}, {0, []int{0}}, {2, []int{2}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Group(tt.items, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if g := shapes(got); !reflect.DeepEqual(g, tt.want) {
				t.Fatalf("Group = %+v\nwant    %+v", g, tt.want)
			}
		})
	}
}

func TestGroupSourcesAndSpan(t *testing.T) {
	items := []Item{
		{Key: "h", Source: "@rbc", PublishedAt: at(0).Add(3 * time.Hour), Score: 1},
		{Key: "h", Source: "@tass", PublishedAt: at(0).Add(1 * time.Hour), Score: 3},
		{Key: "h", Source: "@rbc", PublishedAt: at(0).Add(2 * time.Hour), Score: 2},
		{Key: "h", Source: "@interfax", PublishedAt: at(0).Add(2 * time.Hour), Score: 0},
		{Key: "h", Source: "", PublishedAt: at(0), Score: 0},
	}
	got, err := Group(items, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []Cluster{{
		Best:    1,
		Members: []int{0, 1, 2, 3, 4},
		Sources: []string{"@tass", "@interfax", "@rbc"}, // @rbc first at 2h, tied with @interfax: by name
		First:   at(0),
		Last:    at(0).Add(3 * time.Hour),
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Group = %+v\nwant    %+v", got, want)
	}
}

func TestGroupErrors(t *testing.T) {
	tests := []struct {
		name  string
		items []Item
		opts  Options
		is    error // nil: any error
	}{
		{"vector lengths differ", []Item{{Vec: []float32{1, 0}}, {}, {Vec: []float32{1, 0, 0}}}, DefaultOptions(), ErrDim},
		{"NaN score", []Item{{Score: math.NaN()}}, DefaultOptions(), ErrScore},
		{"min cosine zero", nil, Options{MinCosine: 0, MaxDayGap: 1}, nil},
		{"min cosine above one", nil, Options{MinCosine: 1.01, MaxDayGap: 1}, nil},
		{"min cosine NaN", nil, Options{MinCosine: math.NaN(), MaxDayGap: 1}, nil},
		{"negative day gap", nil, Options{MinCosine: 0.9, MaxDayGap: -1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Group(tt.items, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("error %v is not %v", err, tt.is)
			}
		})
	}
}

// randomItems makes n items around a few stories, so that some are duplicates and some are
// not: vectors are a story's vector plus noise of a random size, keys and doc ids repeat.
func randomItems(rng *rand.Rand, n, dim, days int) []Item {
	stories := make([][]float32, 1+n/5)
	for s := range stories {
		stories[s] = randomUnit(rng, dim, nil, 0)
	}
	items := make([]Item, n)
	for i := range items {
		it := Item{
			ChunkID:     fmt.Sprint("c", i),
			Source:      fmt.Sprint("@s", rng.IntN(4)),
			PublishedAt: at(0).Add(time.Duration(rng.Int64N(int64(days) * int64(24*time.Hour)))),
			Score:       float64(rng.IntN(20)), // coarse, so ties happen
		}
		if rng.IntN(3) == 0 {
			it.DocID = fmt.Sprint("d", rng.IntN(n))
		}
		if rng.IntN(3) == 0 {
			it.Key = fmt.Sprint("k", rng.IntN(1+n/4))
		}
		if rng.IntN(4) > 0 {
			it.Vec = randomUnit(rng, dim, stories[rng.IntN(len(stories))], []float64{0.05, 0.2, 1}[rng.IntN(3)])
		}
		items[i] = it
	}
	return items
}

// randomUnit returns base plus Gaussian noise of the given size, L2-normalized (base nil: pure
// noise).
func randomUnit(rng *rand.Rand, dim int, base []float32, noise float64) []float32 {
	v := make([]float32, dim)
	var norm float64
	for k := range v {
		x := rng.NormFloat64()
		if base != nil {
			x = float64(base[k]) + noise*x/math.Sqrt(float64(dim))
		}
		v[k] = float32(x)
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for k := range v {
		v[k] = float32(float64(v[k]) / norm)
	}
	return v
}

// reference is Group's partition by brute force: every pair checked against the three rules,
// then the transitive closure by repeated relabelling. It returns each index's smallest
// cluster-mate.
func reference(items []Item, o Options) []int {
	n := len(items)
	label := make([]int, n)
	for i := range label {
		label[i] = i
	}
	related := func(i, j int) bool {
		a, b := items[i], items[j]
		di, dj := day(a.PublishedAt), day(b.PublishedAt)
		switch {
		case a.Key != "" && a.Key == b.Key && di == dj:
			return true
		case a.DocID != "" && a.DocID == b.DocID:
			return true
		case a.Vec != nil && b.Vec != nil && max(di-dj, dj-di) <= int64(o.MaxDayGap):
			return dot(a.Vec, b.Vec) >= float32(o.MinCosine)
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		for i := range n {
			for j := range n {
				if label[j] < label[i] && related(i, j) {
					label[i], changed = label[j], true
				}
			}
		}
	}
	return label
}

// TestGroupProperties checks on random inputs that Group is a partition (every index in
// exactly one cluster, members ascending), that Best is a member and beats every other,
// that clusters are ordered, that Sources/First/Last agree with the members, and that the
// partition equals the brute-force reference (so the sliding window loses no pair).
func TestGroupProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for iter := range 200 {
		n := rng.IntN(60)
		items := randomItems(rng, n, 8, 1+rng.IntN(6))
		o := Options{MinCosine: 0.8 + 0.19*rng.Float64(), MaxDayGap: rng.IntN(3)}
		got, err := Group(items, o)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]int, n)
		label := make([]int, n)
		for k, c := range got {
			if !slices.IsSorted(c.Members) || !slices.Contains(c.Members, c.Best) {
				t.Fatalf("iter %d: cluster %d: members %v, best %d", iter, k, c.Members, c.Best)
			}
			for _, m := range c.Members {
				seen[m]++
				label[m] = c.Members[0]
				if m != c.Best && better(items, m, c.Best) {
					t.Fatalf("iter %d: cluster %d: member %d beats best %d", iter, k, m, c.Best)
				}
				if p := items[m].PublishedAt; p.Before(c.First) || p.After(c.Last) {
					t.Fatalf("iter %d: cluster %d: member %d at %v outside [%v, %v]", iter, k, m, p, c.First, c.Last)
				}
				if s := items[m].Source; s != "" && !slices.Contains(c.Sources, s) {
					t.Fatalf("iter %d: cluster %d: source %q missing from %v", iter, k, s, c.Sources)
				}
			}
			if k > 0 {
				prev := got[k-1]
				if a, b := items[prev.Best].Score, items[c.Best].Score; a < b || a == b && prev.Best > c.Best {
					t.Fatalf("iter %d: clusters %d and %d out of order", iter, k-1, k)
				}
			}
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("iter %d: index %d is in %d clusters", iter, i, s)
			}
		}
		if want := reference(items, o); !reflect.DeepEqual(label, want) {
			t.Fatalf("iter %d: partition %v\nreference     %v", iter, label, want)
		}
	}
}

func TestGroupDoesNotModifyItems(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	items := randomItems(rng, 50, 8, 3)
	before := slices.Clone(items)
	if _, err := Group(items, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(items, before) {
		t.Fatal("Group modified its input")
	}
}

func TestDot(t *testing.T) {
	for n := range 11 {
		a, b := make([]float32, n), make([]float32, n)
		var want float32
		for i := range n {
			a[i], b[i] = float32(i+1), float32(2*i-3)
			want += a[i] * b[i]
		}
		if got := dot(a, b); got != want {
			t.Fatalf("dot of length %d = %v, want %v", n, got, want)
		}
	}
}

func ExampleGroup() {
	day := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	items := []Item{
		{DocID: "tass/1", Source: "@tass", PublishedAt: day, Key: "k1", Vec: []float32{1, 0}, Score: 0.9},
		{DocID: "rbc/7", Source: "@rbc", PublishedAt: day.Add(time.Hour), Key: "k2", Vec: []float32{0.99, 0.141}, Score: 0.8},
		{DocID: "rbc/8", Source: "@rbc", PublishedAt: day, Key: "k3", Vec: []float32{0, 1}, Score: 0.7},
	}
	clusters, err := Group(items, DefaultOptions())
	if err != nil {
		panic(err)
	}
	for _, c := range clusters {
		fmt.Println(items[c.Best].DocID, c.Members, c.Sources)
	}
	// Output:
	// tass/1 [0 1] [@tass @rbc]
	// rbc/8 [2] [@rbc]
}

func BenchmarkGroup(b *testing.B) {
	for _, bc := range []struct {
		name string
		days int
	}{{"1000x384/30days", 30}, {"1000x384/sameday", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(11, 13))
			items := make([]Item, 1000)
			for i := range items {
				items[i] = Item{
					ChunkID:     fmt.Sprint("c", i),
					DocID:       fmt.Sprint("d", i),
					Source:      fmt.Sprint("@s", i%7),
					PublishedAt: at(0).Add(time.Duration(rng.Int64N(int64(bc.days) * int64(24*time.Hour)))),
					Vec:         randomUnit(rng, 384, nil, 0),
					Score:       rng.Float64(),
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Group(items, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGroupShowsTheEdit: a cluster holding an edited text (a later version of its document)
// and copies of the first text shows the edit, keeps its best member's place, and a cluster
// without an edit is as before.
func TestGroupShowsTheEdit(t *testing.T) {
	at := time.Date(2026, 2, 13, 9, 0, 0, 0, time.UTC)
	items := []Item{
		{ChunkID: "repost", DocID: "tg-1", Source: "tg", PublishedAt: at, Key: "k", Score: 0.9},
		{ChunkID: "other", DocID: "o", Source: "wire", PublishedAt: at, Key: "x", Score: 0.8},
		{ChunkID: "edit", DocID: "wire-1", Source: "wire", PublishedAt: at.Add(26 * time.Hour), Key: "k", Score: 0.7, Edited: true},
		{ChunkID: "copy", DocID: "tg-2", Source: "tg2", PublishedAt: at, Key: "k", Score: 0.75},
	}
	// Exact keys join within a day only: the edit, a day later, joins by the vectors.
	for i := range items {
		if items[i].Key == "k" {
			items[i].Vec = []float32{1, 0}
		} else {
			items[i].Vec = []float32{0, 1}
		}
	}
	cs, err := Group(items, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Best != 2 || !slices.Equal(cs[0].Members, []int{0, 2, 3}) || cs[1].Best != 1 {
		t.Fatalf("clusters %+v: want the edit (2) shown for the first, which keeps its place before 1", cs)
	}
	items[2].Edited = false
	if cs, _ := Group(items, DefaultOptions()); cs[0].Best != 0 {
		t.Fatalf("without the edit the best score is shown: %+v", cs)
	}
}
