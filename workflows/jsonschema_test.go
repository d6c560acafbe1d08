package workflows

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/jsonschema"
	"github.com/asofrag/asof/schemas"
)

// -update-schemas rewrites schemas/jsonschema/*.json from the Go types (make schemas).
var updateSchemas = flag.Bool("update-schemas", false, "rewrite ../schemas/jsonschema/*.json from the Go types")

// publicSchemas are the published schemas of asof's public workflow inputs and results, and of
// the JSON documents the workflows write (docs/schemas.md).
var publicSchemas = []struct {
	file  string
	t     reflect.Type
	kind  jsonschema.Kind
	title string
}{
	{"ask-input.json", reflect.TypeFor[AskInput](), jsonschema.Input, "Input of the Ask workflow"},
	{"answer.json", reflect.TypeFor[schemas.Answer](), jsonschema.Output, "Result of the Ask workflow, and runs/<run-id>/answer.json"},
	{"digest-input.json", reflect.TypeFor[DigestInput](), jsonschema.Input, "Input of the Digest workflow"},
	{"digest-result.json", reflect.TypeFor[DigestResult](), jsonschema.Output, "Result of the Digest workflow"},
	{"digest.json", reflect.TypeFor[schemas.Digest](), jsonschema.Output, "digests/<name>/<day>/digest.json"},
	{"eval-input.json", reflect.TypeFor[EvalInput](), jsonschema.Input, "Input of the Eval workflow"},
	{"eval-result.json", reflect.TypeFor[EvalResult](), jsonschema.Output, "Result of the Eval workflow"},
	{"eval-summary.json", reflect.TypeFor[evalrun.SummaryFile](), jsonschema.Output, "evals/<eval-id>/summary.json"},
	{"index-build-input.json", reflect.TypeFor[IndexBuildInput](), jsonschema.Input, "Input of the IndexBuild workflow"},
	{"index-build-result.json", reflect.TypeFor[IndexBuildResult](), jsonschema.Output, "Result of the IndexBuild workflow"},
	{"timeline-input.json", reflect.TypeFor[TimelineInput](), jsonschema.Input, "Input of the Timeline workflow"},
	{"timeline.json", reflect.TypeFor[schemas.Timeline](), jsonschema.Output, "Result of the Timeline workflow, and runs/<run-id>/timeline.json"},
}

// publicSchema is the published schema of t: its JSON Schema, with $id and title, carrying
// APIVersion as "x-asof-api-version".
func publicSchema(t reflect.Type, kind jsonschema.Kind, file, title string) ([]byte, error) {
	s := jsonschema.For(t, kind, "https://github.com/asofrag/asof/schemas/jsonschema/"+file, title)
	s["x-asof-api-version"] = APIVersion
	return s.Marshal()
}

// TestPublishedJSONSchemasAreCurrent regenerates every published schema from the Go types
// and fails when a committed file differs (or is missing, or left over): refresh them with
// `make schemas` (go test ./workflows -run TestPublishedJSONSchemasAreCurrent -update-schemas).
func TestPublishedJSONSchemasAreCurrent(t *testing.T) {
	dir := filepath.Join("..", "schemas", "jsonschema")
	want := map[string]bool{}
	for _, s := range publicSchemas {
		want[s.file] = true
		data, err := publicSchema(s.t, s.kind, s.file, s.title)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, s.file)
		if *updateSchemas {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run make schemas)", path, err)
			continue
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s is stale: %s changed; run make schemas and commit the result", path, s.t)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !want[filepath.Base(f)] {
			t.Errorf("%s is not generated from any type: remove it or list it in publicSchemas", f)
		}
	}
}
