package indexplan_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/asofrag/asof/internal/indexplan"
)

// ones returns n periods of one document each.
func ones(n int) []int {
	d := make([]int, n)
	for i := range d {
		d[i] = 1
	}
	return d
}

// TestBatches: consecutive periods fill a batch up to the shard and document bounds; a period
// over the document bound is alone; the sizes add up to every period, in order.
func TestBatches(t *testing.T) {
	small := indexplan.BatchOptions{MaxShards: 3, MaxDocs: 10}
	tests := []struct {
		name string
		docs []int
		o    indexplan.BatchOptions
		want []int
	}{
		{name: "no periods", docs: nil, o: small, want: nil},
		{name: "one period", docs: []int{4}, o: small, want: []int{1}},
		{name: "shard bound", docs: ones(7), o: small, want: []int{3, 3, 1}},
		{name: "exactly full", docs: ones(6), o: small, want: []int{3, 3}},
		{name: "document bound reached exactly", docs: []int{4, 6, 1}, o: small, want: []int{2, 1}},
		{name: "document bound passed", docs: []int{4, 7, 2}, o: small, want: []int{1, 2}},
		{name: "a big period alone between small ones", docs: []int{1, 2, 50, 1, 1}, o: small, want: []int{2, 1, 2}},
		{name: "big periods one a batch", docs: []int{11, 12, 13}, o: small, want: []int{1, 1, 1}},
		{name: "big period first", docs: []int{100, 1, 1, 1, 1}, o: small, want: []int{1, 3, 1}},
		{name: "defaults: 3,000 daily shards of one document", docs: ones(3000), o: indexplan.DefaultBatchOptions(),
			want: append(slices.Repeat([]int{64}, 46), 3000-46*64)},
		{name: "defaults: weekly shards of 7 documents", docs: slices.Repeat([]int{7}, 40), o: indexplan.DefaultBatchOptions(),
			want: []int{36, 4}},
		{name: "max shards below 1 means 1", docs: ones(3), o: indexplan.BatchOptions{MaxShards: 0, MaxDocs: 10}, want: []int{1, 1, 1}},
		{name: "max docs below 1: each period alone", docs: []int{1, 2}, o: indexplan.BatchOptions{MaxShards: 5}, want: []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := indexplan.Batches(tt.docs, tt.o)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Batches = %v, want %v", got, tt.want)
			}
			total, at := 0, 0
			for _, n := range got {
				sum := 0
				for _, d := range tt.docs[at : at+n] {
					sum += d
				}
				if n > 1 && sum > tt.o.MaxDocs {
					t.Errorf("batch at %d: %d periods, %d documents, over %d", at, n, sum, tt.o.MaxDocs)
				}
				total += n
				at += n
			}
			if total != len(tt.docs) {
				t.Errorf("batches hold %d periods, want %d", total, len(tt.docs))
			}
		})
	}
}
