package indexplan

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/schemas"
)

var (
	e5    = schemas.ModelRef{ID: "e5-small", SHA256: "aa", Dim: 384}
	chunk = schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
)

func sm(id, period string, chunks int) schemas.ShardMeta {
	return schemas.ShardMeta{ID: id, Period: period, Chunks: chunks}
}

func ids(shards []schemas.ShardMeta) []string {
	var out []string
	for _, s := range shards {
		out = append(out, s.ID)
	}
	return out
}

func TestUnplanned(t *testing.T) {
	live := []schemas.ShardMeta{sm("a", "2024-01", 1), sm("b", "2024-02", 1), sm("c", "2024-03", 1)}
	tests := []struct {
		name    string
		planned []string
		want    []string
	}{
		{"all rebuilt as they are", []string{"a", "b", "c"}, nil},
		{"one changed", []string{"a", "b2", "c"}, []string{"b"}},
		{"none kept", []string{"x"}, []string{"a", "b", "c"}},
		{"nothing planned", nil, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(Unplanned(live, tt.planned)); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Unplanned = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDropped(t *testing.T) {
	docs := []schemas.Document{{DocID: "kept1"}, {DocID: "kept2"}}
	type shardIDs struct {
		period string
		ids    []string
	}
	tests := []struct {
		name   string
		shards []shardIDs
		n      int
		want   string
	}{
		{"nothing dropped", []shardIDs{{"2024-01", []string{"kept1", "kept2", "kept1"}}}, 0, ""},
		{"one document, chunked twice", []shardIDs{{"2024-01", []string{"kept1", "gone", "gone"}}}, 1,
			`index news holds 1 document this build would not (e.g. "gone" in shard 2024-01: not in these files, or quarantined): publishing would drop them.` + "\n" +
				"Pass --append to add these files to the index, or --replace to publish it without them"},
		{"several shards, the first example kept", []shardIDs{{"2024-01", []string{"x"}}, {"2024-02", []string{"y", "x", "kept2"}}}, 2,
			`index news holds 2 documents this build would not (e.g. "x" in shard 2024-01: not in these files, or quarantined): publishing would drop them.` + "\n" +
				"Pass --append to add these files to the index, or --replace to publish it without them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDropped(docs)
			for _, s := range tt.shards {
				d.Add(s.period, s.ids)
			}
			if d.Len() != tt.n {
				t.Fatalf("Len = %d, want %d", d.Len(), tt.n)
			}
			err := d.Err("news")
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Err = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrWouldDrop) {
				t.Fatalf("Err =\n %v\nwant (ErrWouldDrop)\n %s", err, tt.want)
			}
		})
	}
}

func TestCheckAppend(t *testing.T) {
	live := schemas.Manifest{Model: e5, Period: "month", Chunk: chunk}
	wide := e5
	wide.Dim = 768
	tests := []struct {
		name   string
		model  schemas.ModelRef
		period string
		chunk  schemas.ChunkConfig
		want   string
	}{
		{"fits", e5, "month", chunk, ""},
		{"other dimension", wide, "month", chunk, "--append: index news was built with 384-d vectors of e5-small, this worker's are 768-d"},
		{"other period", e5, "week", chunk, "--append: index news is partitioned by month, not week (pass --period month)"},
		{"other chunking", e5, "month", schemas.ChunkConfig{Size: 800, Overlap: 200, Min: 100},
			"--append: index news was chunked with {Size:1600 Overlap:200 Min:100 MaxChunksPerDoc:0}, not {Size:800 Overlap:200 Min:100 MaxChunksPerDoc:0} " +
				"(pass --chunk-size 1600 --chunk-overlap 200 --chunk-min 100 --max-chunks-per-doc 0)"},
		{"the model is reported first", wide, "week", chunk, "--append: index news was built with 384-d vectors of e5-small, this worker's are 768-d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckAppend("news", live, tt.model, tt.period, tt.chunk)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckAppend = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrAppendMismatch) {
				t.Fatalf("CheckAppend =\n %v\nwant (ErrAppendMismatch)\n %s", err, tt.want)
			}
		})
	}
}

func TestPublish(t *testing.T) {
	created := time.Date(2026, 11, 25, 9, 0, 0, 0, time.FixedZone("MSK", 3*3600))
	counts := func(read int64) schemas.IndexCounts {
		return schemas.IndexCounts{Read: read, Indexed: read, Quarantined: map[string]int64{}}
	}
	// Manifest 4 (what the appends were planned on) held a; the live manifest 5 holds a and
	// another append's b.
	live5 := &schemas.Manifest{Seq: 5, Model: e5, Period: "month", Chunk: chunk, Shards: []schemas.ShardMeta{sm("a", "2024-01", 3), sm("b", "2024-02", 4)}, Counts: counts(70)}
	base4 := map[string]bool{"a": true}
	full := Build{Index: "news", Period: "month", Chunk: chunk, Model: e5, Shards: []schemas.ShardMeta{sm("z", "2024-03", 2), sm("y", "2024-03", 1), sm("x", "2024-01", 5)},
		Counts: counts(10), Base: counts(0), CreatedAt: created}
	appendOn := func(seq int) Build {
		b := full
		b.Append, b.BaseSeq, b.Base = true, seq, counts(50)
		b.Shards = []schemas.ShardMeta{sm("a", "2024-01", 3), sm("c", "2024-03", 6)}
		return b
	}
	rebuilt := *live5
	rebuilt.Period = "week"
	tests := []struct {
		name      string
		build     Build
		live      *schemas.Manifest
		liveSeq   int
		needsBase bool
		shards    []string
		chunks    int64
		read      int64
		rebased   bool
		unchanged bool
		err       error
	}{
		{name: "first build", build: full, shards: []string{"x", "y", "z"}, chunks: 8, read: 10},
		{name: "a rebuild replaces the live shards", build: full, live: live5, liveSeq: 5, shards: []string{"x", "y", "z"}, chunks: 8, read: 10},
		{name: "the live manifest lists these shards", build: Build{Model: e5, Shards: []schemas.ShardMeta{sm("b", "2024-02", 4), sm("a", "2024-01", 3)}},
			live: live5, liveSeq: 5, unchanged: true},
		{name: "an append on the live manifest", build: appendOn(5), live: live5, liveSeq: 5, shards: []string{"a", "c"}, chunks: 9, read: 60},
		{name: "an append planned on an older manifest is rebased", build: appendOn(4), live: live5, liveSeq: 5, needsBase: true,
			shards: []string{"a", "b", "c"}, chunks: 13, read: 80, rebased: true},
		{name: "an append on an index rebuilt meanwhile", build: appendOn(4), live: &rebuilt, liveSeq: 5, needsBase: true, err: ErrRebuilt},
		{name: "an append on no index", build: appendOn(0), shards: []string{"a", "c"}, chunks: 9, read: 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NeedsBase(tt.build, tt.live, tt.liveSeq); got != tt.needsBase {
				t.Fatalf("NeedsBase = %v, want %v", got, tt.needsBase)
			}
			pub, err := Publish(tt.build, tt.live, tt.liveSeq, base4)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Publish error %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pub.Unchanged != tt.unchanged || pub.Rebased != tt.rebased {
				t.Fatalf("unchanged %v rebased %v, want %v %v", pub.Unchanged, pub.Rebased, tt.unchanged, tt.rebased)
			}
			if tt.unchanged {
				if !reflect.DeepEqual(pub.Manifest, schemas.Manifest{}) {
					t.Fatalf("an unchanged publication carries a manifest: %+v", pub.Manifest)
				}
				return
			}
			m := pub.Manifest
			if got := ids(m.Shards); !reflect.DeepEqual(got, tt.shards) {
				t.Fatalf("shards %v, want %v (by period, then id)", got, tt.shards)
			}
			if m.Counts.Chunks != tt.chunks || m.Counts.Read != tt.read {
				t.Fatalf("counts %+v, want %d chunks and %d read", m.Counts, tt.chunks, tt.read)
			}
			if m.Version != schemas.ManifestVersion || m.Index != "news" || m.Model != e5 || m.Period != "month" || m.Chunk != chunk ||
				!m.CreatedAt.Equal(created) || m.CreatedAt.Location() != time.UTC || m.Seq != 0 {
				t.Fatalf("manifest header %+v", m)
			}
		})
	}
}

func TestPublishRebuiltErrorText(t *testing.T) {
	live := schemas.Manifest{Model: schemas.ModelRef{ID: "bge-m3", Dim: 1024}, Period: "month", Chunk: chunk}
	_, err := Publish(Build{Index: "news", Period: "month", Chunk: chunk, Model: e5, Append: true, BaseSeq: 1}, &live, 2, map[string]bool{})
	want := "--append: index news was rebuilt while this append ran (now bge-m3, month shards, chunking {Size:1600 Overlap:200 Min:100 MaxChunksPerDoc:0}): run the append again"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n %v\nwant\n %s", err, want)
	}
}

func TestSameShards(t *testing.T) {
	m := schemas.Manifest{Model: e5, Shards: []schemas.ShardMeta{sm("a", "2024-01", 1), sm("b", "2024-02", 1)}}
	other := e5
	other.SHA256 = "bb"
	tests := []struct {
		name   string
		shards []schemas.ShardMeta
		model  schemas.ModelRef
		want   bool
	}{
		{"same", []schemas.ShardMeta{sm("a", "x", 9), sm("b", "y", 9)}, e5, true},
		{"other order", []schemas.ShardMeta{sm("b", "2024-02", 1), sm("a", "2024-01", 1)}, e5, false},
		{"one more", []schemas.ShardMeta{sm("a", "2024-01", 1), sm("b", "2024-02", 1), sm("c", "2024-03", 1)}, e5, false},
		{"other model", m.Shards, other, false},
		{"none", nil, e5, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameShards(m, tt.shards, tt.model); got != tt.want {
				t.Fatalf("SameShards = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestVersioned: versions are numbered in publication order, after what the index holds.
func TestVersioned(t *testing.T) {
	d := func(id, day string) schemas.Document {
		t, _ := time.Parse(time.DateOnly, day)
		return schemas.Document{DocID: id, PublishedAt: t}
	}
	docs := []schemas.Document{d("a", "2024-03-05"), d("b", "2024-01-01"), d("a", "2024-03-01"), d("k", "2024-05-01"), d("a", "2024-04-01")}
	n := Versioned(docs, map[string]corpus.Known{"k": {Version: 2}})
	var got []string
	for _, x := range docs {
		got = append(got, fmt.Sprintf("%s@%d", x.DocID, x.Version))
	}
	if want := "a@2,b@0,a@0,k@3,a@3"; strings.Join(got, ",") != want || n != 3 {
		t.Errorf("versions %s (%d later), want %s (3)", strings.Join(got, ","), n, want)
	}
}

// TestPublishCarriesPurges: a build keeps the live takedowns, and a purge stays done only for
// the documents taken down before the build started (left out of its shards); one taken down
// while it ran may be in the shards it wrote, so it is marked not purged.
func TestPublishCarriesPurges(t *testing.T) {
	started := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	purged := started.Add(-time.Hour)
	live := &schemas.Manifest{Seq: 3, Model: e5, Period: "month", Chunk: chunk, Shards: []schemas.ShardMeta{sm("a", "2024-01", 3)},
		Takedowns: []schemas.Takedown{
			{DocID: "before", At: started.Add(-2 * time.Hour), Purged: &purged},
			{DocID: "masked", At: started.Add(-2 * time.Hour)},
			{DocID: "during", At: started.Add(time.Minute), Purged: &purged},
			{DocID: "at-start", At: started, Purged: &purged},
		}}
	b := Build{Index: "news", Period: "month", Chunk: chunk, Model: e5, Shards: []schemas.ShardMeta{sm("x", "2024-01", 5)}, CreatedAt: started}
	p, err := Publish(b, live, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"before": true, "masked": false, "during": false, "at-start": false}
	if len(p.Manifest.Takedowns) != len(want) {
		t.Fatalf("takedowns %+v", p.Manifest.Takedowns)
	}
	for _, td := range p.Manifest.Takedowns {
		if got := td.Purged != nil; got != want[td.DocID] {
			t.Errorf("%s: purged %v, want %v", td.DocID, got, want[td.DocID])
		}
	}
	if live.Takedowns[2].Purged == nil {
		t.Fatal("Publish modified the live manifest's takedowns")
	}
}
