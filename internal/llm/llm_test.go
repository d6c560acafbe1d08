package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/llm/llmtest"
)

// testKey is distinctive so that any leak into an error message is found.
const (
	testKeyEnv = "ASOF_LLM_TEST_KEY"
	testKey    = "sk-asof-test-9f3c1e7a5b2d4680"
)

var sentinels = []error{llm.ErrConfig, llm.ErrRateLimited, llm.ErrServer, llm.ErrBadResponse, llm.ErrInvalidReply}

// newClient starts a client for srv with the test key in testKeyEnv.
func newClient(t *testing.T, baseURL string, mod func(*llm.Config)) *llm.Client {
	t.Helper()
	t.Setenv(testKeyEnv, testKey)
	cfg := llm.Config{BaseURL: baseURL, Model: "test-model", APIKeyEnv: testKeyEnv}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func TestChatSuccess(t *testing.T) {
	msgs := []llm.Message{
		{Role: "system", Content: "You judge relevance."},
		{Role: "user", Content: "first question here"},
		{Role: "assistant", Content: "an answer"},
		{Role: "user", Content: "second question"},
	}
	tests := []struct {
		name          string
		mod           func(*llm.Config)
		wantMaxTokens int
		wantTemp      float64
		wantJSON      bool
	}{
		{name: "defaults", wantMaxTokens: 512, wantTemp: 0},
		{name: "explicit", mod: func(c *llm.Config) { c.MaxTokens = 64; c.Temperature = 0.5 }, wantMaxTokens: 64, wantTemp: 0.5},
		{name: "json", mod: func(c *llm.Config) { c.JSON = true }, wantMaxTokens: 512, wantJSON: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t, llmtest.Text("the verdict is relevant"), llmtest.WithAPIKey(testKey))
			c := newClient(t, srv.URL(), tt.mod)

			got, usage, err := c.Chat(context.Background(), msgs)
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if got != "the verdict is relevant" {
				t.Errorf("content = %q", got)
			}
			// llmtest counts words: 3+3+2+2 in the prompt, 4 in the answer.
			if want := (llm.Usage{PromptTokens: 10, CompletionTokens: 4}); usage != want {
				t.Errorf("usage = %+v, want %+v", usage, want)
			}

			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server got %d requests, want 1", len(reqs))
			}
			req := reqs[0]
			if req.Model != "test-model" {
				t.Errorf("model = %q", req.Model)
			}
			if req.Temperature == nil || *req.Temperature != tt.wantTemp {
				t.Errorf("temperature = %v, want %v sent explicitly", req.Temperature, tt.wantTemp)
			}
			if req.MaxTokens == nil || *req.MaxTokens != tt.wantMaxTokens {
				t.Errorf("max_tokens = %v, want %d", req.MaxTokens, tt.wantMaxTokens)
			}
			var sent []llm.Message
			for _, m := range req.Messages {
				sent = append(sent, llm.Message{Role: m.Role, Content: m.Content})
			}
			if !reflect.DeepEqual(sent, msgs) {
				t.Errorf("messages = %+v, want %+v", sent, msgs)
			}
			if got := strings.Contains(string(req.Body), `"response_format":{"type":"json_object"}`); got != tt.wantJSON {
				t.Errorf("response_format json_object sent: %v, want %v (body %s)", got, tt.wantJSON, req.Body)
			}
			if req.Authorization != "Bearer "+testKey {
				t.Errorf("Authorization = %q, want Bearer <key>", req.Authorization)
			}
			if strings.Contains(string(req.Body), testKey) {
				t.Error("the API key appears in the request body")
			}
		})
	}
}

// TestChatSchema: with Config.Schemas a call's schema goes out as response_format json_schema
// (strict, named, the document as given); without, the call is Chat's (a JSON object when JSON
// is set, else no response_format); a schema without a name is a configuration error.
func TestChatSchema(t *testing.T) {
	type item struct {
		Const int `json:"const"`
	}
	schema := llm.Schema{Name: "verdicts", Doc: map[string]any{"type": "array", "prefixItems": []item{{1}, {2}}}}
	tests := []struct {
		name string
		mod  func(*llm.Config)
		want string // in the body; "" for no response_format at all
	}{
		{name: "schemas", mod: func(c *llm.Config) { c.Schemas, c.JSON = true, true },
			want: `"response_format":{"json_schema":{"name":"verdicts","strict":true,"schema":{"prefixItems":[{"const":1},{"const":2}],"type":"array"}},"type":"json_schema"}`},
		{name: "json only", mod: func(c *llm.Config) { c.JSON = true }, want: `"response_format":{"type":"json_object"}`},
		{name: "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t, llmtest.Text(`{"ok":1}`), llmtest.WithAPIKey(testKey))
			c := newClient(t, srv.URL(), tt.mod)
			got, _, err := c.ChatSchema(context.Background(), []llm.Message{{Role: "user", Content: "judge"}}, schema)
			if err != nil || got != `{"ok":1}` {
				t.Fatalf("ChatSchema = %q, %v", got, err)
			}
			body := string(srv.Requests()[0].Body)
			if tt.want == "" {
				if strings.Contains(body, "response_format") {
					t.Errorf("response_format sent: %s", body)
				}
			} else if !strings.Contains(body, tt.want) {
				t.Errorf("body lacks %s:\n%s", tt.want, body)
			}
		})
	}
	c := newClient(t, "http://127.0.0.1:1/v1", func(c *llm.Config) { c.Schemas = true })
	if _, _, err := c.ChatSchema(context.Background(), []llm.Message{{Role: "user", Content: "x"}}, llm.Schema{Doc: map[string]any{}}); !errors.Is(err, llm.ErrConfig) {
		t.Errorf("a schema with no name: %v, want ErrConfig", err)
	}
}

func TestChatFaults(t *testing.T) {
	tests := []struct {
		name      string
		reply     llmtest.Reply
		timeout   time.Duration
		want      error
		retryable bool
	}{
		{name: "401", reply: llmtest.Reply{Status: 401, Content: "bad key"}, want: llm.ErrConfig},
		{name: "401 echoing the key", reply: llmtest.Reply{Status: 401, Content: "Incorrect API key provided: " + testKey}, want: llm.ErrConfig},
		{name: "403", reply: llmtest.Reply{Status: 403}, want: llm.ErrConfig},
		{name: "404 unknown model", reply: llmtest.Reply{Status: 404, Content: "model test-model not found"}, want: llm.ErrConfig},
		{name: "400", reply: llmtest.Reply{Status: 400, Content: "context too long"}, want: llm.ErrConfig},
		{name: "429", reply: llmtest.Reply{Status: 429, Content: "slow down"}, want: llm.ErrRateLimited, retryable: true},
		{name: "408", reply: llmtest.Reply{Status: 408}, want: llm.ErrServer, retryable: true},
		{name: "500", reply: llmtest.Reply{Status: 500}, want: llm.ErrServer, retryable: true},
		{name: "503", reply: llmtest.Reply{Status: 503, Content: "loading model"}, want: llm.ErrServer, retryable: true},
		{name: "502 non-JSON body echoing the key", reply: llmtest.Reply{Status: 502, Raw: "<html>upstream failed; Authorization: Bearer " + testKey + "</html>"}, want: llm.ErrServer, retryable: true},
		{name: "timeout", reply: llmtest.Reply{Content: "late", Delay: 5 * time.Second}, timeout: 150 * time.Millisecond, want: llm.ErrServer, retryable: true},
		{name: "hang", reply: llmtest.Reply{Content: "never", Delay: time.Hour}, timeout: 150 * time.Millisecond, want: llm.ErrServer, retryable: true},
		{name: "malformed JSON", reply: llmtest.Reply{Raw: `{"id":"x","choices":[{"message":`}, want: llm.ErrBadResponse, retryable: true},
		{name: "not JSON at all", reply: llmtest.Reply{Raw: "I am not JSON"}, want: llm.ErrBadResponse, retryable: true},
		{name: "empty choices", reply: llmtest.Reply{Raw: `{"id":"x","object":"chat.completion","choices":[]}`}, want: llm.ErrBadResponse, retryable: true},
		{name: "empty content", reply: llmtest.Reply{Content: ""}, want: llm.ErrBadResponse, retryable: true},
		{name: "blank content", reply: llmtest.Reply{Content: " \n "}, want: llm.ErrBadResponse, retryable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t, func(llmtest.ChatRequest) llmtest.Reply { return tt.reply })
			c := newClient(t, srv.URL(), func(c *llm.Config) { c.Timeout = tt.timeout })

			start := time.Now()
			_, _, err := c.Chat(context.Background(), []llm.Message{{Role: "user", Content: "hi"}})
			checkErr(t, err, tt.want, tt.retryable)
			if tt.timeout > 0 && time.Since(start) > tt.timeout+2*time.Second {
				t.Errorf("Chat took %v with a %v timeout", time.Since(start), tt.timeout)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("server got %d requests, want 1 (retries are the caller's job)", n)
			}
		})
	}
}

func TestChatConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := newClient(t, "http://"+addr+"/v1", nil)
	_, _, err = c.Chat(context.Background(), []llm.Message{{Role: "user", Content: "hi"}})
	checkErr(t, err, llm.ErrServer, true)
}

func TestChatCallerCancel(t *testing.T) {
	srv := llmtest.Start(t, func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Content: "x", Delay: time.Hour} })
	c := newClient(t, srv.URL(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := c.Chat(ctx, []llm.Message{{Role: "user", Content: "hi"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's context error", err)
	}
	if llm.Retryable(err) {
		t.Error("Retryable = true for the caller's own deadline")
	}
}

func TestChatBadRequest(t *testing.T) {
	srv := llmtest.Start(t, nil)
	c := newClient(t, srv.URL(), nil)
	tests := []struct {
		name string
		msgs []llm.Message
	}{
		{name: "no messages"},
		{name: "unknown role", msgs: []llm.Message{{Role: "tool", Content: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := c.Chat(context.Background(), tt.msgs)
			checkErr(t, err, llm.ErrConfig, false)
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server got %d requests for invalid input", n)
	}
}

func TestAPIKey(t *testing.T) {
	const other = "sk-other-env-key-should-not-be-sent"
	tests := []struct {
		name       string
		apiKeyEnv  string
		env        map[string]string
		serverKey  string // "" accepts anything
		wantHeader string
		wantErr    error
	}{
		{
			name:      "named variable",
			apiKeyEnv: testKeyEnv, env: map[string]string{testKeyEnv: testKey, "OPENAI_API_KEY": other},
			serverKey: testKey, wantHeader: "Bearer " + testKey,
		},
		{
			name:      "default variable",
			env:       map[string]string{"OPENAI_API_KEY": testKey},
			serverKey: testKey, wantHeader: "Bearer " + testKey,
		},
		{
			name:      "named variable unset sends no key, not OPENAI_API_KEY",
			apiKeyEnv: testKeyEnv, env: map[string]string{testKeyEnv: "", "OPENAI_API_KEY": other},
			wantHeader: "",
		},
		{
			name:      "wrong key is rejected without leaking it",
			apiKeyEnv: testKeyEnv, env: map[string]string{testKeyEnv: testKey},
			serverKey: "sk-the-right-one", wantHeader: "Bearer " + testKey, wantErr: llm.ErrConfig,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var opts []llmtest.Option
			if tt.serverKey != "" {
				opts = append(opts, llmtest.WithAPIKey(tt.serverKey))
			}
			srv := llmtest.Start(t, llmtest.Text("ok"), opts...)
			c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", APIKeyEnv: tt.apiKeyEnv})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%+v", c.Config())} {
				if strings.Contains(s, testKey) || strings.Contains(s, other) {
					t.Errorf("formatted client leaks the key: %s", s)
				}
			}
			_, _, err = c.Chat(context.Background(), []llm.Message{{Role: "user", Content: "hi"}})
			if tt.wantErr == nil && err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if tt.wantErr != nil {
				checkErr(t, err, tt.wantErr, false)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server got %d requests, want 1", len(reqs))
			}
			if reqs[0].Authorization != tt.wantHeader {
				t.Errorf("Authorization = %q, want %q", reqs[0].Authorization, tt.wantHeader)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	valid := llm.Config{BaseURL: "http://127.0.0.1:8000/v1", Model: "qwen2.5-0.5b-instruct"}
	tests := []struct {
		name    string
		mod     func(*llm.Config)
		wantErr bool
	}{
		{name: "minimal", mod: func(*llm.Config) {}},
		{name: "full", mod: func(c *llm.Config) {
			c.BaseURL = "https://api.example.com/v1"
			c.APIKeyEnv = "MY_LLM_KEY"
			c.Timeout = time.Second
			c.MaxTokens = 10
			c.Temperature = 2
		}},
		{name: "empty base URL", mod: func(c *llm.Config) { c.BaseURL = " " }, wantErr: true},
		{name: "unparsable base URL", mod: func(c *llm.Config) { c.BaseURL = "http://[::1" }, wantErr: true},
		{name: "no scheme", mod: func(c *llm.Config) { c.BaseURL = "127.0.0.1:8000/v1" }, wantErr: true},
		{name: "ftp scheme", mod: func(c *llm.Config) { c.BaseURL = "ftp://host/v1" }, wantErr: true},
		{name: "no host", mod: func(c *llm.Config) { c.BaseURL = "http:///v1" }, wantErr: true},
		{name: "credentials in URL", mod: func(c *llm.Config) { c.BaseURL = "https://user:" + testKey + "@host/v1" }, wantErr: true},
		{name: "empty model", mod: func(c *llm.Config) { c.Model = "" }, wantErr: true},
		{name: "key instead of variable name", mod: func(c *llm.Config) { c.APIKeyEnv = testKey }, wantErr: true},
		{name: "negative timeout", mod: func(c *llm.Config) { c.Timeout = -time.Second }, wantErr: true},
		{name: "negative max tokens", mod: func(c *llm.Config) { c.MaxTokens = -1 }, wantErr: true},
		{name: "negative temperature", mod: func(c *llm.Config) { c.Temperature = -0.1 }, wantErr: true},
		{name: "temperature above 2", mod: func(c *llm.Config) { c.Temperature = 2.5 }, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := valid
			tt.mod(&cfg)
			err := cfg.Validate()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, llm.ErrConfig) || llm.Retryable(err) {
				t.Errorf("err = %v, want a non-retryable ErrConfig", err)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the key: %v", err)
			}
			if _, nerr := llm.New(cfg); !errors.Is(nerr, llm.ErrConfig) {
				t.Errorf("New accepted an invalid config: %v", nerr)
			}
		})
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "nil", err: nil},
		{name: "other", err: errors.New("x")},
		{name: "canceled", err: context.Canceled},
		{name: "config", err: fmt.Errorf("wrapped: %w", llm.ErrConfig)},
		{name: "rate limited", err: fmt.Errorf("wrapped: %w", llm.ErrRateLimited), want: true},
		{name: "server", err: fmt.Errorf("wrapped: %w", llm.ErrServer), want: true},
		{name: "bad response", err: fmt.Errorf("wrapped: %w", llm.ErrBadResponse), want: true},
		{name: "invalid reply", err: fmt.Errorf("wrapped: %w", llm.ErrInvalidReply)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.Retryable(tt.err); got != tt.want {
				t.Errorf("Retryable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// checkErr asserts that err wraps want and no other sentinel, has the given
// retryability, and does not contain the test key.
func checkErr(t *testing.T, err, want error, retryable bool) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %v", want)
	}
	for _, s := range sentinels {
		if got := errors.Is(err, s); got != (s == want) {
			t.Errorf("errors.Is(err, %v) = %v; err = %v", s, got, err)
		}
	}
	if got := llm.Retryable(err); got != retryable {
		t.Errorf("Retryable = %v, want %v; err = %v", got, retryable, err)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error message leaks the API key: %v", err)
	}
}
