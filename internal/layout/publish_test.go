package layout_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestPublish drives Publish's loop: a first publish, one that changes nothing, a publisher
// that loses a race once (and sees the winner's manifest on its second read), one that loses
// every time, an error from next, and a live manifest that does not read.
func TestPublish(t *testing.T) {
	ours := func(existing schemas.Manifest, m *schemas.Manifest) bool { return sameIDs(*m)(existing) }
	errNext := errors.New("next refuses")
	tests := []struct {
		name string
		// before publishes these manifests first (each one a publish of its own).
		before [][]string
		// damage replaces the live manifest with bytes that do not decode.
		damage bool
		// races is how many of next's calls another publisher wins by moving CURRENT first.
		races   int
		next    func(live *schemas.Manifest, seq int, liveErr error) (*schemas.Manifest, error)
		want    layout.Published
		wantErr string
		// calls is how many times next runs; seen is the live manifest's shard count on its
		// last call (-1: none).
		calls, seen int
	}{
		{name: "first publish", next: add("a"), want: layout.Published{Key: "indexes/news/manifests/000001.json", Seq: 1}, calls: 1, seen: -1},
		{name: "over a live index", before: [][]string{{"a"}}, next: add("b"), want: layout.Published{Key: "indexes/news/manifests/000002.json", Seq: 2}, calls: 1, seen: 1},
		{name: "nothing to publish", before: [][]string{{"a"}},
			next: func(*schemas.Manifest, int, error) (*schemas.Manifest, error) { return nil, nil },
			want: layout.Published{Key: "indexes/news/manifests/000001.json", Seq: 1, Unchanged: true}, calls: 1, seen: 1},
		{name: "loses one race", before: [][]string{{"a"}}, races: 1, next: add("b"),
			// 000002 is the winner's; 000003 this publisher's first try, which lists other shards
			// than its second (the winner's are in it now), so it is skipped.
			want: layout.Published{Key: "indexes/news/manifests/000004.json", Seq: 4}, calls: 2, seen: 2},
		{name: "loses every race", races: layout.PublishAttempts, next: add("b"), wantErr: "CURRENT kept changing under 5 attempts", calls: layout.PublishAttempts, seen: layout.PublishAttempts - 1},
		{name: "next fails", before: [][]string{{"a"}},
			next:    func(*schemas.Manifest, int, error) (*schemas.Manifest, error) { return nil, errNext },
			wantErr: errNext.Error(), calls: 1, seen: 1},
		{name: "live manifest damaged", before: [][]string{{"a"}}, damage: true,
			next: func(live *schemas.Manifest, seq int, liveErr error) (*schemas.Manifest, error) {
				if live != nil || seq != 1 || !errors.Is(liveErr, layout.ErrDamaged) {
					return nil, errors.New("want no live manifest, seq 1 and ErrDamaged")
				}
				m := manifest("b")
				return &m, nil
			},
			want: layout.Published{Key: "indexes/news/manifests/000002.json", Seq: 2}, calls: 1, seen: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			b := bucket(t)
			for _, ids := range tc.before {
				if _, err := layout.Publish(ctx, b, "news", add(ids...), ours); err != nil {
					t.Fatal(err)
				}
			}
			if tc.damage {
				if _, err := b.Put(ctx, "indexes/news/manifests/000001.json", strings.NewReader(`{"version":`)); err != nil {
					t.Fatal(err)
				}
			}
			calls, seen := 0, -1
			got, err := layout.Publish(ctx, b, "news", func(live *schemas.Manifest, seq int, liveErr error) (*schemas.Manifest, error) {
				calls, seen = calls+1, -1
				if live != nil {
					seen = len(live.Shards)
				}
				if calls <= tc.races { // another publisher moves CURRENT after this read
					if _, err := layout.Publish(ctx, b, "news", add(strings.Repeat("x", calls)), ours); err != nil {
						t.Fatal(err)
					}
				}
				return tc.next(live, seq, liveErr)
			}, ours)
			if calls != tc.calls || seen != tc.seen {
				t.Fatalf("next ran %d times, last seeing %d shards; want %d, %d", calls, seen, tc.calls, tc.seen)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Publish = %+v, %v; want %+v", got, err, tc.want)
			}
			cur, err := layout.ReadCurrent(ctx, b, "news")
			if tc.want.Unchanged {
				return
			}
			if err != nil || cur.Seq != tc.want.Seq {
				t.Fatalf("CURRENT = %+v, %v; want seq %d", cur, err, tc.want.Seq)
			}
		})
	}
}

// add returns a next that publishes the live manifest's shards plus ids.
func add(ids ...string) func(live *schemas.Manifest, _ int, _ error) (*schemas.Manifest, error) {
	return func(live *schemas.Manifest, _ int, _ error) (*schemas.Manifest, error) {
		m := manifest(ids...)
		if live != nil {
			m.Shards = append(append([]schemas.ShardMeta(nil), live.Shards...), m.Shards...)
		}
		return &m, nil
	}
}
