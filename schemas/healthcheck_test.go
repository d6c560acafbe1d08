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

func TestHealthProbeEqual(t *testing.T) {
	at := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	base := HealthProbe{Version: 1, WorkflowID: "w", RunID: "r", WrittenAt: at, Payload: "p"}
	tests := []struct {
		name string
		o    HealthProbe
		want bool
	}{
		{"same", base, true},
		{"same instant, other zone", HealthProbe{Version: 1, WorkflowID: "w", RunID: "r", WrittenAt: at.In(time.FixedZone("MSK", 3*3600)), Payload: "p"}, true},
		{"other payload", HealthProbe{Version: 1, WorkflowID: "w", RunID: "r", WrittenAt: at, Payload: "q"}, false},
		{"other time", HealthProbe{Version: 1, WorkflowID: "w", RunID: "r", WrittenAt: at.Add(time.Millisecond), Payload: "p"}, false},
		{"other run", HealthProbe{Version: 1, WorkflowID: "w", RunID: "x", WrittenAt: at, Payload: "p"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := base.Equal(tt.o); got != tt.want {
				t.Fatalf("Equal = %v, want %v", got, tt.want)
			}
		})
	}
}
