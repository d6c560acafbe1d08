package answer

import (
	"reflect"
	"testing"

	"github.com/asofrag/asof/schemas"
)

func TestJudgeBatch(t *testing.T) {
	rows := []schemas.CandidateRow{{Rank: 1, DocID: "a"}, {Rank: 2, DocID: "b"}, {Rank: 3, DocID: "c"}}
	tests := []struct {
		name     string
		from, to int
		want     []int // batch ids
		wantErr  string
	}{
		{name: "whole pool", from: 1, to: 3, want: []int{1, 2, 3}},
		{name: "middle", from: 2, to: 2, want: []int{2}},
		{name: "from zero", from: 0, to: 2, wantErr: "bad batch 0..2"},
		{name: "reversed", from: 3, to: 2, wantErr: "bad batch 3..2"},
		{name: "past the pool", from: 2, to: 4, wantErr: "batch 2..4 is past the pool's 3 candidates"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			batch, pool, err := JudgeBatch(rows, tt.from, tt.to)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			var ids []int
			for _, d := range batch {
				ids = append(ids, d.ID)
			}
			if err != nil || !reflect.DeepEqual(ids, tt.want) || len(pool) != len(rows) {
				t.Fatalf("batch %v pool %d, %v; want %v and the whole pool", ids, len(pool), err, tt.want)
			}
			batch[0].Title = "changed" // the batch is a copy: the pool stays as read
			if pool[tt.from-1].Title != "" {
				t.Fatal("the batch shares the pool's docs")
			}
		})
	}
}
