package activities_test

import (
	"testing"

	"github.com/asofrag/asof/activities"
)

func TestParseEvalSystem(t *testing.T) {
	for _, name := range append(append([]string{}, activities.EvalSystems...), "temporal_rrf+dedup", "bm25_nomask+dedup") {
		if _, err := activities.ParseEvalSystem(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, bad := range []string{"", "bm26", "bm25+fast", "+dedup"} {
		if _, err := activities.ParseEvalSystem(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
