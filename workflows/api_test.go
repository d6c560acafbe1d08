package workflows

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/jsonschema"
)

// apiFieldsPath is the file that records every field of major version v's published schemas.
func apiFieldsPath(v int) string {
	return filepath.Join("..", "schemas", "jsonschema", fmt.Sprintf("api-v%d.fields", v))
}

// apiFields lists every field of the published schemas, "file path type" a line.
func apiFields(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, s := range publicSchemas {
		data, err := publicSchema(s.t, s.kind, s.file, s.title)
		if err != nil {
			t.Fatal(err)
		}
		fields, err := jsonschema.Fields(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fields {
			out = append(out, s.file+" "+f)
		}
	}
	slices.Sort(out)
	return out
}

// TestAPIChangesAreAdditive keeps the public API's promise (docs/api.md): within one major
// version a field of a published input or result may be added, never removed, renamed or
// retyped. schemas/jsonschema/api-v<APIVersion>.fields records every field of this version;
// the test fails when one of them is gone from the Go types, and `make schemas` refuses to
// forget it: put the field back, or bump APIVersion (a new major) and run make schemas, which
// starts the next version's file. Added fields are recorded by make schemas.
func TestAPIChangesAreAdditive(t *testing.T) {
	cur := apiFields(t)
	path := apiFieldsPath(APIVersion)
	var base []string
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && *updateSchemas:
	case err != nil:
		t.Fatalf("%v (a new API version starts its file with make schemas)", err)
	default:
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
				base = append(base, line)
			}
		}
	}
	var lost, added []string
	for _, f := range base {
		if _, ok := slices.BinarySearch(cur, f); !ok {
			lost = append(lost, f)
		}
	}
	for _, f := range cur {
		if !slices.Contains(base, f) {
			added = append(added, f)
		}
	}
	if len(lost) > 0 {
		t.Fatalf("API v%d: these fields were removed, renamed or retyped:\n  %s\nWithin a major version changes are additive only (docs/api.md): put them back, or make this API v%d (bump workflows.APIVersion, then make schemas)",
			APIVersion, strings.Join(lost, "\n  "), APIVersion+1)
	}
	if len(added) == 0 {
		return
	}
	if !*updateSchemas {
		t.Fatalf("%s lacks fields the Go types have (run make schemas and commit the result):\n  %s", path, strings.Join(added, "\n  "))
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Every field of asof's public workflow API v%d (docs/api.md): schema file, field path, type.\n", APIVersion)
	fmt.Fprintf(&buf, "# Written by make schemas; a line may be added, never removed (TestAPIChangesAreAdditive).\n")
	for _, f := range cur {
		buf.WriteString(f + "\n")
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
