package retrieve

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/lifecycle"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// lifeShard builds a real shard of chunks (chunkShard) with the lifecycle x applied to its rows.
func lifeShard(t testing.TB, id string, chunks []schemas.Chunk, vecs [][]float32, x *lifecycle.Index) *Shard {
	t.Helper()
	s := chunkShard(t, id, chunks, vecs)
	s.Life = x.Life(chunks)
	return s
}

// TestLifecycleMaskProperty: over generated corpora of news and standing documents with version
// histories and supersession chains, searched in every mode as of random days: nothing
// published after the day is a candidate, at most one version of a document is, it is the
// latest published by the day, no standing text hard-superseded by the day is served (except as
// history in evolution), none before it is in force, a standing text is never cut off by the
// recency window, and the dense branch is the exact top N over exactly those rows.
func TestLifecycleMaskProperty(t *testing.T) {
	words := []string{"zork", "quix", "blat", "frob", "gnar", "plov"}
	modes := []Mode{Recency, Decay, Hybrid, Window, Evolution, Dense, BM25}
	base := d("2019-01-01")
	for trial := range 20 {
		rng := rand.New(rand.NewPCG(uint64(trial), 11))
		dim := 6
		var docs []lifecycle.Doc
		var chunks [][]schemas.Chunk
		var vecs [][][]float32
		nShards := 1 + rng.IntN(3)
		chunks, vecs = make([][]schemas.Chunk, nShards), make([][][]float32, nShards)
		nDocs := 5 + rng.IntN(25)
		for i := range nDocs {
			id := fmt.Sprintf("d%d", i)
			kind := []string{"", schemas.KindStanding}[rng.IntN(2)]
			title := []string{"Reg A", "Reg B"}[rng.IntN(2)]
			prov := fmt.Sprintf("Regulation %d: ", rng.IntN(4))
			pub := base.AddDate(0, 0, rng.IntN(3*365))
			for v := 1; v <= 1+rng.IntN(3); v++ {
				text := prov + words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
				c := schemas.Chunk{ChunkID: fmt.Sprintf("%s@v%d#0", id, v), DocID: id, Version: int32(v), PublishedAt: pub, Title: title, Text: text, Lang: "en", Kind: kind}
				ld := lifecycle.Doc{DocID: id, Version: v, Kind: kind, Published: pub, Title: title, Text: text}
				if kind == schemas.KindStanding && v == 1 && rng.IntN(4) == 0 {
					eff := pub.AddDate(0, 0, rng.IntN(90))
					c.EffectiveAt, ld.Effective = &eff, eff
				}
				if kind == schemas.KindStanding && rng.IntN(4) == 0 {
					ld.Supersedes = []string{fmt.Sprintf("d%d", rng.IntN(nDocs))}
				}
				docs = append(docs, ld)
				vec := make([]float32, dim)
				for j := range vec {
					vec[j] = float32(rng.NormFloat64())
				}
				s := rng.IntN(nShards)
				chunks[s] = append(chunks[s], c)
				vecs[s] = append(vecs[s], unit(vec...))
				pub = pub.AddDate(0, 0, 1+rng.IntN(120))
			}
		}
		tab := lifecycle.Resolve(docs, lifecycle.DefaultOptions())
		x := lifecycle.NewIndex(&tab)
		var shards []*Shard
		for s := range nShards {
			if len(chunks[s]) > 0 {
				shards = append(shards, lifeShard(t, fmt.Sprint("s", s), chunks[s], vecs[s], x))
			}
		}
		// Documents taken down (schemas.Takedown), in half the trials: never served.
		gone := map[string]bool{}
		if trial%2 == 1 {
			for i := range nDocs {
				if rng.IntN(4) == 0 {
					gone[fmt.Sprintf("d%d", i)] = true
				}
			}
			for i := range shards {
				shards[i] = shards[i].WithRemoved(gone)
			}
		}
		pubOf := map[lifecycle.Key]time.Time{}
		for _, dd := range docs {
			pubOf[lifecycle.Key{DocID: dd.DocID, Version: int32(dd.Version)}] = dd.Published
		}
		for q := range 10 {
			a := base.AddDate(0, 0, rng.IntN(4*365))
			o := DefaultOptions()
			o.Mode = modes[rng.IntN(len(modes))]
			o.WindowDays = []int{0, 60, 365}[rng.IntN(3)]
			o.TopNEach = 1 + rng.IntN(40)
			o.Int8Rerank = -1
			if o.Mode == Window {
				o.From = base.AddDate(0, 0, rng.IntN(3*365))
				o.To = o.From.AddDate(0, 0, rng.IntN(500))
			}
			query := words[rng.IntN(len(words))]
			qv := make([]float32, dim)
			for j := range qv {
				qv[j] = float32(rng.NormFloat64())
			}
			qv = unit(qv...)
			name := fmt.Sprintf("trial %d query %d (%s, A %s, window %d)", trial, q, o.Mode, a.Format(time.DateOnly), o.WindowDays)
			res, err := Search(shards, query, qv, a, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// The reference, written out: publication by the anchor (and To), the recency window
			// for news only, a hard From for both, the lifecycle (superseded texts shown only as
			// history in evolution).
			hi := asofday.End(a)
			if !o.To.IsZero() && asofday.End(o.To).Before(hi) {
				hi = asofday.End(o.To)
			}
			var newsLo, standingLo time.Time
			if o.WindowDays > 0 && o.Mode != Window && o.Mode != Evolution {
				newsLo = asofday.Start(a).AddDate(0, 0, -o.WindowDays)
			}
			if !o.From.IsZero() {
				standingLo = asofday.Start(o.From)
				newsLo = maxTime(newsLo, standingLo)
			}
			allowed := func(s *Shard, i int) bool {
				c := &s.Chunks[i]
				if gone[c.DocID] {
					return false
				}
				lo := newsLo
				if c.Kind == schemas.KindStanding {
					lo = standingLo
				}
				if c.PublishedAt.Before(lo) || !c.PublishedAt.Before(hi) {
					return false
				}
				if s.Life.Allows(i, a) {
					return true
				}
				return o.Mode == Evolution && s.Life.AllowsHistory(i, a)
			}
			versions := map[string]int{}
			for _, c := range res.Candidates {
				ch := c.Chunk
				if !asofday.Allows(a, ch.PublishedAt) {
					t.Fatalf("%s: %s published %s, after the anchor", name, ch.ChunkID, ch.PublishedAt)
				}
				if gone[ch.DocID] {
					t.Fatalf("%s: %s was taken down", name, ch.ChunkID)
				}
				if !allowed(shards[c.Shard], c.Row) {
					t.Fatalf("%s: %s is not current as of the anchor", name, ch.ChunkID)
				}
				versions[ch.DocID]++
				for v := ch.VersionOf() + 1; ; v++ {
					p, ok := pubOf[lifecycle.Key{DocID: ch.DocID, Version: v}]
					if !ok {
						break
					}
					if asofday.Allows(a, p) {
						t.Fatalf("%s: %s served though version %d is published (%s)", name, ch.ChunkID, v, p)
					}
				}
				if o.Mode != Evolution && ch.Kind == schemas.KindStanding {
					for _, l := range tab.Links {
						if l.Old == ch.DocID && !l.Soft() && !asofday.Start(a).Before(l.Since) {
							t.Fatalf("%s: %s served as current though %s superseded it on %s", name, ch.DocID, l.New, l.Since)
						}
					}
				}
			}
			for id, n := range versions {
				if n > 1 {
					t.Fatalf("%s: %d versions of %s are candidates", name, n, id)
				}
			}
			type row struct {
				shard, row int
				cos        float32
			}
			var all []row
			for si, s := range shards {
				for i := range s.Chunks {
					if allowed(s, i) {
						all = append(all, row{si, i, vecindex.Dot(qv, s.Vectors.Row(i))})
					}
				}
			}
			if res.Allowed != len(all) {
				t.Fatalf("%s: %d allowed, the reference %d", name, res.Allowed, len(all))
			}
			if o.Mode != Dense { // BM25 ranks as deep over the allowed rows as they allow
				n, got := 0, 0
				for _, x := range all {
					if slices.Contains(strings.Fields(shards[x.shard].Chunks[x.row].Text), query) {
						n++
					}
				}
				for _, c := range res.Candidates {
					if c.RankBM25 > 0 {
						got++
					}
				}
				if want := min(n, o.TopNEach); got != want {
					t.Fatalf("%s: BM25 ranked %d, %d allowed rows hold %q (top-N %d)", name, got, n, query, o.TopNEach)
				}
			}
			if o.Mode == BM25 {
				continue
			}
			slices.SortFunc(all, func(x, y row) int {
				return cmp.Or(cmp.Compare(y.cos, x.cos), cmp.Compare(x.shard, y.shard), cmp.Compare(x.row, y.row))
			})
			want := map[[2]int]int{}
			for r, x := range all[:min(o.TopNEach, len(all))] {
				want[[2]int{x.shard, x.row}] = r + 1
			}
			got := map[[2]int]int{}
			for _, c := range res.Candidates {
				if c.RankDense > 0 {
					got[[2]int{c.Shard, c.Row}] = c.RankDense
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: dense ranks %v, the reference %v", name, got, want)
			}
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// TestStandingTextsAreCurrent: a standing text in force ranks in time as of the anchor (it is
// current), not by its age, and is found however old; a superseded one is not served, and
// evolution shows it as history, labelled; an inferred restatement ranks its older text right
// after it.
func TestStandingTextsAreCurrent(t *testing.T) {
	docs := []lifecycle.Doc{
		{DocID: "old", Version: 1, Kind: schemas.KindStanding, Published: d("2013-01-01"), Title: "IA", Text: "Regulation 21(1): grievances promptly."},
		{DocID: "new", Version: 1, Kind: schemas.KindStanding, Published: d("2023-08-18"), Title: "IA", Text: "Regulation 21(1): grievances within twenty-one days."},
		{DocID: "rule", Version: 1, Kind: schemas.KindStanding, Published: d("2010-05-01"), Title: "CRA", Text: "Regulation 14: grievances of rated clients."},
		{DocID: "news", Version: 1, Published: d("2025-03-01"), Title: "news", Text: "grievances at banks rise"},
		{DocID: "oldnews", Version: 1, Published: d("2020-03-01"), Title: "news", Text: "grievances at banks fall"},
	}
	tab := lifecycle.Resolve(docs, lifecycle.DefaultOptions())
	var chunks []schemas.Chunk
	var vecs [][]float32
	for i, dd := range docs {
		chunks = append(chunks, schemas.Chunk{ChunkID: dd.DocID + "#0", DocID: dd.DocID, PublishedAt: dd.Published, Title: dd.Title, Text: dd.Text, Lang: "en", Kind: dd.Kind})
		v := []float32{1, float32(i) * 0.01}
		vecs = append(vecs, unit(v...))
	}
	s := lifeShard(t, "s", chunks, vecs, lifecycle.NewIndex(&tab))
	a := d("2025-06-01")
	res, err := Search([]*Shard{s}, "grievances", unit(1, 0.02), a, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := ids(res.Candidates)
	if !slices.Contains(got, "rule") || !slices.Contains(got, "new") || slices.Contains(got, "old") || slices.Contains(got, "oldnews") {
		t.Fatalf("as of %s: %v (want the 2010 rule and the new text, not the superseded one nor news older than the window)", a.Format(time.DateOnly), got)
	}
	for _, c := range res.Candidates {
		if c.Chunk.Kind == schemas.KindStanding && c.RankTime != 1 {
			t.Errorf("standing %s has time rank %d, want 1 (current)", c.Chunk.DocID, c.RankTime)
		}
	}
	if res.Allowed != 3 {
		t.Errorf("allowed %d, want 3", res.Allowed)
	}
	o := DefaultOptions()
	o.Mode = Evolution
	ev, err := Search([]*Shard{s}, "grievances", unit(1, 0.02), a, o)
	if err != nil {
		t.Fatal(err)
	}
	var labelled []string
	for _, c := range ev.Candidates {
		if c.Ended != nil {
			labelled = append(labelled, fmt.Sprintf("%s by %s %s", c.Chunk.DocID, c.Ended.By, c.Ended.Effective.Format(time.DateOnly)))
		}
	}
	if strings.Join(labelled, ";") != "old by new 2023-08-18" {
		t.Errorf("evolution's history: %q", labelled)
	}
	// A soft link ranks its older text right after its restatement.
	cands := []Candidate{
		{Chunk: &schemas.Chunk{DocID: "a"}, Score: 0.9, Ended: &lifecycle.Entry{Reason: lifecycle.ReasonRestated, By: "b"}},
		{Chunk: &schemas.Chunk{DocID: "c"}, Score: 0.85},
		{Chunk: &schemas.Chunk{DocID: "b"}, Score: 0.8},
		{Chunk: &schemas.Chunk{DocID: "z"}, Score: 0.95, Ended: &lifecycle.Entry{Reason: lifecycle.ReasonRestated, By: "absent"}},
	}
	afterRestatements(cands)
	sortByScore(cands)
	if got := strings.Join(ids(cands), ","); got != "z,c,b,a" {
		t.Errorf("after restatements: %s, want z,c,b,a", got)
	}
}
