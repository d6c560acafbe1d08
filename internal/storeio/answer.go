package storeio

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// PutAnswer writes an answer's run files: answer.json (indented) and context.md, the context
// it was written from under a title naming its query and anchor (layout.AnswerKey,
// layout.ContextKey). An answer without a run id is not stored.
func PutAnswer(ctx context.Context, b blob.Bucket, ans schemas.Answer) error {
	if ans.RunID == "" {
		return nil
	}
	if err := PutIndentedJSON(ctx, b, layout.AnswerKey(ans.RunID), ans); err != nil {
		return err
	}
	md := fmt.Sprintf("# Context for %q as of %s\n\n%s\n", ans.Query, ans.AsOf.Format(time.DateOnly), ans.Context)
	_, err := b.Put(ctx, layout.ContextKey(ans.RunID), strings.NewReader(md))
	return err
}
