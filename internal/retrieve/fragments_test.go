package retrieve

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

func TestMergeFragments(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			panic(err)
		}
		return v
	}
	c := func(id, source, when, text string, score float64) Candidate {
		return Candidate{Score: score, Chunk: &schemas.Chunk{ChunkID: id, Source: source, PublishedAt: at(when), Text: text}}
	}
	type want struct {
		id        string
		fragments int
		ids       []string
		text      string
		score     float64
	}
	const w = 0.002
	tests := []struct {
		name string
		gap  time.Duration
		in   []Candidate
		want []want // by chunk id
	}{
		{name: "a chained run merges into its best fragment, mean + w·ln(1+density)", gap: 30 * time.Minute,
			in: []Candidate{
				c("a3", "chan", "2024-05-01 10:45", "third", 0.010), // 25 min after a2: same run (gaps chain)
				c("a1", "chan", "2024-05-01 10:00", "first", 0.020),
				c("a2", "chan", "2024-05-01 10:20", "second", 0.030), // best
			},
			want: []want{{"a2", 3, []string{"a1", "a2", "a3"}, "first\n\nsecond\n\nthird", 0.020 + w*math.Log(3)}}},
		{name: "a lone candidate keeps its score and text", gap: 30 * time.Minute,
			in:   []Candidate{c("a1", "chan", "2024-05-01 10:00", "first", 0.02), c("a4", "chan", "2024-05-01 12:00", "later", 0.07)},
			want: []want{{"a1", 1, nil, "first", 0.02}, {"a4", 1, nil, "later", 0.07}}},
		{name: "another source never merges", gap: 30 * time.Minute,
			in:   []Candidate{c("a1", "chan", "2024-05-01 10:00", "x", 0.02), c("b1", "other", "2024-05-01 10:05", "y", 0.03)},
			want: []want{{"a1", 1, nil, "x", 0.02}, {"b1", 1, nil, "y", 0.03}}},
		{name: "gap 0 merges only simultaneous posts", gap: 0,
			in: []Candidate{c("a1", "chan", "2024-05-01 10:00", "x", 0.02), c("a2", "chan", "2024-05-01 10:00", "y", 0.02),
				c("a3", "chan", "2024-05-01 10:01", "z", 0.05)},
			want: []want{{"a1", 2, []string{"a1", "a2"}, "x\n\ny", 0.02 + w*math.Log(2)}, {"a3", 1, nil, "z", 0.05}}},
		{name: "a repeated text is kept once", gap: time.Hour,
			in:   []Candidate{c("a1", "chan", "2024-05-01 10:00", "same", 0.01), c("a2", "chan", "2024-05-01 10:30", " same ", 0.03)},
			want: []want{{"a2", 2, []string{"a1", "a2"}, "same", 0.02 + w*math.Log(2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.in)
			texts := make([]string, len(in))
			for i, c := range in {
				texts[i] = c.Chunk.Text
			}
			out := mergeFragments(in, tt.gap, w)
			sortByScore(out)
			if len(out) != len(tt.want) {
				t.Fatalf("merged into %v, want %d candidates", ids(out), len(tt.want))
			}
			got := map[string]Candidate{}
			for _, c := range out {
				got[c.Chunk.ChunkID] = c
			}
			for _, wt := range tt.want {
				g, ok := got[wt.id]
				if !ok {
					t.Fatalf("no candidate %s in %v", wt.id, ids(out))
				}
				if g.Fragments != wt.fragments || !slices.Equal(g.FragmentIDs, wt.ids) || g.Chunk.Text != wt.text || math.Abs(g.Score-wt.score) > 1e-12 {
					t.Errorf("%s: fragments %d %v, text %q, score %v; want %d %v, %q, %v", wt.id, g.Fragments, g.FragmentIDs, g.Chunk.Text, g.Score,
						wt.fragments, wt.ids, wt.text, wt.score)
				}
			}
			for i, c := range tt.in {
				if c.Chunk.Text != texts[i] {
					t.Errorf("the shard's chunk %s was changed: %q", c.Chunk.ChunkID, c.Chunk.Text)
				}
			}
		})
	}
}

// TestMergeFragmentsRanking: the composite averages the run, so a run of weaker posts does not
// pass a lone better match unless it is dense enough.
func TestMergeFragmentsRanking(t *testing.T) {
	base := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	c := func(id, source string, minutes int, score float64) Candidate {
		return Candidate{Score: score, Chunk: &schemas.Chunk{ChunkID: id, Source: source, PublishedAt: base.Add(time.Duration(minutes) * time.Minute)}}
	}
	tests := []struct {
		name  string
		run   int // fragments of the run, each scored 0.027
		first string
	}{
		{name: "two fragments stay below the lone 0.030", run: 2, first: "lone"},
		{name: "five fragments pass it", run: 5, first: "run0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []Candidate{c("lone", "a", 0, 0.030)}
			for i := range tt.run {
				in = append(in, c("run"+string(rune('0'+i)), "b", i*5, 0.027))
			}
			out := mergeFragments(in, 10*time.Minute, DefaultDensityBonus)
			sortByScore(out)
			if out[0].Chunk.ChunkID != tt.first {
				t.Errorf("first %s (%v), want %s", out[0].Chunk.ChunkID, ids(out), tt.first)
			}
		})
	}
}
