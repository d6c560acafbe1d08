package activities_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// lifeRow is an input row with the columns of documents that change.
type lifeRow struct {
	DocID       string `parquet:"doc_id"`
	PublishedAt string `parquet:"published_at"`
	Title       string `parquet:"title"`
	Text        string `parquet:"text"`
	Source      string `parquet:"source"`
	Kind        string `parquet:"kind"`
	Supersedes  string `parquet:"supersedes"`
}

func putLifeRows(t *testing.T, b blob.Bucket, key string, rows []lifeRow) {
	t.Helper()
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(context.Background(), key, &buf); err != nil {
		t.Fatal(err)
	}
}

// publishRows plans key into index (an append when appending), builds its shards and publishes
// them, as IndexBuild does.
func publishRows(t *testing.T, env *testsuite.TestActivityEnvironment, index, key, kind string, appending bool) (activities.PlanIndexResult, activities.PublishManifestResult) {
	t.Helper()
	var a *activities.Activities
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	plan := run[activities.PlanIndexResult](t, env, a.PlanIndex, activities.PlanIndexInput{Index: index, RunID: "r-" + strings.ReplaceAll(key, "/", "-"),
		Inputs: []activities.InputFile{{Key: key, Name: key}}, Period: "month", Chunk: cfg, Append: appending, Kind: kind})
	shards := append([]schemas.ShardMeta(nil), plan.Existing...)
	for _, p := range plan.Periods {
		if p.Done {
			shards = append(shards, *p.Meta)
		}
	}
	for _, w := range buildShards(t, env, index, plan, cfg) {
		shards = append(shards, w.Meta)
	}
	pub := run[activities.PublishManifestResult](t, env, a.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{
		Index: index, Period: "month", Chunk: cfg, Model: plan.Model, Shards: shards, Counts: plan.Counts, Base: plan.Base,
		CreatedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Append: appending, BaseSeq: plan.BaseSeq, Kind: plan.Kind}})
	return plan, pub
}

// askAt answers query as of day on index through the Answer activity, as ask serves it (with
// the hash embedder's vector).
func askAt(t *testing.T, env *testsuite.TestActivityEnvironment, index, query, day string) schemas.Answer {
	t.Helper()
	var a *activities.Activities
	vecs, _ := hashEmbedder{}.EmbedQueries(context.Background(), []string{query})
	read := run[activities.ReadQueryResult](t, env, a.ReadQuery, activities.ReadQueryInput{Query: query, AsOf: utcDay(day)})
	o := retrieve.DefaultOptions()
	o.K = 20
	// The hash embedder's vectors are all alike: only exact copies fold.
	return run[schemas.Answer](t, env, a.Answer, activities.AnswerInput{RunID: "q-" + day, Index: index, Query: query, AsOf: utcDay(day), Read: read,
		Vector: vecs[0], Model: schemas.ModelRef{ID: "hash-4", SHA256: "h", Dim: 4}, Options: o, Dedup: dedup.Options{MinCosine: 1, MaxDayGap: 0},
		Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions()})
}

// results are an answer's results as "doc_id" or "doc_id vN".
func results(ans schemas.Answer) string {
	var out []string
	for _, r := range ans.Results {
		s := r.DocID
		if r.Version > 0 {
			s += fmt.Sprintf(" v%d", r.Version)
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

// TestEditsAreVersions: an append of an edited post makes its second version from its
// publication day; an identical row is a duplicate and an older edit a stale version; asked as
// of a day before the edit the answer quotes the first version, after it the second, never
// both; the counts reconcile and the manifest names the lifecycle table.
func TestEditsAreVersions(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	env, b := buildEnv(t)
	putLifeRows(t, b, "corpora/first.parquet", []lifeRow{
		{DocID: "p1", PublishedAt: "2025-03-01", Text: "The key rate was raised to 21 percent.", Source: "tg"},
		{DocID: "p2", PublishedAt: "2025-03-02", Text: "Oil fell on the key rate news.", Source: "tg"},
	})
	plan, pub := publishRows(t, env, "news", "corpora/first.parquet", "", false)
	if pub.Lifecycle != nil || plan.Counts.Indexed != 2 {
		t.Fatalf("first build: lifecycle %+v, counts %+v", pub.Lifecycle, plan.Counts)
	}
	putLifeRows(t, b, "corpora/edits.parquet", []lifeRow{
		{DocID: "p1", PublishedAt: "2025-03-05", Text: "Correction: the key rate was raised to 20 percent.", Source: "tg"}, // an edit
		{DocID: "p2", PublishedAt: "2025-03-06", Text: "Oil fell on the key rate news.", Source: "tg"},                     // unchanged
		{DocID: "p2", PublishedAt: "2025-03-07", Text: "Oil rose.", Source: "tg"},                                          // edited too
		{DocID: "p1", PublishedAt: "2025-02-01", Text: "An older text of p1.", Source: "tg"},                               // older than v1: stale
	})
	plan, pub = publishRows(t, env, "news", "corpora/edits.parquet", "", true)
	c := plan.Counts
	if c.Read != 4 || c.Indexed != 2 || c.Quarantined[schemas.ReasonDuplicateID] != 1 || c.Quarantined[schemas.ReasonStaleVersion] != 1 || !c.Reconciles() {
		t.Fatalf("append counts %+v: want 4 read = 2 indexed + 1 duplicate_id + 1 stale_version", c)
	}
	if pub.Lifecycle == nil || pub.Lifecycle.Stats.Versions != 2 {
		t.Fatalf("lifecycle %+v, want 2 versions replaced", pub.Lifecycle)
	}
	m, err := layout.ReadLive(context.Background(), b, "news")
	if err != nil || m.Version != schemas.ManifestVersionLifecycle || m.Lifecycle == nil || m.Lifecycle.Key != pub.Lifecycle.Key {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	for _, tc := range []struct{ day, want string }{
		{"2025-03-04", "p1,p2"},
		{"2025-03-05", "p1 v2,p2"},
		{"2025-03-08", "p1 v2,p2 v2"},
	} {
		ans := askAt(t, env, "news", "key rate", tc.day)
		got := strings.Split(results(ans), ",")
		want := strings.Split(tc.want, ",")
		if len(got) != len(want) || !sameSet(got, want) {
			t.Errorf("as of %s: results %q, want %q", tc.day, results(ans), tc.want)
		}
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestStandingIndex: an index of standing texts serves, as of each day, the texts in force
// then — however old — never one a later text superseded by then (a supersedes column, the
// same provision restated), and says so; the lifecycle's report lists the links.
func TestStandingIndex(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	env, b := buildEnv(t)
	const ia = "SEBI (Investment Advisers) Regulations, 2013"
	putLifeRows(t, b, "corpora/regs.parquet", []lifeRow{
		{DocID: "ia21-2013", PublishedAt: "2013-01-01", Title: ia, Text: "Regulation 21(1): An investment adviser shall redress client grievances promptly.", Source: "SEBI"},
		{DocID: "ia21-2023", PublishedAt: "2023-08-18", Title: ia, Text: "Regulation 21(1) (as amended w.e.f. 18-08-2023): The investment adviser shall redress investor grievances within twenty-one calendar days.", Source: "SEBI"},
		{DocID: "cra-1999", PublishedAt: "1999-01-01", Title: "CRA Regulations, 1999", Text: "Grievances of clients of a credit rating agency shall be redressed by its compliance officer.", Source: "SEBI"},
		{DocID: "circ-2020", PublishedAt: "2020-01-01", Title: "Circular on grievances", Text: "Grievances shall be redressed within thirty days.", Source: "SEBI"},
		{DocID: "circ-2024", PublishedAt: "2024-01-01", Title: "Master circular on grievances", Text: "Grievances shall be redressed within fifteen days.", Source: "SEBI", Supersedes: "circ-2020"},
		{DocID: "news-2025", PublishedAt: "2025-05-01", Title: "", Text: "Investors filed more grievances this year.", Source: "rbc", Kind: "news"},
	})
	_, pub := publishRows(t, env, "regs", "corpora/regs.parquet", schemas.KindStanding, false)
	if pub.Lifecycle == nil || pub.Lifecycle.Stats.Standing != 5 || pub.Lifecycle.Stats.ByBasis["provision"] != 1 || pub.Lifecycle.Stats.ByBasis["column"] != 1 {
		t.Fatalf("lifecycle %+v", pub.Lifecycle)
	}
	m, err := layout.ReadLive(context.Background(), b, "regs")
	if err != nil || m.Kind != schemas.KindStanding {
		t.Fatalf("manifest kind %q, %v", m.Kind, err)
	}
	rep, err := storeio.GetLifecycleReport(context.Background(), b, "regs", m)
	if err != nil || len(rep.Links) != 2 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	for _, tc := range []struct {
		day       string
		want, not []string
	}{
		{"2019-06-01", []string{"ia21-2013", "cra-1999"}, []string{"ia21-2023", "circ-2020", "circ-2024"}},
		{"2022-06-01", []string{"ia21-2013", "cra-1999", "circ-2020"}, []string{"ia21-2023", "circ-2024"}},
		{"2025-06-01", []string{"ia21-2023", "cra-1999", "circ-2024", "news-2025"}, []string{"ia21-2013", "circ-2020"}},
	} {
		ans := askAt(t, env, "regs", "grievances redressed", tc.day)
		got := results(ans)
		for _, w := range tc.want {
			if !strings.Contains(","+got+",", ","+w+",") {
				t.Errorf("as of %s: results %s lack %s", tc.day, got, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(","+got+",", ","+n+",") {
				t.Errorf("as of %s: results %s hold %s", tc.day, got, n)
			}
		}
		if !strings.Contains(ans.Standing, "in force on "+tc.day) || !strings.Contains(ans.Interpretation, "the texts in force on "+tc.day) {
			t.Errorf("as of %s: standing %q, read as %q", tc.day, ans.Standing, ans.Interpretation)
		}
		// Texts in force only (the news item is not out before 2025): nothing is "new".
		if news := strings.Contains(got, "news-2025"); strings.Contains(ans.Summary, "New in the last") != news {
			t.Errorf("as of %s: the summary's new section with news %v:\n%s", tc.day, news, ans.Summary)
		}
	}
	if ans := askAt(t, env, "regs", "grievances redressed", "2025-06-01"); ans.Counts.Superseded != 2 || !strings.Contains(ans.Standing, "2 superseded texts") {
		t.Errorf("counts %+v, standing %q: want 2 superseded texts left out", ans.Counts, ans.Standing)
	}
}

// TestPublishAgain: publishing the same build again is unchanged; the same shards read as
// another kind publish a new manifest that says so, with the lifecycle table of those shards.
func TestPublishAgain(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	env, b := buildEnv(t)
	var a *activities.Activities
	putLifeRows(t, b, "corpora/k.parquet", []lifeRow{ // standing by their kind column, whatever the build's kind
		{DocID: "r1", PublishedAt: "2013-01-01", Title: "IA", Text: "Regulation 8: net worth of fifty lakh rupees.", Source: "SEBI", Kind: "standing"},
		{DocID: "r2", PublishedAt: "2024-12-16", Title: "IA", Text: "Regulation 8: a deposit instead of net worth.", Source: "SEBI", Kind: "standing"},
	})
	plan, pub := publishRows(t, env, "k", "corpora/k.parquet", "", false)
	if pub.Unchanged || pub.Lifecycle == nil || pub.Lifecycle.Stats.Superseded != 1 {
		t.Fatalf("first publish %+v", pub)
	}
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	m, _ := layout.ReadLive(context.Background(), b, "k")
	build := indexplan.Build{Index: "k", Period: "month", Chunk: cfg, Model: plan.Model, Shards: m.Shards, Counts: plan.Counts, CreatedAt: time.Now()}
	again := run[activities.PublishManifestResult](t, env, a.PublishManifest, activities.PublishManifestInput{Build: build})
	if !again.Unchanged || again.Seq != pub.Seq {
		t.Fatalf("the same build again: %+v, want unchanged at seq %d", again, pub.Seq)
	}
	build.Kind = schemas.KindStanding
	kinded := run[activities.PublishManifestResult](t, env, a.PublishManifest, activities.PublishManifestInput{Build: build})
	m2, err := layout.ReadLive(context.Background(), b, "k")
	if kinded.Unchanged || kinded.Seq != pub.Seq+1 || err != nil || m2.Kind != schemas.KindStanding || m2.Lifecycle == nil || m2.Lifecycle.Key != pub.Lifecycle.Key {
		t.Fatalf("the same shards as standing: %+v, manifest %+v (%v)", kinded, m2, err)
	}
}
