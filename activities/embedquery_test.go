package activities_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/embed/embedtest"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestQueryEmbeddingMalformedRepliesAreNotRetried: EmbedQuery and EmbedVariants fail for good
// on an embedding reply that parses but breaks the API (a retry gets the same reply), say what
// was wrong, and leave a server error to the retry policy.
func TestQueryEmbeddingMalformedRepliesAreNotRetried(t *testing.T) {
	tests := []struct {
		name         string
		reply        embedtest.Reply
		variants     bool
		wantFinal    bool
		wantMsg      string
		wantRequests int
	}{
		{name: "query: no vector", reply: embedtest.Reply{Raw: `{"data":[]}`}, wantFinal: true, wantMsg: "0 vectors for 1 inputs"},
		{name: "query: infinite value", reply: embedtest.Reply{Raw: `{"data":[{"index":0,"embedding":[1e39,2]}]}`}, wantFinal: true, wantMsg: "non-finite"},
		{name: "query: index out of range", reply: embedtest.Reply{Raw: `{"data":[{"index":3,"embedding":[1,2]}]}`}, wantFinal: true, wantMsg: "out of range"},
		{name: "query: server error is retried", reply: embedtest.Reply{Status: 503}, wantFinal: false, wantMsg: "503"},
		{name: "rephrasing: no vector", reply: embedtest.Reply{Raw: `{"data":[]}`}, variants: true, wantFinal: true, wantMsg: "rephrasing 1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return tt.reply })
			remote, err := embed.NewRemote(embed.RemoteConfig{BaseURL: srv.URL(), Model: "broken", APIKeyEnv: "ASOF_TEST_NO_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			var s testsuite.WorkflowTestSuite
			env := s.NewTestActivityEnvironment()
			env.RegisterActivity(&activities.Activities{Deps: activities.Deps{Embedder: remote}})
			var a *activities.Activities
			if tt.variants {
				_, err = env.ExecuteActivity(a.EmbedVariants, activities.EmbedVariantsInput{Queries: []string{"who won"}})
			} else {
				_, err = env.ExecuteActivity(a.EmbedQuery, activities.EmbedQueryInput{Text: "who won"})
			}
			var app *temporal.ApplicationError
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("err = %v, want one saying %q", err, tt.wantMsg)
			}
			final := errors.As(err, &app) && app.NonRetryable()
			if final != tt.wantFinal {
				t.Errorf("non-retryable = %v, want %v (err %v)", final, tt.wantFinal, err)
			}
		})
	}
}

// modelEmbedder embeds every text to the same vector, its model's mark, and counts its calls.
type modelEmbedder struct {
	id    string
	vec   []float32
	calls int
}

func (m *modelEmbedder) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	m.calls++
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = m.vec
	}
	return out, nil
}
func (m *modelEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return m.EmbedQueries(ctx, texts)
}
func (m *modelEmbedder) Dim() int        { return len(m.vec) }
func (m *modelEmbedder) ModelID() string { return m.id }
func (m *modelEmbedder) Close() error    { return nil }

// fakeQueryModels serves the models it has and fails the others with a "not pulled" error,
// counting acquires and releases.
type fakeQueryModels struct {
	have               map[string]*modelEmbedder
	refs               map[string]schemas.ModelRef
	acquired, released int
}

func (f *fakeQueryModels) Acquire(_ context.Context, id string) (embed.Embedder, schemas.ModelRef, func(), error) {
	e, ok := f.have[id]
	if !ok {
		return nil, schemas.ModelRef{}, nil, fmt.Errorf("model not pulled: %s is not in /models (fetch it with `asof models pull %s`)", id, id)
	}
	f.acquired++
	return e, f.refs[id], func() { f.released++ }, nil
}

// TestQueriesAreEmbeddedWithTheIndexModel: EmbedQuery, EmbedVariants and EmbedTexts given an
// index embed with the model its live manifest records, loaded through QueryModels (and
// released), where that is not the worker's own; with the worker's own for no index (workflows
// from before the field), an index not found, the worker's own model, a model from an
// embeddings server, or a worker without QueryModels (an embeddings server's); and fail for
// good, naming the index, the model and the pull command, when the model cannot be loaded, or
// both sha256 when the model loaded is other weights under the index's id.
func TestQueriesAreEmbeddedWithTheIndexModel(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	own := schemas.ModelRef{ID: "multi", SHA256: "sha-multi", Dim: 2}
	english := schemas.ModelRef{ID: "english", SHA256: "sha-english", Dim: 2}
	for index, model := range map[string]schemas.ModelRef{
		"en": english, "multi": own, "gone": {ID: "gone", SHA256: "sha-gone", Dim: 2},
		"served":  {ID: "english", SHA256: schemas.RemoteModelPrefix + "abc", Dim: 2},
		"retuned": {ID: "english", SHA256: "sha-other", Dim: 2},
	} {
		if _, err := layout.Publish(ctx, b, index, func(*schemas.Manifest, int, error) (*schemas.Manifest, error) {
			return &schemas.Manifest{Version: 1, Index: index, Model: model, Period: "month"}, nil
		}, func(schemas.Manifest, *schemas.Manifest) bool { return false }); err != nil {
			t.Fatal(err)
		}
	}
	newActs := func(withModels bool) (*activities.Activities, *fakeQueryModels) {
		qm := &fakeQueryModels{have: map[string]*modelEmbedder{"english": {id: "english", vec: []float32{0, 1}}}, refs: map[string]schemas.ModelRef{"english": english}}
		deps := activities.Deps{Bucket: b, Embedder: &modelEmbedder{id: "multi", vec: []float32{1, 0}}, Model: own}
		if withModels {
			deps.QueryModels = qm
		}
		return &activities.Activities{Deps: deps}, qm
	}
	var s testsuite.WorkflowTestSuite
	tests := []struct {
		name       string
		index      string
		noModels   bool
		want       schemas.ModelRef
		wantLoaded int    // acquires through QueryModels
		wantErr    string // a final error saying this
	}{
		{name: "the index's model", index: "en", want: english, wantLoaded: 1},
		{name: "no index: the worker's", want: own},
		{name: "the worker's own model", index: "multi", want: own},
		{name: "index not found: the worker's (retrieval says so)", index: "nope", want: own},
		{name: "a server's model: the worker's (retrieval says what to pass)", index: "served", want: own},
		{name: "the index's id, other weights: both sha256 named", index: "retuned",
			wantErr: "index retuned was built with model english (sha256 sha-other…), this worker's english is other weights"},
		{name: "no QueryModels (an embeddings server): its one model", index: "en", noModels: true, want: own},
		{name: "not pulled", index: "gone", wantErr: "index gone was built with model gone, which this worker cannot load to embed its queries: model not pulled: gone is not in /models (fetch it with `asof models pull gone`)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acts, qm := newActs(!tt.noModels)
			env := s.NewTestActivityEnvironment()
			env.RegisterActivity(acts)
			var results []schemas.ModelRef
			var vecs [][]float32
			val, err := env.ExecuteActivity(acts.EmbedQuery, activities.EmbedQueryInput{Text: "who won", Index: tt.index})
			if tt.wantErr != "" {
				var app *temporal.ApplicationError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &app) || !app.NonRetryable() {
					t.Fatalf("err = %v, want a final one saying %q", err, tt.wantErr)
				}
				if qm.acquired != qm.released {
					t.Fatalf("%d acquired, %d released", qm.acquired, qm.released)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var q activities.EmbedQueryResult
			if err := val.Get(&q); err != nil {
				t.Fatal(err)
			}
			results, vecs = append(results, q.Model), append(vecs, q.Vector)
			if val, err = env.ExecuteActivity(acts.EmbedVariants, activities.EmbedVariantsInput{Queries: []string{"who won"}, Passage: "they won", Index: tt.index}); err != nil {
				t.Fatal(err)
			}
			var v activities.EmbedVariantsResult
			if err := val.Get(&v); err != nil || len(v.Variants) != 2 {
				t.Fatalf("variants %+v %v", v, err)
			}
			vecs = append(vecs, v.Variants[0].Vec, v.Variants[1].Vec)
			if val, err = env.ExecuteActivity(acts.EmbedTexts, activities.EmbedTextsInput{Texts: []string{"a", "b"}, Index: tt.index}); err != nil {
				t.Fatal(err)
			}
			var e activities.EmbedTextsResult
			if err := val.Get(&e); err != nil {
				t.Fatal(err)
			}
			results, vecs = append(results, e.Model), append(vecs, e.Vectors...)
			for _, r := range results {
				if r != tt.want {
					t.Errorf("model %+v, want %+v", r, tt.want)
				}
			}
			wantVec := []float32{1, 0}
			if tt.want == english {
				wantVec = []float32{0, 1}
			}
			for _, v := range vecs {
				if len(v) != 2 || v[0] != wantVec[0] || v[1] != wantVec[1] {
					t.Errorf("vector %v, want %v (%s's)", v, wantVec, tt.want.ID)
				}
			}
			if qm.acquired != 3*tt.wantLoaded || qm.released != qm.acquired {
				t.Errorf("%d acquired, %d released; want %d each", qm.acquired, qm.released, 3*tt.wantLoaded)
			}
		})
	}
}
