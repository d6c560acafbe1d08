package brief

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/llm/llmtest"
	"github.com/asofrag/asof/schemas"
)

// script answers the i-th request with replies[i] (the last one again after the end).
func script(replies ...llmtest.Reply) llmtest.Handler {
	var mu sync.Mutex
	i := 0
	return func(llmtest.ChatRequest) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		r := replies[min(i, len(replies)-1)]
		i++
		return r
	}
}

// start runs a loopback server answering with h and a client for it.
func start(t *testing.T, h llmtest.Handler) (*llmtest.Server, *llm.Client) {
	t.Helper()
	srv := llmtest.Start(t, h)
	t.Setenv("ASOF_LLMSUM_TEST_KEY", "")
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "test-model", APIKeyEnv: "ASOF_LLMSUM_TEST_KEY", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	return srv, c
}

// writeOrEvolve asks c for the fixture's evolution (splitFixture) or its digest.
func writeOrEvolve(c Chatter, evolve bool) (schemas.Brief, error) {
	if evolve {
		then, now := splitFixture()
		return Evolve(context.Background(), c, "test-model", "key rate", then, now, asOf)
	}
	return Write(context.Background(), c, "test-model", "key rate", fixture(), asOf, newDays)
}

const badDigest = `{"not_enough":false,"new":[{"text":"The rate rose.","cites":[9]}],"timeline":[]}`

const badEvolution = `{"not_enough":false,"then":[{"text":"Raised to 18%.","cites":[1]}],"now":[]}`

func TestDigestAndEvolveCalls(t *testing.T) {
	ok := func(s string) llmtest.Reply { return llmtest.Reply{Content: s} }
	server500 := llmtest.Reply{Status: 500, Content: "boom"}
	tests := []struct {
		name       string
		evolve     bool
		replies    []llmtest.Reply
		wantReqs   int
		wantErr    []error // all must match; nil: success
		wantRepair []string
	}{
		{name: "digest: good reply", replies: []llmtest.Reply{ok(goodDigest)}, wantReqs: 1},
		{name: "digest: bad then good", replies: []llmtest.Reply{ok(badDigest), ok(goodDigest)}, wantReqs: 2,
			wantRepair: []string{"new #1: cites [9], but there is no document [9]", "the timeline is empty", BriefFormat}},
		{name: "digest: prose then good", replies: []llmtest.Reply{ok("Sure! Here it is."), ok("```json\n" + goodDigest + "\n```")}, wantReqs: 2,
			wantRepair: []string{"the reply is not a JSON object"}},
		{name: "digest: bad twice", replies: []llmtest.Reply{ok(badDigest), ok(badDigest)}, wantReqs: 2,
			wantErr: []error{llm.ErrBadResponse, ErrCheck}},
		{name: "digest: HTTP 500", replies: []llmtest.Reply{server500}, wantReqs: 1, wantErr: []error{llm.ErrServer}},
		{name: "digest: HTTP 500 on the repair turn", replies: []llmtest.Reply{ok(badDigest), server500}, wantReqs: 2, wantErr: []error{llm.ErrServer}},
		{name: "digest: HTTP 429", replies: []llmtest.Reply{{Status: 429}}, wantReqs: 1, wantErr: []error{llm.ErrRateLimited}},
		{name: "evolve: good reply", evolve: true, replies: []llmtest.Reply{ok(goodEvolution)}, wantReqs: 1},
		{name: "evolve: bad then good", evolve: true, replies: []llmtest.Reply{ok(badEvolution), ok(goodEvolution)}, wantReqs: 2,
			wantRepair: []string{`then #1: cites [1], a NEWER document`, EvolutionFormat}},
		{name: "evolve: bad twice", evolve: true, replies: []llmtest.Reply{ok(badEvolution)}, wantReqs: 2,
			wantErr: []error{llm.ErrBadResponse, ErrCheck}},
		{name: "evolve: HTTP 500", evolve: true, replies: []llmtest.Reply{server500}, wantReqs: 1, wantErr: []error{llm.ErrServer}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := start(t, script(tt.replies...))
			b, err := writeOrEvolve(c, tt.evolve)
			reqs := srv.Requests()
			if len(reqs) != tt.wantReqs {
				t.Fatalf("%d requests, want %d (err %v)", len(reqs), tt.wantReqs, err)
			}
			if tt.wantErr != nil {
				for _, want := range tt.wantErr {
					if !errors.Is(err, want) {
						t.Errorf("err = %v, want errors.Is %v", err, want)
					}
				}
				if errors.Is(err, llm.ErrServer) && errors.Is(err, ErrCheck) {
					t.Errorf("a server error is not a check failure: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if b.Method != "llm:test-model" {
				t.Errorf("Method = %q", b.Method)
			}
			if tt.evolve && (len(b.Then) != 2 || len(b.Now) != 2) || !tt.evolve && (len(b.New) != 2 || len(b.Timeline) != 4) {
				t.Errorf("brief = %+v", b)
			}
			first := reqs[0].Messages
			if len(first) != 2 || first[0].Role != "system" || first[1].Role != "user" || !strings.Contains(first[0].Content, "UNTRUSTED DATA") {
				t.Errorf("first request messages = %+v", first)
			}
			if tt.wantReqs < 2 {
				return
			}
			second := reqs[1].Messages
			if len(second) != 4 || second[2].Role != "assistant" || second[2].Content != tt.replies[0].Content || second[3].Role != "user" {
				t.Fatalf("repair request messages = %+v", second)
			}
			if second[0] != first[0] || second[1] != first[1] {
				t.Errorf("the repair request does not repeat the first messages")
			}
			for _, w := range tt.wantRepair {
				if !strings.Contains(second[3].Content, w) {
					t.Errorf("repair message lacks %q:\n%s", w, second[3].Content)
				}
			}
		})
	}
}

// errChatter fails every call with err and counts the calls.
type errChatter struct {
	err   error
	calls int
}

func (e *errChatter) Chat(context.Context, []llm.Message) (string, llm.Usage, error) {
	e.calls++
	return "", llm.Usage{}, e.err
}

func TestDigestWithoutCalls(t *testing.T) {
	future := fixture()
	future[0].Doc.PublishedAt = asOf.Add(24 * time.Hour)
	tests := []struct {
		name      string
		run       func(Chatter) (schemas.Brief, error)
		wantErr   error
		notEnough bool
	}{
		{name: "digest of no blocks is not enough", notEnough: true,
			run: func(c Chatter) (schemas.Brief, error) {
				return Write(context.Background(), c, "m", "q", nil, asOf, newDays)
			}},
		{name: "evolution of no blocks is not enough", notEnough: true,
			run: func(c Chatter) (schemas.Brief, error) {
				return Evolve(context.Background(), c, "m", "q", nil, []evidence.Block{}, asOf)
			}},
		{name: "digest of a leaked block", wantErr: ErrInput,
			run: func(c Chatter) (schemas.Brief, error) {
				return Write(context.Background(), c, "m", "q", future, asOf, newDays)
			}},
		{name: "evolution with a duplicate number", wantErr: ErrInput,
			run: func(c Chatter) (schemas.Brief, error) {
				return Evolve(context.Background(), c, "m", "q", fixture()[:1], fixture()[:1], asOf)
			}},
		{name: "digest with a zero as-of", wantErr: ErrInput,
			run: func(c Chatter) (schemas.Brief, error) {
				return Write(context.Background(), c, "m", "q", fixture(), time.Time{}, newDays)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &errChatter{err: errors.New("must not be called")}
			b, err := tt.run(c)
			if c.calls != 0 {
				t.Errorf("%d calls, want none", c.calls)
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && (!b.NotEnough || b.Method != "llm:m") {
				t.Errorf("brief = %+v, want a NotEnough llm:m brief", b)
			}
		})
	}
}

func TestDigestContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &errChatter{err: ctx.Err()}
	_, err := Write(ctx, c, "m", "q", fixture(), asOf, newDays)
	if !errors.Is(err, context.Canceled) || c.calls != 1 {
		t.Errorf("err = %v after %d calls, want context.Canceled after 1", err, c.calls)
	}
}

// TestBadClaimsAreLeftOut: when the repair turn fails too, the claims that failed their own
// checks are left out and the rest is the brief, with a note; from the repaired reply, or from
// the first when the repaired one cannot be read at all.
func TestBadClaimsAreLeftOut(t *testing.T) {
	// goodDigest with a third "new" claim citing only an older block.
	withBadNew := strings.Replace(goodDigest, `"new":[`, `"new":[{"text":"The rate was held at 16%.","cites":[3]},`, 1)
	withBadThen := strings.Replace(goodEvolution, `"then":[`, `"then":[{"text":"Analysts expected 16%.","cites":[2]},`, 1)
	ok := func(s string) llmtest.Reply { return llmtest.Reply{Content: s} }
	tests := []struct {
		name     string
		evolve   bool
		replies  []llmtest.Reply
		wantNote string
	}{
		{name: "digest: the same bad claim twice", replies: []llmtest.Reply{ok(withBadNew)},
			wantNote: "1 claim of the LLM's summary failed its checks and is left out (new #1: cites no document published in the new window"},
		{name: "digest: a bad claim, then prose", replies: []llmtest.Reply{ok(withBadNew), ok("Sorry, here it is: …")},
			wantNote: "(new #1: cites no document published in the new window"},
		{name: "evolve: the same bad claim twice", evolve: true, replies: []llmtest.Reply{ok(withBadThen)},
			wantNote: "1 claim of the LLM's summary failed its checks and is left out (then #1: cites [2], a NEWER document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := start(t, script(tt.replies...))
			b, err := writeOrEvolve(c, tt.evolve)
			if err != nil || len(srv.Requests()) != 2 {
				t.Fatalf("err = %v after %d requests", err, len(srv.Requests()))
			}
			if b.Method != "llm:test-model" || !strings.Contains(b.Note, tt.wantNote) {
				t.Errorf("method %q, note %q; want the note to say %q", b.Method, b.Note, tt.wantNote)
			}
			if tt.evolve && (len(b.Then) != 2 || len(b.Now) != 2) || !tt.evolve && (len(b.New) != 2 || len(b.Timeline) != 4) {
				t.Errorf("brief = %+v, want the good reply's claims", b)
			}
		})
	}
}

func TestDropClaims(t *testing.T) {
	got, ok := dropClaims("```json\n{\"not_enough\":false,\"new\":[1,2,3],\"timeline\":[4]}\n```", []claimRef{{"new", 0}, {"new", 2}, {"timeline", 0}})
	if !ok || got != `{"new":[2],"not_enough":false,"timeline":[]}` {
		t.Errorf("dropClaims = %s, %v", got, ok)
	}
	if _, ok := dropClaims(`{"new":{}}`, []claimRef{{"new", 0}}); ok {
		t.Error("a list that is not an array was accepted")
	}
}
