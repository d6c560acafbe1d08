package brief

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/llm/llmtest"
)

func TestBriefSchema(t *testing.T) {
	claim := func(date string, cites string) string {
		d, req := "", `"text","cites"`
		if date != "" {
			d, req = `"date":{"type":"string","enum":`+date+`},`, `"date","text","cites"`
		}
		return `{"type":"object","properties":{` + d + `"text":{"type":"string","maxLength":800},"cites":{"type":"array","items":{"type":"integer","enum":` + cites +
			`},"minItems":1,"maxItems":3}},"required":[` + req + `],"additionalProperties":false}`
	}
	days := `["2023-12-15","2024-05-10","2024-06-25","2024-06-28"]`
	tests := []struct {
		name    string
		newDays int
		want    string
	}{
		{"new cites only the window's blocks; the timeline's dates are the blocks' days", newDays,
			`{"type":"object","properties":{"not_enough":{"type":"boolean"},` +
				`"new":{"type":"array","items":` + claim("", "[1,2]") + `,"maxItems":6},` +
				`"timeline":{"type":"array","items":` + claim(days, "[1,2,3,4]") + `,"maxItems":10}},` +
				`"required":["not_enough","new","timeline"],"additionalProperties":false}`},
		{"no new window: new is empty", 0,
			`{"type":"object","properties":{"not_enough":{"type":"boolean"},` +
				`"new":{"type":"array","maxItems":0},` +
				`"timeline":{"type":"array","items":` + claim(days, "[1,2,3,4]") + `,"maxItems":10}},` +
				`"required":["not_enough","new","timeline"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := BriefSchema(fixture(), asOf, tt.newDays)
			got, err := json.Marshal(s.Doc)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != "brief" || string(got) != tt.want {
				t.Errorf("schema %s:\n%s\nwant\n%s", s.Name, got, tt.want)
			}
		})
	}
	// A window with no block in it: "new" must be [].
	old := fixture()[2:]
	got, _ := json.Marshal(BriefSchema(old, asOf, newDays).Doc)
	if !strings.Contains(string(got), `"new":{"type":"array","maxItems":0}`) {
		t.Errorf("no block in the window, schema %s", got)
	}

	then, now := splitFixture()
	got, _ = json.Marshal(EvolutionSchema(then, now).Doc)
	want := `{"type":"object","properties":{"not_enough":{"type":"boolean"},` +
		`"then":{"type":"array","items":` + claim("", "[3,4]") + `,"maxItems":6},` +
		`"now":{"type":"array","items":` + claim("", "[1,2]") + `,"maxItems":6}},` +
		`"required":["not_enough","then","now"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("evolution schema\n%s\nwant\n%s", got, want)
	}
}

// TestWriteSendsTheSchema: a client that sends schemas (llm.Config.Schemas, --llm local) asks
// for BriefSchema with the first call and the repair turn; one that does not sends none.
func TestWriteSendsTheSchema(t *testing.T) {
	for _, schemas := range []bool{true, false} {
		var mu sync.Mutex
		var formats []string
		srv := llmtest.Start(t, func(r llmtest.ChatRequest) llmtest.Reply {
			var body struct {
				ResponseFormat struct {
					Type       string `json:"type"`
					JSONSchema struct {
						Name   string          `json:"name"`
						Schema json.RawMessage `json:"schema"`
					} `json:"json_schema"`
				} `json:"response_format"`
			}
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Error(err)
			}
			mu.Lock()
			defer mu.Unlock()
			formats = append(formats, body.ResponseFormat.Type+" "+body.ResponseFormat.JSONSchema.Name+" "+string(body.ResponseFormat.JSONSchema.Schema))
			if len(formats) == 1 {
				return llmtest.Reply{Content: badDigest}
			}
			return llmtest.Reply{Content: goodDigest}
		})
		t.Setenv("ASOF_LLMSUM_TEST_KEY", "")
		c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", APIKeyEnv: "ASOF_LLMSUM_TEST_KEY", Timeout: 5 * time.Second, JSON: true, Schemas: schemas})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Write(context.Background(), c, "m", "key rate", fixture(), asOf, newDays); err != nil {
			t.Fatalf("schemas %v: %v", schemas, err)
		}
		want, _ := json.Marshal(BriefSchema(fixture(), asOf, newDays).Doc)
		for i, f := range formats {
			switch {
			case schemas && f != "json_schema brief "+string(want):
				t.Errorf("call %d sent %q, want the brief schema", i+1, f)
			case !schemas && f != "json_object  ":
				t.Errorf("call %d without schemas sent %q, want json_object", i+1, f)
			}
		}
		if len(formats) != 2 {
			t.Errorf("schemas %v: %d calls, want 2 (a repair turn)", schemas, len(formats))
		}
	}
}
