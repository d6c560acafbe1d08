package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

var pubModel = schemas.ModelRef{ID: "toy", SHA256: "abc", Dim: 3}

func pubShard(id, period string) schemas.ShardMeta {
	return schemas.ShardMeta{ID: id, Period: period, Docs: 1, Chunks: 2}
}

func one() schemas.IndexCounts {
	return schemas.IndexCounts{Read: 1, Indexed: 1, Quarantined: map[string]int64{}}
}

// current reads the live manifest of index.
func current(t *testing.T, b blob.Bucket, index string) (layout.Current, schemas.Manifest) {
	t.Helper()
	ctx := context.Background()
	data, err := blob.ReadAll(ctx, b, path.Join(layout.IndexPrefix(index), "CURRENT"))
	if err != nil {
		t.Fatal(err)
	}
	var cur layout.Current
	if err := json.Unmarshal(data, &cur); err != nil {
		t.Fatal(err)
	}
	data, err = blob.ReadAll(ctx, b, path.Join(layout.IndexPrefix(index), cur.Manifest))
	if err != nil {
		t.Fatal(err)
	}
	m, err := schemas.DecodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	return cur, m
}

func shardIDs(m schemas.Manifest) string {
	var ids []string
	for _, s := range m.Shards {
		ids = append(ids, s.ID)
	}
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

// TestPublishSkipsATakenManifestNumber: a manifest left at CURRENT's next number by a
// publisher that stopped before moving CURRENT does not block later publishes (before, each
// attempt collided on that number until "CURRENT kept changing").
func TestPublishSkipsATakenManifestNumber(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &activities.Activities{Deps: activities.Deps{Bucket: b, Model: pubModel}}
	in := activities.PublishManifestInput{Build: indexplan.Build{Index: "toy", Period: "month", Model: pubModel, Shards: []schemas.ShardMeta{pubShard("s0", "2024-01")}, Counts: one()}}
	if r, err := a.PublishManifest(ctx, in); err != nil || r.Seq != 1 {
		t.Fatalf("first publish: %+v %v", r, err)
	}
	orphan := `{"version": 1, "index": "toy", "seq": 2, "model": {"id": "toy", "sha256": "abc", "dim": 3}, "shards": [{"id": "lost", "period": "2024-02"}]}`
	if _, err := b.Put(ctx, "indexes/toy/manifests/000002.json", strings.NewReader(orphan)); err != nil {
		t.Fatal(err)
	}
	in.Shards = append(in.Shards, pubShard("s1", "2024-02"))
	r, err := a.PublishManifest(ctx, in)
	if err != nil || r.Seq != 3 || r.Key != "indexes/toy/manifests/000003.json" {
		t.Fatalf("publish over a taken number: %+v %v", r, err)
	}
	cur, m := current(t, b, "toy")
	if cur.Seq != 3 || m.Seq != 3 || shardIDs(m) != "s0,s1" {
		t.Fatalf("CURRENT %+v names %+v", cur, m)
	}
	if r, err := a.PublishManifest(ctx, in); err != nil || !r.Unchanged || r.Seq != 3 {
		t.Fatalf("publish again: %+v %v", r, err)
	}
}

// raceBucket holds the first two compare-and-swaps of CURRENT until both publishers have
// reached theirs, so both have read the same CURRENT and written their manifests: one then
// wins and the other must start again from the newer CURRENT.
type raceBucket struct {
	blob.Bucket
	mu      sync.Mutex
	waiting int
	both    chan struct{}
}

func (b *raceBucket) CompareAndSwap(ctx context.Context, key, etag string, r io.Reader) (blob.ObjectInfo, error) {
	if strings.HasSuffix(key, "/CURRENT") {
		b.mu.Lock()
		b.waiting++
		if b.waiting == 2 {
			close(b.both)
		}
		b.mu.Unlock()
		select {
		case <-b.both:
		case <-time.After(5 * time.Second): // the other publisher gave up before its swap
		}
	}
	return b.Bucket.CompareAndSwap(ctx, key, etag, r)
}

// TestConcurrentAppendsKeepEveryShard: two appends planned on the same manifest publish at
// once. Both manifests are valid, CURRENT names one of them, and it lists the base shard and
// both appends' shards, with counts that add up: the loser rebased onto the winner.
func TestConcurrentAppendsKeepEveryShard(t *testing.T) {
	ctx := context.Background()
	local, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := &activities.Activities{Deps: activities.Deps{Bucket: local, Model: pubModel}}
	if _, err := base.PublishManifest(ctx, activities.PublishManifestInput{Build: indexplan.Build{Index: "toy", Period: "month", Model: pubModel,
		Shards: []schemas.ShardMeta{pubShard("s0", "2024-01")}, Counts: one()}}); err != nil {
		t.Fatal(err)
	}
	_, live := current(t, local, "toy")
	rb := &raceBucket{Bucket: local, both: make(chan struct{})}
	a := &activities.Activities{Deps: activities.Deps{Bucket: rb, Model: pubModel}}
	appendOf := func(id string) activities.PublishManifestInput {
		return activities.PublishManifestInput{Build: indexplan.Build{Index: "toy", Period: "month", Model: pubModel, Append: true, BaseSeq: live.Seq, Base: live.Counts,
			Shards: append(append([]schemas.ShardMeta(nil), live.Shards...), pubShard(id, "2024-02")), Counts: one()}}
	}
	ids := []string{"a", "b"}
	results := make([]activities.PublishManifestResult, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = a.PublishManifest(ctx, appendOf(id))
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil {
			t.Fatalf("append %s: %v", ids[i], errs[i])
		}
	}
	cur, m := current(t, local, "toy")
	if cur.Manifest != strings.TrimPrefix(results[0].Key, "indexes/toy/") && cur.Manifest != strings.TrimPrefix(results[1].Key, "indexes/toy/") {
		t.Fatalf("CURRENT %+v names neither publisher's manifest: %+v", cur, results)
	}
	if shardIDs(m) != "a,b,s0" {
		t.Fatalf("live shards %s, want a,b,s0: a shard was lost", shardIDs(m))
	}
	if m.Counts.Read != 3 || m.Counts.Indexed != 3 || !m.Counts.Reconciles() || m.Counts.Chunks != 6 {
		t.Fatalf("live counts %+v, want 3 rows read and indexed, 6 chunks", m.Counts)
	}
	if results[0].Rebased == results[1].Rebased {
		t.Fatalf("results %+v, want exactly one rebased", results)
	}
	for i, r := range results {
		data, err := blob.ReadAll(ctx, local, r.Key)
		if err != nil {
			t.Fatal(err)
		}
		pm, err := schemas.DecodeManifest(data)
		if err != nil || pm.Seq != r.Seq || !strings.Contains(shardIDs(pm), ids[i]) || !strings.Contains(shardIDs(pm), "s0") {
			t.Fatalf("append %s's manifest %s: %+v %v", ids[i], r.Key, pm, err)
		}
	}
}

// TestAppendRefusesARebuiltIndex: an append whose index was rebuilt with another period while
// it ran cannot add its shards to it; it fails without retries and says to run it again.
func TestAppendRefusesARebuiltIndex(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &activities.Activities{Deps: activities.Deps{Bucket: b, Model: pubModel}}
	if _, err := a.PublishManifest(ctx, activities.PublishManifestInput{Build: indexplan.Build{Index: "toy", Period: "month", Model: pubModel,
		Shards: []schemas.ShardMeta{pubShard("s0", "2024-01")}, Counts: one()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.PublishManifest(ctx, activities.PublishManifestInput{Build: indexplan.Build{Index: "toy", Period: "year", Model: pubModel,
		Shards: []schemas.ShardMeta{pubShard("y0", "2024")}, Counts: one()}}); err != nil {
		t.Fatal(err)
	}
	_, err = a.PublishManifest(ctx, activities.PublishManifestInput{Build: indexplan.Build{Index: "toy", Period: "month", Model: pubModel, Append: true, BaseSeq: 1,
		Shards: []schemas.ShardMeta{pubShard("s0", "2024-01"), pubShard("a", "2024-02")}, Counts: one()}})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != activities.ErrTypeMismatch || !strings.Contains(err.Error(), "run the append again") {
		t.Fatalf("err = %v, want a non-retryable Mismatch", err)
	}
	if _, m := current(t, b, "toy"); shardIDs(m) != "y0" {
		t.Fatalf("live shards %s, want the rebuild's y0", shardIDs(m))
	}
}
