package openaitest

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

type errorBody struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

func TestRespond(t *testing.T) {
	ok := func() any { return map[string]any{"answer": 42} }
	tests := []struct {
		name       string
		fault      Fault
		wantStatus int
		wantBody   string // exact body, when not an error object
		wantType   string // error object's type
		wantMsg    string // error object's message
	}{
		{name: "plain", fault: Fault{}, wantStatus: 200, wantBody: "{\"answer\":42}\n"},
		{name: "explicit 201", fault: Fault{Status: 201}, wantStatus: 201, wantBody: "{\"answer\":42}\n"},
		{name: "server error", fault: Fault{Status: 503, Message: "overloaded"}, wantStatus: 503, wantType: "server_error", wantMsg: "overloaded"},
		{name: "client error, default message", fault: Fault{Status: 429}, wantStatus: 429, wantType: "invalid_request_error", wantMsg: "Too Many Requests"},
		{name: "raw body", fault: Fault{Raw: `{"choices":[]}`}, wantStatus: 200, wantBody: `{"choices":[]}`},
		{name: "raw body with status", fault: Fault{Status: 500, Raw: "not json"}, wantStatus: 500, wantBody: "not json"},
		{name: "short delay then answer", fault: Fault{Delay: time.Millisecond}, wantStatus: 200, wantBody: "{\"answer\":42}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			Respond(w, httptest.NewRequest(http.MethodPost, "/v1/x", nil), context.Background(), tt.fault, ok)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d", w.Code, tt.wantStatus)
			}
			if tt.wantType == "" {
				if got := w.Body.String(); got != tt.wantBody {
					t.Errorf("body %q, want %q", got, tt.wantBody)
				}
				return
			}
			var e errorBody
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
				t.Fatalf("error body %q: %v", w.Body, err)
			}
			if e.Error.Type != tt.wantType || e.Error.Message != tt.wantMsg {
				t.Errorf("error %+v, want type %s message %q", e.Error, tt.wantType, tt.wantMsg)
			}
		})
	}
}

func TestRespondDelayEndsOnStop(t *testing.T) {
	tests := []struct {
		name   string
		cancel func(stop, client context.CancelFunc)
	}{
		{name: "server stops", cancel: func(stop, _ context.CancelFunc) { stop() }},
		{name: "client goes away", cancel: func(_, client context.CancelFunc) { client() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop, cancelStop := context.WithCancel(context.Background())
			defer cancelStop()
			rctx, cancelClient := context.WithCancel(context.Background())
			defer cancelClient()
			r := httptest.NewRequest(http.MethodPost, "/v1/x", nil).WithContext(rctx)
			w := httptest.NewRecorder()
			called := false
			done := make(chan struct{})
			go func() {
				Respond(w, r, stop, Fault{Delay: time.Hour}, func() any { called = true; return nil })
				close(done)
			}()
			tt.cancel(cancelStop, cancelClient)
			limit := time.NewTimer(10 * time.Second)
			defer limit.Stop()
			select {
			case <-done:
			case <-limit.C:
				t.Fatal("Respond still waiting on its Delay")
			}
			if called || w.Body.Len() > 0 {
				t.Errorf("a released hang wrote %q (body called: %v), want nothing", w.Body, called)
			}
		})
	}
}

func TestAuthorized(t *testing.T) {
	tests := []struct {
		name, key, auth string
		want            bool
	}{
		{name: "no key wanted", key: "", auth: "", want: true},
		{name: "no key wanted, one sent", key: "", auth: "Bearer x", want: true},
		{name: "right key", key: "k", auth: "Bearer k", want: true},
		{name: "missing key", key: "k", auth: "", want: false},
		{name: "wrong key", key: "k", auth: "Bearer j", want: false},
		{name: "key without Bearer", key: "k", auth: "k", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			if got := Authorized(w, tt.key, tt.auth); got != tt.want {
				t.Fatalf("Authorized = %v, want %v", got, tt.want)
			}
			if !tt.want && w.Code != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", w.Code)
			}
			if tt.want && w.Body.Len() > 0 {
				t.Errorf("an authorized request was answered %q", w.Body)
			}
		})
	}
}

func TestWriteJSONUnencodable(t *testing.T) {
	w := httptest.NewRecorder()
	WriteJSON(w, http.StatusOK, map[string]any{"v": math.NaN()})
	var e errorBody
	if w.Code != http.StatusInternalServerError || json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error.Type != "server_error" {
		t.Errorf("NaN reply: status %d body %q, want 500 with a server_error object", w.Code, w.Body)
	}
}

func TestLog(t *testing.T) {
	var l Log[string]
	var wg sync.WaitGroup
	seen := make([]bool, 51)
	var mu sync.Mutex
	for range 50 {
		wg.Go(func() {
			n := l.Add("r")
			mu.Lock()
			seen[n] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	for n := 1; n <= 50; n++ {
		if !seen[n] {
			t.Errorf("number %d never given: Add must number requests 1..n once each", n)
		}
	}
	got := l.Requests()
	got[0] = "changed"
	if len(got) != 50 || l.Requests()[0] != "r" {
		t.Errorf("Requests: %d entries, or not a copy", len(got))
	}
}

func TestStart(t *testing.T) {
	var stop context.Context
	t.Run("server", func(t *testing.T) {
		var srv *httptest.Server
		srv, stop = Start(t, func(w http.ResponseWriter, r *http.Request) {
			WriteJSON(w, http.StatusAccepted, r.Method+" "+r.Header.Get("Authorization"))
		})
		status, body := Call(t, http.MethodPut, srv.URL, "Bearer k", "")
		if status != http.StatusAccepted || string(body) != "\"PUT Bearer k\"\n" || stop.Err() != nil {
			t.Fatalf("status %d, body %q, stop %v", status, body, stop.Err())
		}
	})
	if stop.Err() == nil {
		t.Error("the stop context is still live after the test ended")
	}
}
