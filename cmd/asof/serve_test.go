package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/testchrome"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// serveCorpus is askCorpus with a document whose title and address try to inject markup and
// a script link: the page must show them as text.
var serveCorpus = append(append([]schemas.Document(nil), askCorpus...), schemas.Document{
	DocID: "evil", PublishedAt: day("2023-03-01"), Source: "evil.example", URL: "javascript:alert(1)",
	Title: `<img src=x onerror="document.title='pwned'"> Windsor Framework Brexit deal leaked`,
	Text:  "The Windsor Framework Brexit deal text for Northern Ireland leaked before the vote.",
})

var listeningRe = regexp.MustCompile(`listening on (http://\S+) `)

// apiClient calls a running asof serve with a real HTTP client.
type apiClient struct {
	t     testing.TB
	base  string
	token string
	// contentType is sent with a body (default application/json).
	contentType string
}

// do sends method path with body (a string or a value to encode) and returns the status and
// the body.
func (c apiClient) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if r != nil {
		req.Header.Set("Content-Type", c.contentType)
		if c.contentType == "" {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, data
}

// get decodes a 200 answer to method path into v.
func (c apiClient) json(method, path string, body, v any) {
	c.t.Helper()
	code, data := c.do(method, path, body)
	if code/100 != 2 {
		c.t.Fatalf("%s %s: %d %s", method, path, code, data)
	}
	if err := json.Unmarshal(data, v); err != nil {
		c.t.Fatalf("%s %s: %v\n%s", method, path, err, data)
	}
}

// wantError checks that method path answers code with a JSON error containing want.
func (c apiClient) wantError(method, path string, body any, code int, want string) {
	c.t.Helper()
	got, data := c.do(method, path, body)
	var e apispec.ErrorBody
	if got != code || json.Unmarshal(data, &e) != nil || !strings.Contains(e.Error, want) {
		c.t.Errorf("%s %s: %d %s, want %d with an error containing %q", method, path, got, data, code, want)
	}
}

// TestServeAPIWithModel indexes a small corpus, starts `asof serve` with a token on 127.0.0.1:0 over
// the embedded Temporal and a local store, and calls it with a real client: ask (as of a
// day, nothing after it), indexes, digests (started through the API, then listed and fetched
// in each format), eval status, the OpenAPI document, the token, and bad input. Then the page
// asks in headless Chromium and shows the dated citations, corpus markup as text.
func TestServeAPIWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	file := writeParquetFile(t, dir, "news.parquet", serveCorpus)
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir, "--temporal-port", freePort(t),
		"--store", "file://" + filepath.Join(dir, "store")}
	if code, out, errOut := runCLI(t, nil, append([]string{"index", "--index", "news", "--corpus", file}, common...)...); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	const token = "s3cret-token"
	srv := startProc(t, nil, append([]string{"serve", "--addr", "127.0.0.1:0", "--token", token}, common...)...)
	defer srv.interrupt(t)
	base := srv.waitFor(t, listeningRe)[1]
	c := apiClient{t: t, base: base, token: token}

	// The token: required on /v1, a wrong one refused; the page itself is public.
	anon := apiClient{t: t, base: base}
	anon.wantError("GET", "/v1/indexes", nil, http.StatusUnauthorized, "bearer token")
	(apiClient{t: t, base: base, token: "wrong"}).wantError("POST", "/v1/ask", `{}`, http.StatusUnauthorized, "bearer token")
	if code, data := anon.do("GET", "/", nil); code != 200 || !bytes.Contains(data, []byte("<form id=\"ask\"")) {
		t.Fatalf("GET /: %d", code)
	}

	var indexes []catalog.Index
	c.json("GET", "/v1/indexes", nil, &indexes)
	if len(indexes) != 1 || indexes[0].Name != "news" || indexes[0].Documents != int64(len(serveCorpus)) || indexes[0].To == nil {
		t.Fatalf("indexes: %+v", indexes)
	}
	var one catalog.Index
	c.json("GET", "/v1/indexes/news", nil, &one)
	if one.SourceDocs["bbc.co.uk"] != 3 || len(one.ShardList) == 0 {
		t.Fatalf("index news: %+v", one)
	}
	c.wantError("GET", "/v1/indexes/nope", nil, http.StatusNotFound, `no index named "nope"`)

	// serve's servers are its data dir's stack: a command there with no --temporal or --store
	// uses them (on its own it would start a second Temporal server on the same SQLite file
	// and list the embedded S3 store's indexes, none).
	t.Run("commands beside serve", func(t *testing.T) {
		for _, k := range []string{"ASOF_TEMPORAL", "ASOF_STORE", "ASOF_CONFIG"} {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
		code, out, errOut := runCLI(t, nil, "indexes", "--data-dir", filepath.Join(dir, "data"))
		if code != 0 || !strings.Contains(errOut, "using the running asof serve on this data dir (pid ") || !strings.Contains(out, "news") {
			t.Fatalf("indexes beside serve: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})

	var ans schemas.Answer
	c.json("POST", "/v1/ask", apispec.AskRequest{Index: "news", AsOf: "2023-03-03", Query: "What is the name of Rishi Sunak's new Brexit deal with the European Union?"}, &ans)
	if len(ans.Results) == 0 || len(ans.Blocks) == 0 || ans.AsOf.Format(time.DateOnly) != "2023-03-03" {
		t.Fatalf("ask: %d results, %d blocks, as of %s", len(ans.Results), len(ans.Blocks), ans.AsOf)
	}
	for _, r := range ans.Results {
		if r.PublishedAt.After(day("2023-03-04")) {
			t.Fatalf("%s published %s, after the anchor", r.DocID, r.PublishedAt)
		}
	}
	first := ans

	c.json("POST", "/v1/ask", `{"index":"news","today":true,"query":"Brexit deal","mode":"window","year":2015,"k":1}`, &ans)
	if len(ans.Results) != 1 || ans.Results[0].DocID != "election-2015" {
		t.Fatalf("ask in 2015: %v", docIDs(ans))
	}
	checkStoredAnswers(t, c, first, ans, []string{"--data-dir", filepath.Join(dir, "data-cli"), "--store", "file://" + filepath.Join(dir, "store")})

	// A question with escape sequences (clear the screen, set the window title), a C1 CSI and a
	// bidi override reaches the Ask workflow, and so the stored answer, without them.
	var esc schemas.Answer
	c.json("POST", "/v1/ask", `{"index":"news","as_of":"2023-03-03","query":"Brexit \u001b[2J\u001b]0;API-TITLE\u0007 deal\tnow \u009b31m\u202e"}`, &esc)
	if want := "Brexit [2J]0;API-TITLE deal now 31m"; esc.Query != want {
		t.Errorf("the answer's query is %q, want %q", esc.Query, want)
	}
	var stored schemas.Answer
	c.json("GET", "/v1/answers/"+esc.RunID, nil, &stored)
	if stored.Query != esc.Query {
		t.Errorf("the stored answer's query is %q, want %q", stored.Query, esc.Query)
	}

	// Bad input: each a 4xx with its reason, never a 500.
	c.wantError("POST", "/v1/ask", `{"index":"news","query":"x"}`, 400, "as_of is required")
	c.wantError("POST", "/v1/ask", `{"index":"news","query":"x","as_of":"0001-01-01"}`, 400, "out of range")
	c.wantError("POST", "/v1/ask", `{"index":"news","query":"x","as_of":"2023-03-03","asof":"x"}`, 400, `unknown field "asof"`)
	c.wantError("POST", "/v1/ask", `{"index":"news","query":"x","as_of":"2023-03-03","k":"ten"}`, 400, "field k")
	c.wantError("POST", "/v1/ask", `{"index":"news",`, 400, "bad JSON")
	c.wantError("POST", "/v1/ask", `{"index":"news","query":"x","as_of":"2023-03-03"} {}`, 400, "more than one value")
	c.wantError("POST", "/v1/ask", ``, 400, "empty request body")
	c.wantError("POST", "/v1/ask", `{"query":"`+strings.Repeat("x", 70<<10)+`"}`, 413, "larger than 65536 bytes")
	c.wantError("POST", "/v1/ask", `{"index":"missing","query":"x","as_of":"2023-03-03"}`, 404, `index "missing" does not exist`)
	c.wantError("POST", "/v1/ask", `{"index":"news","query":"x","as_of":"2023-03-03","mode":"fast"}`, 400, `mode "fast"`)
	c.wantError("POST", "/v1/ask", `{"index":"news","query":"x","as_of":"2023-03-03","judge":"gpt"}`, 400, "judge")
	c.wantError("GET", "/v1/nothing", nil, 404, "no endpoint GET /v1/nothing")
	form := c
	form.contentType = "application/x-www-form-urlencoded"
	form.wantError("POST", "/v1/ask", `{"index":"news","query":"x","as_of":"2023-03-03"}`, 415, "send application/json")
	c.wantError("GET", "/v1/digests/Bad_Name", nil, 400, "digest name")

	// A digest started through the API, then listed and fetched in each format.
	c.wantError("POST", "/v1/digests", apispec.DigestRequest{Name: "brexit", Index: "news", AsOf: "2023-03-03"}, 400, "topics")
	var started apispec.Started
	c.json("POST", "/v1/digests", apispec.DigestRequest{Name: "brexit", Index: "news", AsOf: "2023-03-03",
		// Terminal escape sequences, a C1 CSI and a BEL in the topic: the workflow gets it without them.
		Topics: []digest.Topic{{Name: "Brexit\u001b[2J\u009b", Query: "Brexit deal\u001b]0;T\u0007 for Northern Ireland"}}}, &started)
	if !strings.HasPrefix(started.WorkflowID, "asof-digest-brexit-") {
		t.Fatalf("started %+v", started)
	}
	var days []catalog.DigestDay
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		code, data := c.do("GET", "/v1/digests/brexit", nil)
		if code == 200 {
			if err := json.Unmarshal(data, &days); err != nil {
				t.Fatal(err)
			}
			if len(days) == 1 && len(days[0].Files) == 3 {
				break
			}
		} else if code != 404 {
			t.Fatalf("GET /v1/digests/brexit: %d %s", code, data)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the digest %s was not written within 90 s", started.WorkflowID)
		}
	}
	if days[0].Day != "2023-03-03" || days[0].Index != "news" || days[0].Topics != 1 {
		t.Fatalf("digest days: %+v", days)
	}
	var names []catalog.DigestName
	c.json("GET", "/v1/digests", nil, &names)
	if len(names) != 1 || names[0].Name != "brexit" || names[0].Last != "2023-03-03" {
		t.Fatalf("digests: %+v", names)
	}
	var dg schemas.Digest
	c.json("GET", "/v1/digests/brexit/latest", nil, &dg)
	if len(dg.Topics) != 1 || dg.Index != "news" {
		t.Fatalf("digest: %+v", dg)
	}
	if tp := dg.Topics[0]; tp.Name != "Brexit[2J" || tp.Query != "Brexit deal]0;T for Northern Ireland" {
		t.Errorf("the digest's topic kept control characters: %q, %q", tp.Name, tp.Query)
	}
	for format, want := range map[string]string{"md": "Brexit", "html": "<html"} {
		if code, data := c.do("GET", "/v1/digests/brexit/2023-03-03?format="+format, nil); code != 200 || !bytes.Contains(data, []byte(want)) {
			t.Errorf("digest as %s: %d %.200s", format, code, data)
		}
	}
	c.wantError("GET", "/v1/digests/brexit/2023-03-04", nil, 404, "has no day 2023-03-04")
	c.wantError("GET", "/v1/digests/brexit/latest?format=pdf", nil, 400, `format "pdf"`)
	c.wantError("GET", "/v1/digests/none/latest", nil, 404, "no digest named none")

	c.wantError("GET", "/v1/evals/asof-eval-nope", nil, 404, `no workflow "asof-eval-nope"`)
	var evals []catalog.StoredEval
	c.json("GET", "/v1/evals?index=news", nil, &evals)
	if evals == nil || len(evals) != 0 {
		t.Errorf("stored evaluations of a store without any: %+v", evals)
	}
	c.wantError("GET", "/v1/evals/0123456789abcdef/report", nil, 404, "no finished evaluation 0123456789abcdef")
	c.wantError("GET", "/v1/evals/..%2Fruns/report?format=md", nil, 400, `eval id "../runs" has a '/'`)
	c.wantError("GET", "/v1/evals?limit=many", nil, 400, `limit "many"`)
	c.wantError("GET", "/v1/evals/"+started.WorkflowID, nil, 400, "is not an eval's")

	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	c.json("GET", "/v1/openapi.json", nil, &doc)
	paths := map[string]bool{}
	for _, op := range apispec.Operations {
		paths[op.Path] = true
	}
	if doc.OpenAPI != "3.1.0" || doc.Paths["/v1/ask"]["post"] == nil || len(doc.Paths) != len(paths) {
		t.Fatalf("openapi: %s, %d paths, want the %d of apispec.Operations", doc.OpenAPI, len(doc.Paths), len(paths))
	}

	t.Run("page in headless Chromium", func(t *testing.T) {
		if !testchrome.Available() {
			t.Skip("no Chromium on this machine")
		}
		// The token travels in the fragment, which the browser never sends; the page keeps it
		// for the session.
		q := url.Values{"index": {"news"}, "as_of": {"2023-03-03"}, "q": {"Windsor Framework Brexit deal"}}
		dom := testchrome.DumpDOM(t, base+"/?"+q.Encode()+"#token="+token, 60*time.Second)
		checkPage(t, dom)
	})
}

// checkPage checks the DOM the page rendered after asking: the answer's heading, its anchor,
// dated citations, and the corpus's markup as text, its javascript: address not a link.
// checkStoredAnswers fetches two answers just asked back from the store through the API, by
// run id in each format and in the listing (newest first, by index, by count), and through
// `asof answers` on the same store; an unknown id is a 404, a path-climbing id and a bad
// format or limit a 400.
func checkStoredAnswers(t *testing.T, c apiClient, first, second schemas.Answer, storeArgs []string) {
	t.Helper()
	if first.RunID == "" || second.RunID == "" || first.RunID == second.RunID {
		t.Fatalf("run ids %q and %q", first.RunID, second.RunID)
	}
	var list []catalog.StoredAnswer
	c.json("GET", "/v1/answers", nil, &list)
	if len(list) != 2 || list[0].RunID != second.RunID || list[1].RunID != first.RunID || list[1].Query != first.Query ||
		list[1].AsOf != "2023-03-03" || list[1].Index != "news" || list[1].Mode != first.Mode || list[1].Saved.IsZero() {
		t.Fatalf("GET /v1/answers: %+v", list)
	}
	c.json("GET", "/v1/answers?index=news&limit=1", nil, &list)
	if len(list) != 1 || list[0].RunID != second.RunID {
		t.Fatalf("GET /v1/answers?limit=1: %+v", list)
	}
	c.json("GET", "/v1/answers?index=other", nil, &list)
	if list == nil || len(list) != 0 {
		t.Fatalf("GET /v1/answers?index=other: %+v", list)
	}
	id := url.PathEscape(first.RunID)
	var got schemas.Answer
	c.json("GET", "/v1/answers/"+id, nil, &got)
	if got.RunID != first.RunID || got.Query != first.Query || len(got.Results) != len(first.Results) || got.Summary != first.Summary {
		t.Fatalf("the stored answer differs from the one asked: %+v", got)
	}
	code, md := c.do("GET", "/v1/answers/"+id+"?format=md", nil)
	if code != 200 || !bytes.HasPrefix(md, []byte("# What is the name of Rishi Sunak's new Brexit deal")) ||
		!bytes.Contains(md, []byte("stored under runs/"+first.RunID+"/")) || !bytes.Contains(md, []byte("## Summary")) {
		t.Fatalf("answer as md: %d %.400s", code, md)
	}
	if code, page := c.do("GET", "/v1/answers/"+id+"?format=html", nil); code != 200 || !bytes.Contains(page, []byte("<h1>Answer</h1>")) {
		t.Fatalf("answer as html: %d %.400s", code, page)
	}
	c.wantError("GET", "/v1/answers/asof-ask-news-nope", nil, 404, "no answer with run id asof-ask-news-nope")
	c.wantError("GET", "/v1/answers/..%2Fx", nil, 400, `run id "../x" has a '/'`)
	c.wantError("GET", "/v1/answers/..%2F..%2Findexes%2Fnews%2FCURRENT?format=md", nil, 400, "has a '/'")
	c.wantError("GET", "/v1/answers/"+id+"?format=pdf", nil, 400, `format "pdf": use json, md, html`)
	c.wantError("GET", "/v1/answers?limit=0", nil, 400, `limit "0": give a number from 1 to 1000`)
	c.wantError("GET", "/v1/answers?index=Bad", nil, 400, "index:")

	// The command line reads the same store: the same Markdown, the same listing.
	code, out, errOut := runCLI(t, nil, append([]string{"answers", "get", first.RunID}, storeArgs...)...)
	if code != 0 || out != string(md) {
		t.Fatalf("asof answers get: exit %d, %s\nstdout differs from the API's Markdown:\n%s", code, errOut, out)
	}
	code, out, errOut = runCLI(t, nil, append([]string{"answers", "list", "--index", "news"}, storeArgs...)...)
	if code != 0 || !strings.Contains(out, "RUN ID") || strings.Index(out, second.RunID) > strings.Index(out, first.RunID) {
		t.Fatalf("asof answers list: exit %d, %s\n%s", code, errOut, out)
	}
	code, _, errOut = runCLI(t, nil, append([]string{"answers", "get", "../x"}, storeArgs...)...)
	if code == 0 || !strings.Contains(errOut, `run id "../x" has a '/'`) {
		t.Fatalf("asof answers get ../x: exit %d, %s", code, errOut)
	}
}

func checkPage(t *testing.T, dom string) {
	t.Helper()
	for _, want := range []string{
		`<h2 id="answer-title">Windsor Framework Brexit deal</h2>`,
		"As of 2023-03-03 · index news",
		`<span class="date">2023-02-2`,
		"answered in",
		"/v1/answers/asof-ask-news-", // the recent answers, each linked to its page
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if regexp.MustCompile(`<span class="date">2023-03-(0[4-9]|[12]\d)`).MatchString(dom) {
		t.Errorf("a citation after the anchor day")
	}
	if !strings.Contains(dom, "&lt;img src=x onerror") || strings.Contains(dom, "<img src") || strings.Contains(dom, `href="javascript:`) {
		t.Errorf("corpus markup reached the page as markup")
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}
}

// TestServeRefusesNonLoopbackWithoutToken: bound beyond loopback, serve needs a token, and
// says which flag gives it; it starts nothing first.
func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	t.Setenv("ASOF_API_TOKEN", "")
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		code, _, errOut := runCLI(t, nil, "serve", "--data-dir", t.TempDir(), "--addr", addr)
		if code == 0 || !strings.Contains(errOut, "is not a loopback address") || !strings.Contains(errOut, "--token or ASOF_API_TOKEN") {
			t.Errorf("serve --addr %s without a token: exit %d, %s", addr, code, errOut)
		}
	}
	code, _, errOut := runCLI(t, nil, "serve", "--data-dir", t.TempDir(), "--addr", "127.0.0.1")
	if code == 0 || !strings.Contains(errOut, "--addr: listen address \"127.0.0.1\"") {
		t.Errorf("serve --addr without a port: exit %d, %s", code, errOut)
	}
}
