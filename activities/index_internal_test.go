package activities

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestIndexNotFound: a missing index is layout.ErrIndexNotFound in-process (planAppend builds it
// instead of appending) and still a non-retryable InvalidInput error, in the same words, for
// workflows; a damaged index is not mistaken for a missing one.
func TestIndexNotFound(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Deps: Deps{Bucket: b}}
	_, err = a.currentManifest(ctx, "nope")
	var app *temporal.ApplicationError
	if !errors.Is(err, layout.ErrIndexNotFound) || !errors.As(err, &app) || app.Type() != ErrTypeInvalidInput || !app.NonRetryable() ||
		!strings.HasPrefix(app.Message(), `index "nope" does not exist (build it with`) {
		t.Fatalf("missing index: err = %v", err)
	}
	// What a workflow and the CLI see: the failure chain ends on the same words.
	back := temporal.GetDefaultFailureConverter().FailureToError(temporal.GetDefaultFailureConverter().ErrorToFailure(err))
	inner := ""
	for e := back; e != nil; e = errors.Unwrap(e) {
		if app, ok := e.(*temporal.ApplicationError); ok {
			inner = app.Message()
		}
	}
	if !strings.HasPrefix(inner, `index "nope" does not exist`) {
		t.Fatalf("innermost message after the failure converter: %q", inner)
	}
	res := PlanIndexResult{}
	if ids, err := a.planAppend(ctx, PlanIndexInput{Index: "nope", Period: "month"}, &res); err != nil || ids != nil || res.Existing != nil {
		t.Fatalf("append to a missing index: %v %v %+v, want a plain build", ids, err, res)
	}
	// An existing index: the append records which manifest it was planned on.
	a.Model = schemas.ModelRef{ID: "toy", Dim: 3}
	if _, err := a.PublishManifest(ctx, PublishManifestInput{Build: indexplan.Build{Index: "live", Period: "month", Model: a.Model}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.planAppend(ctx, PlanIndexInput{Index: "live", Period: "month"}, &res); err != nil || res.BaseSeq != 1 {
		t.Fatalf("append to index live: base seq %d, %v; want 1", res.BaseSeq, err)
	}
	if _, err := b.Put(ctx, "indexes/broken/CURRENT", strings.NewReader(`{"manifest": "manifests/000001.json", "seq": 1}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, "indexes/broken/manifests/000001.json", strings.NewReader(`{"version": 99}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.planAppend(ctx, PlanIndexInput{Index: "broken", Period: "month"}, &res); err == nil || errors.Is(err, layout.ErrIndexNotFound) {
		t.Fatalf("append to a damaged index: err = %v, want an error that is not layout.ErrIndexNotFound", err)
	}
}
