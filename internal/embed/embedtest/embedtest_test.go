package embedtest_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/embed/embedtest"
	"github.com/asofrag/asof/internal/openaitest"
)

// post sends body to the server's embeddings endpoint and decodes the answer.
func post(t *testing.T, url, auth, body string) (int, map[string]any) {
	t.Helper()
	status, b := openaitest.Call(t, http.MethodPost, url+"/embeddings", auth, body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("body is not a JSON object: %s", b)
	}
	return status, v
}

// items is a reply's data list as (index, vector) pairs in wire order.
func items(t *testing.T, reply map[string]any) (idx []int, vecs [][]float32) {
	t.Helper()
	data, _ := reply["data"].([]any)
	for _, d := range data {
		m := d.(map[string]any)
		idx = append(idx, int(m["index"].(float64)))
		switch e := m["embedding"].(type) {
		case []any:
			v := make([]float32, len(e))
			for i, x := range e {
				v[i] = float32(x.(float64))
			}
			vecs = append(vecs, v)
		case string:
			b, err := base64.StdEncoding.DecodeString(e)
			if err != nil {
				t.Fatal(err)
			}
			v := make([]float32, len(b)/4)
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
			vecs = append(vecs, v)
		}
	}
	return idx, vecs
}

func TestVector(t *testing.T) {
	a, b := embedtest.Vector("alpha", 384), embedtest.Vector("beta", 384)
	if !reflect.DeepEqual(a, embedtest.Vector("alpha", 384)) {
		t.Error("Vector is not deterministic")
	}
	var na, dot float64
	for i := range a {
		na += float64(a[i]) * float64(a[i])
		dot += float64(a[i]) * float64(b[i])
	}
	if math.Abs(na-1) > 1e-5 {
		t.Errorf("|Vector|² = %v, want 1", na)
	}
	if math.Abs(dot) > 0.3 {
		t.Errorf("two texts' vectors have cosine %v, want nearly orthogonal", dot)
	}
	if embedtest.Vector("x", 0) != nil {
		t.Error("Vector(x, 0) is not nil")
	}
}

func TestServerReplies(t *testing.T) {
	inputs := []string{"one", "two words", "three", "four", "five"}
	in, _ := json.Marshal(inputs)
	body := `{"model":"m","input":` + string(in) + `,"input_type":"passage","truncate":true}`
	tests := []struct {
		name      string
		reply     embedtest.Reply
		body      string
		wantIndex []int // nil: 0..n-1
		wantDim   int
	}{
		{name: "default", wantDim: embedtest.DefaultDim},
		{name: "dim", reply: embedtest.Reply{Dim: 7}, wantDim: 7},
		{name: "base64", body: strings.Replace(body, `"model"`, `"encoding_format":"base64","model"`, 1), wantDim: embedtest.DefaultDim},
		{name: "drop", reply: embedtest.Reply{Drop: true}, wantIndex: []int{0, 1, 2, 3}, wantDim: embedtest.DefaultDim},
		{name: "duplicate", reply: embedtest.Reply{Duplicate: true}, wantIndex: []int{0, 1, 2, 3, 0}, wantDim: embedtest.DefaultDim},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return tt.reply })
			b := body
			if tt.body != "" {
				b = tt.body
			}
			status, reply := post(t, srv.URL(), "", b)
			if status != 200 {
				t.Fatalf("status %d: %v", status, reply)
			}
			idx, vecs := items(t, reply)
			want := tt.wantIndex
			if want == nil {
				want = []int{0, 1, 2, 3, 4}
			}
			if !reflect.DeepEqual(idx, want) {
				t.Errorf("indexes = %v, want %v", idx, want)
			}
			for i, v := range vecs {
				if !reflect.DeepEqual(v, embedtest.Vector(inputs[idx[i]], tt.wantDim)) {
					t.Errorf("item %d is not Vector(%q, %d)", i, inputs[idx[i]], tt.wantDim)
				}
			}
			if u := reply["usage"].(map[string]any); u["prompt_tokens"] != float64(6) {
				t.Errorf("usage = %v, want 6 prompt tokens", u)
			}
			r := srv.Requests()[0]
			if r.Model != "m" || !reflect.DeepEqual(r.Input, inputs) || r.InputType != "passage" ||
				!reflect.DeepEqual(r.Extra, map[string]any{"input_type": "passage", "truncate": true}) || string(r.Body) != b {
				t.Errorf("recorded request = %+v", r)
			}
		})
	}
}

func TestServerShuffle(t *testing.T) {
	srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return embedtest.Reply{Shuffle: true} })
	for n := 2; n <= 9; n++ {
		inputs := make([]string, n)
		for i := range inputs {
			inputs[i] = strings.Repeat("x", i+1)
		}
		in, _ := json.Marshal(inputs)
		_, reply := post(t, srv.URL(), "", `{"model":"m","input":`+string(in)+`}`)
		idx, vecs := items(t, reply)
		seen, ordered := map[int]bool{}, true
		for i, k := range idx {
			seen[k] = true
			ordered = ordered && k == i
			if !reflect.DeepEqual(vecs[i], embedtest.Vector(inputs[k], embedtest.DefaultDim)) {
				t.Errorf("n=%d: item %d (index %d) carries another text's vector", n, i, k)
			}
		}
		if len(seen) != n || ordered {
			t.Errorf("n=%d: indexes %v, want a permutation other than the input order", n, idx)
		}
	}
}

func TestServerProtocol(t *testing.T) {
	srv := embedtest.Start(t, nil, embedtest.WithAPIKey("k"), embedtest.WithModel("e5-test"))
	tests := []struct {
		name, method, path, auth, body string
		wantStatus                     int
		wantInBody                     string
	}{
		{name: "ok", method: "POST", path: "/v1/embeddings", auth: "Bearer k", body: `{"model":"m","input":"one"}`, wantStatus: 200, wantInBody: `"index":0`},
		{name: "wrong key", method: "POST", path: "/v1/embeddings", auth: "Bearer nope", body: `{"model":"m","input":"x"}`, wantStatus: 401, wantInBody: `"error"`},
		{name: "no input", method: "POST", path: "/v1/embeddings", auth: "Bearer k", body: `{"model":"m","input":[]}`, wantStatus: 400},
		{name: "token input", method: "POST", path: "/v1/embeddings", auth: "Bearer k", body: `{"model":"m","input":[1,2]}`, wantStatus: 400},
		{name: "no model", method: "POST", path: "/v1/embeddings", auth: "Bearer k", body: `{"input":"x"}`, wantStatus: 400},
		{name: "bad format", method: "POST", path: "/v1/embeddings", auth: "Bearer k", body: `{"model":"m","input":"x","encoding_format":"int8"}`, wantStatus: 400},
		{name: "invalid JSON", method: "POST", path: "/v1/embeddings", auth: "Bearer k", body: "{", wantStatus: 400},
		{name: "models", method: "GET", path: "/v1/models", wantStatus: 200, wantInBody: `"id":"e5-test"`},
		{name: "health", method: "GET", path: "/health", wantStatus: 200, wantInBody: `"status":"ok"`},
		{name: "wrong method", method: "GET", path: "/v1/embeddings", wantStatus: 405},
		{name: "wrong path", method: "POST", path: "/v1/chat/completions", wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b := openaitest.Call(t, tt.method, strings.TrimSuffix(srv.URL(), "/v1")+tt.path, tt.auth, tt.body)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d; body %s", status, tt.wantStatus, b)
			}
			if !json.Valid(b) || !strings.Contains(string(b), tt.wantInBody) {
				t.Errorf("body %s is not JSON containing %s", b, tt.wantInBody)
			}
		})
	}
	if got := len(srv.Requests()); got != 2 { // ok, wrong key
		t.Errorf("recorded %d requests, want 2", got)
	}
}

func TestServerDelayEndsWithTheClient(t *testing.T) {
	srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return embedtest.Reply{Delay: time.Hour} })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/embeddings", strings.NewReader(`{"model":"m","input":"x"}`))
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("a request held back for an hour succeeded")
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.InFlight() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the handler still waits after the client went away")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
