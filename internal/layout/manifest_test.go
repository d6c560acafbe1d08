package layout_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

func bucket(t *testing.T) blob.Bucket {
	t.Helper()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func manifest(ids ...string) schemas.Manifest {
	m := schemas.Manifest{Version: schemas.ManifestVersion, Index: "news", CreatedAt: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),
		Model: schemas.ModelRef{ID: "e5", SHA256: "abc", Dim: 4}, Period: "month"}
	for _, id := range ids {
		m.Shards = append(m.Shards, schemas.ShardMeta{ID: id, Period: "2024-03"})
	}
	return m
}

func sameIDs(want schemas.Manifest) func(schemas.Manifest) bool {
	return func(m schemas.Manifest) bool {
		if len(m.Shards) != len(want.Shards) {
			return false
		}
		for i := range m.Shards {
			if m.Shards[i].ID != want.Shards[i].ID {
				return false
			}
		}
		return true
	}
}

// TestPublishAndRead writes a manifest and CURRENT the way PublishManifest does and reads them
// back, checking CURRENT's exact bytes (old stores hold them).
func TestPublishAndRead(t *testing.T) {
	ctx := context.Background()
	b := bucket(t)
	if _, err := layout.ReadCurrent(ctx, b, "news"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("no index: err %v, want blob.ErrNotFound", err)
	}
	m := manifest("s1", "s2")
	rel, err := layout.PutManifest(ctx, b, "news", &m, 1, sameIDs(m))
	if err != nil {
		t.Fatal(err)
	}
	if rel != "manifests/000001.json" || m.Seq != 1 {
		t.Fatalf("put at %q seq %d, want manifests/000001.json seq 1", rel, m.Seq)
	}
	if err := layout.MoveCurrent(ctx, b, "news", "", layout.Current{Manifest: rel, Seq: m.Seq}); err != nil {
		t.Fatal(err)
	}
	data, err := blob.ReadAll(ctx, b, "indexes/news/CURRENT")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"manifest":"manifests/000001.json","seq":1}`; string(data) != want {
		t.Errorf("CURRENT holds %s, want %s", data, want)
	}
	cur, etag, err := layout.ReadCurrentForSwap(ctx, b, "news")
	if err != nil || etag == "" || cur != (layout.Current{Manifest: rel, Seq: 1}) {
		t.Fatalf("ReadCurrentForSwap = %+v, %q, %v", cur, etag, err)
	}
	got, err := layout.ReadManifest(ctx, b, layout.ManifestOf("news", cur))
	if err != nil {
		t.Fatal(err)
	}
	if got.Seq != 1 || len(got.Shards) != 2 || got.Shards[1].ID != "s2" {
		t.Errorf("read back %+v", got)
	}

	// A second CURRENT is refused without an ETag, and with a stale one.
	if err := layout.MoveCurrent(ctx, b, "news", "", layout.Current{Manifest: "manifests/000002.json", Seq: 2}); !errors.Is(err, blob.ErrPreconditionFailed) {
		t.Errorf("create over a CURRENT: err %v, want blob.ErrPreconditionFailed", err)
	}
	if err := layout.MoveCurrent(ctx, b, "news", etag, layout.Current{Manifest: "manifests/000002.json", Seq: 2}); err != nil {
		t.Fatal(err)
	}
	if err := layout.MoveCurrent(ctx, b, "news", etag, layout.Current{Manifest: "manifests/000003.json", Seq: 3}); !errors.Is(err, blob.ErrPreconditionFailed) {
		t.Errorf("swap on a stale ETag: err %v, want blob.ErrPreconditionFailed", err)
	}
}

// TestPutManifestTakenNumbers checks that a number holding another publisher's manifest is
// skipped and one holding this publish's own is reused.
func TestPutManifestTakenNumbers(t *testing.T) {
	ctx := context.Background()
	b := bucket(t)
	theirs := manifest("t1")
	if _, err := layout.PutManifest(ctx, b, "news", &theirs, 1, sameIDs(theirs)); err != nil {
		t.Fatal(err)
	}
	ours := manifest("o1", "o2")
	rel, err := layout.PutManifest(ctx, b, "news", &ours, 1, sameIDs(ours))
	if err != nil || rel != layout.ManifestName(2) || ours.Seq != 2 {
		t.Fatalf("over theirs: %q seq %d err %v, want %s seq 2", rel, ours.Seq, err, layout.ManifestName(2))
	}
	again := manifest("o1", "o2")
	rel, err = layout.PutManifest(ctx, b, "news", &again, 2, sameIDs(again))
	if err != nil || rel != layout.ManifestName(2) || again.Seq != 2 {
		t.Fatalf("retry: %q seq %d err %v, want our own %s reused", rel, again.Seq, err, layout.ManifestName(2))
	}
}

// TestDamaged checks that a CURRENT or manifest that does not decode is reported as damaged,
// with the key in the text.
func TestDamaged(t *testing.T) {
	ctx := context.Background()
	b := bucket(t)
	if _, err := b.Put(ctx, "indexes/news/CURRENT", strings.NewReader("{not json")); err != nil {
		t.Fatal(err)
	}
	_, err := layout.ReadCurrent(ctx, b, "news")
	if !errors.Is(err, layout.ErrDamaged) || !strings.HasPrefix(err.Error(), "indexes/news/CURRENT is damaged: ") {
		t.Errorf("damaged CURRENT: err %v", err)
	}
	if _, err := b.Put(ctx, "indexes/news/manifests/000001.json", strings.NewReader(`{"version": 99}`)); err != nil {
		t.Fatal(err)
	}
	_, err = layout.ReadManifest(ctx, b, layout.ManifestKey("news", 1))
	if !errors.Is(err, layout.ErrDamaged) || !strings.Contains(err.Error(), "manifest version 99 is not supported") {
		t.Errorf("manifest of another version: err %v", err)
	}
	if _, err := layout.ReadManifest(ctx, b, layout.ManifestKey("news", 2)); !errors.Is(err, blob.ErrNotFound) || errors.Is(err, layout.ErrDamaged) {
		t.Errorf("missing manifest: err %v, want blob.ErrNotFound only", err)
	}
}
