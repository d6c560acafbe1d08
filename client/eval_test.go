package client

import (
	"testing"

	"github.com/asofrag/asof/workflows"
)

// TestEvalResumeID: equal inputs on one index version, scored by the same code, name one
// evaluation (a rerun resumes); a new index version, another input or other code names another.
func TestEvalResumeID(t *testing.T) {
	in := workflows.EvalInput{Index: "rtqa", Systems: []string{"temporal_rrf"}, Limit: 5}
	v1, v2 := []byte("manifests/000001.json"), []byte("manifests/000002.json")
	a, b := EvalResumeID(in, v1, "code"), EvalResumeID(in, v1, "code")
	in2 := in
	in2.Limit = 6
	if a != b || len(a) != 16 {
		t.Fatalf("equal inputs: ids %s %s", a, b)
	}
	for name, other := range map[string]string{
		"another index version": EvalResumeID(in, v2, "code"),
		"another input":         EvalResumeID(in2, v1, "code"),
		"other code":            EvalResumeID(in, v1, "code2"),
	} {
		if other == a {
			t.Errorf("%s: the same id %s", name, a)
		}
	}
}
