package schemas

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestAnswerFromOmittedWithoutAStart: an answer with no start to its range says nothing of
// one (not "0001-01-01T00:00:00Z"), and one with a start keeps it through a round trip.
func TestAnswerFromOmittedWithoutAStart(t *testing.T) {
	to := time.Date(2025, 8, 1, 23, 59, 59, 0, time.UTC)
	for _, tt := range []struct {
		name string
		from time.Time
		want bool
	}{
		{"no start", time.Time{}, false},
		{"a start", time.Date(2024, 8, 1, 0, 0, 0, 0, time.UTC), true},
	} {
		data, err := json.Marshal(Answer{From: tt.from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(data), `"from"`); got != tt.want {
			t.Fatalf("%s: %s", tt.name, data)
		}
		var back Answer
		if err := json.Unmarshal(data, &back); err != nil || !back.From.Equal(tt.from) {
			t.Fatalf("%s: read back %v, %v", tt.name, back.From, err)
		}
	}
}
