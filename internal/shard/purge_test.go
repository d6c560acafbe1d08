package shard

import (
	"slices"
	"testing"

	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

func TestWithout(t *testing.T) {
	chunks := []schemas.Chunk{
		{DocID: "a", Seq: 0}, {DocID: "a", Seq: 1}, {DocID: "b", Seq: 0},
		{DocID: "a", Version: 2, Seq: 0}, {DocID: "c", Seq: 0}, {DocID: "c", Version: 2, Seq: 0},
	}
	vec := vecindex.New(2, "m")
	for i := range chunks {
		if err := vec.Add([]float32{float32(i), -float32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name          string
		gone          map[string]bool
		keep          []string
		docs, removed int
	}{
		{"nothing gone", nil, []string{"a", "a", "b", "a", "c", "c"}, 5, 0},
		{"every version of a", map[string]bool{"a": true}, []string{"b", "c", "c"}, 3, 3},
		{"a and c", map[string]bool{"a": true, "c": true}, []string{"b"}, 1, 5},
		{"everything", map[string]bool{"a": true, "b": true, "c": true}, nil, 0, 6},
		{"an id the shard lacks", map[string]bool{"z": true}, []string{"a", "a", "b", "a", "c", "c"}, 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept, v, docs, removed, err := Without(chunks, vec, tc.gone)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, c := range kept {
				ids = append(ids, c.DocID)
				// each kept row keeps its own vector
				j := slices.IndexFunc(chunks, func(o schemas.Chunk) bool { return o.DocID == c.DocID && o.Version == c.Version && o.Seq == c.Seq })
				if !slices.Equal(v.Row(i), vec.Row(j)) {
					t.Fatalf("row %d (%s) has vector %v, want %v", i, c.DocID, v.Row(i), vec.Row(j))
				}
			}
			if !slices.Equal(ids, tc.keep) || docs != tc.docs || removed != tc.removed || v.Count != len(kept) {
				t.Fatalf("kept %v (%d vectors), %d docs, %d removed; want %v, %d, %d", ids, v.Count, docs, removed, tc.keep, tc.docs, tc.removed)
			}
		})
	}
	if _, _, _, _, err := Without(chunks[:2], vec, nil); err == nil {
		t.Fatal("6 vectors for 2 chunks: want an error")
	}
	if len(chunks) != 6 || vec.Count != 6 {
		t.Fatal("Without modified its inputs")
	}
}

func TestPurgedID(t *testing.T) {
	a := PurgedID("s1", []string{"b", "a"})
	for _, tc := range []struct {
		name string
		id   string
		gone []string
		same bool
	}{
		{"order and repeats do not matter", "s1", []string{"a", "b", "a"}, true},
		{"another set", "s1", []string{"a"}, false},
		{"another shard", "s2", []string{"a", "b"}, false},
		{"no separator games", "s1\x00a", []string{"b"}, false},
	} {
		if got := PurgedID(tc.id, tc.gone) == a; got != tc.same {
			t.Errorf("%s: same id %v, want %v", tc.name, got, tc.same)
		}
	}
	if len(a) != 24 || a == "s1" {
		t.Errorf("id %q", a)
	}
}
