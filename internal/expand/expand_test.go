package expand

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/llm/llmtest"
)

var asOf = time.Date(2023, 6, 30, 0, 0, 0, 0, time.UTC)

func TestParse(t *testing.T) {
	both := Request{Query: "Who won the NBA finals?", AsOf: asOf, Queries: 2, HyDE: true}
	qs := Request{Query: "Who won the NBA finals?", AsOf: asOf, Queries: 2}
	tests := []struct {
		name    string
		reply   string
		r       Request
		want    Expansion
		wantErr string
	}{
		{"both", `{"queries":["NBA championship winner 2023","Nuggets Heat finals result"],"passage":"The Denver Nuggets won."}`, both,
			Expansion{Queries: []string{"NBA championship winner 2023", "Nuggets Heat finals result"}, Passage: "The Denver Nuggets won."}, ""},
		{"fenced", "```json\n{\"queries\":[\"a b\"]}\n```", qs, Expansion{Queries: []string{"a b"}}, ""},
		{"the question repeated is dropped", `{"queries":["who won the nba finals?","finals winner"]}`, qs, Expansion{Queries: []string{"finals winner"}}, ""},
		{"duplicates dropped", `{"queries":["x y","X Y"]}`, qs, Expansion{Queries: []string{"x y"}}, ""},
		{"prose", `Sure! Here are some queries.`, qs, Expansion{}, "not the JSON object"},
		{"unknown key", `{"queries":["a"],"notes":"x"}`, qs, Expansion{}, "unknown field"},
		{"too many", `{"queries":["a","b","c"]}`, qs, Expansion{}, "at most 2"},
		{"empty query", `{"queries":["a",""]}`, qs, Expansion{}, "query 2 is empty"},
		{"no queries", `{"queries":[]}`, qs, Expansion{}, `no "queries"`},
		{"passage not asked", `{"queries":["a"],"passage":"p"}`, qs, Expansion{}, "was not asked"},
		{"no passage", `{"queries":["a"]}`, both, Expansion{}, `no "passage"`},
		{"trailing text", `{"queries":["a"]} and more`, qs, Expansion{}, "after the JSON"},
		{"too long", `{"queries":["` + strings.Repeat("a", MaxQueryRunes+1) + `"]}`, qs, Expansion{}, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.reply, tt.r)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrReply) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrReply with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got.Queries, tt.want.Queries) || got.Passage != tt.want.Passage {
				t.Fatalf("Parse = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestRequestValidate(t *testing.T) {
	for _, r := range []Request{{Query: " ", AsOf: asOf, Queries: 1}, {Query: "q", AsOf: asOf}, {Query: "q", AsOf: asOf, Queries: 6}, {Query: "q", Queries: 1}} {
		if r.Validate() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}

// TestGenerate talks to a real OpenAI-protocol server on loopback: a prose reply costs one
// repair turn that names the problem; two bad replies are llm.ErrBadResponse; the prompt
// carries the anchor date.
func TestGenerate(t *testing.T) {
	r := Request{Query: "Who won the NBA finals?", AsOf: asOf, Queries: 2, HyDE: true}
	var calls atomic.Int32
	srv := llmtest.Start(t, func(req llmtest.ChatRequest) llmtest.Reply {
		if calls.Add(1) == 1 {
			return llmtest.Reply{Content: "The Nuggets, I think."}
		}
		return llmtest.Reply{Content: `{"queries":["2023 NBA champion"],"passage":"Denver beat Miami in five games."}`}
	})
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "fake", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Generate(context.Background(), c, r)
	if err != nil || len(e.Queries) != 1 || e.Passage == "" {
		t.Fatalf("Generate = %+v, %v", e, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[0].Messages[1].Content, "2023-06-30") || !strings.Contains(reqs[1].Messages[3].Content, "could not be used") {
		t.Fatalf("%d requests; first %q", len(reqs), reqs[0].Messages[1].Content)
	}
	bad := llmtest.Start(t, llmtest.Text("no JSON here"))
	cb, _ := llm.New(llm.Config{BaseURL: bad.URL(), Model: "fake", Timeout: 2 * time.Second})
	if _, err := Generate(context.Background(), cb, r); !errors.Is(err, llm.ErrBadResponse) {
		t.Fatalf("two bad replies: %v, want ErrBadResponse", err)
	}
}
