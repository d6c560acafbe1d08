package schemas

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestHealthProbeRoundTrip(t *testing.T) {
	in := HealthProbe{Version: HealthProbeVersion, WorkflowID: "wf", RunID: "run", WrittenAt: time.Date(2026, 11, 22, 7, 0, 0, 123e6, time.UTC), Payload: "abc"}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out HealthProbe
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip: got %+v, want %+v", out, in)
	}
}
