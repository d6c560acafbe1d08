package storeio

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestPutAnswer: an answer with a run id comes back from answer.json as written and its
// context.md names the query and the anchor's day; one without a run id writes nothing.
func TestPutAnswer(t *testing.T) {
	ctx := context.Background()
	asOf := time.Date(2023, 3, 3, 15, 4, 0, 0, time.UTC)
	tests := []struct {
		name   string
		ans    schemas.Answer
		wantMD string // "": nothing is written
	}{
		{name: "with a run id", ans: schemas.Answer{RunID: "r1", Query: `rate "hike"`, AsOf: asOf, Context: "[1] 2023-03-01 doc"},
			wantMD: "# Context for \"rate \\\"hike\\\"\" as of 2023-03-03\n\n[1] 2023-03-01 doc\n"},
		{name: "empty context", ans: schemas.Answer{RunID: "r2", Query: "q", AsOf: asOf},
			wantMD: "# Context for \"q\" as of 2023-03-03\n\n\n"},
		{name: "no run id", ans: schemas.Answer{Query: "q", AsOf: asOf, Context: "c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBucket(t)
			if err := PutAnswer(ctx, b, tc.ans); err != nil {
				t.Fatal(err)
			}
			if tc.wantMD == "" {
				objs, err := blob.List(ctx, b, "")
				if err != nil || len(objs) != 0 {
					t.Fatalf("wrote %v (err %v), want nothing", objs, err)
				}
				return
			}
			got, err := GetJSON[schemas.Answer](ctx, b, layout.AnswerKey(tc.ans.RunID))
			if err != nil || got.Query != tc.ans.Query || got.Context != tc.ans.Context || !got.AsOf.Equal(asOf) {
				t.Fatalf("answer.json = %+v, %v; want %+v", got, err, tc.ans)
			}
			r, err := b.Get(ctx, layout.ContextKey(tc.ans.RunID))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			md, err := io.ReadAll(r)
			if err != nil || string(md) != tc.wantMD {
				t.Fatalf("context.md = %q, %v; want %q", md, err, tc.wantMD)
			}
		})
	}
}
