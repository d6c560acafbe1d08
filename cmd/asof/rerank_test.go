package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/rerank/reranktest"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// TestAskRerankCommandWithModel asks through the CLI with --rerank-url on a loopback server
// that loves the apple pie recipe: the flags reach the in-process worker, the pie leads the
// reranked answer (replace), the article published after the anchor is never sent to the
// reranker, and a server that refuses the key fails the command naming it.
func TestAskRerankCommandWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	file := writeParquetFile(t, dir, "news.parquet", askCorpus)
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	if code, out, errOut := runCLI(t, nil, append([]string{"index", "--index", "news", "--corpus", file}, common...)...); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	const q = "What is the name of Rishi Sunak's new Brexit deal with the European Union?"
	ask := func(extra ...string) (int, schemas.Answer, string) {
		t.Helper()
		args := append(append(append([]string{"ask", "--index", "news", "--json", "--as-of", "2023-03-03"}, common...), extra...), q)
		code, out, errOut := runCLI(t, nil, args...)
		var ans schemas.Answer
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &ans); err != nil {
				t.Fatalf("ask %v: %v\n%s", extra, err, out)
			}
		}
		return code, ans, errOut
	}
	code, plain, errOut := ask()
	if code != 0 || len(plain.Results) == 0 || plain.Results[0].DocID == "pie" {
		t.Fatalf("without a reranker: exit %d, %v\n%s", code, docIDs(plain), errOut)
	}

	srv := reranktest.New(t, "cohere")
	srv.SetScore(func(_, doc string) float64 {
		if strings.Contains(doc, "Apple pie") {
			return 10
		}
		return 0
	})
	code, ans, errOut := ask("--rerank-url", srv.URL, "--rerank-model", "toy-reranker", "--rerank-fuse", "replace")
	if code != 0 {
		t.Fatalf("reranked: exit %d\n%s", code, errOut)
	}
	if ids := docIDs(ans); len(ids) == 0 || ids[0] != "pie" {
		t.Fatalf("reranked results %v, want the reranker's favourite first (unreranked %v)", ids, docIDs(plain))
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[0].Model != "toy-reranker" || reqs[0].Query != q {
		t.Fatalf("requests %+v", reqs)
	}
	for _, r := range reqs {
		for _, d := range r.Docs {
			if strings.Contains(d, "Commons vote") {
				t.Fatalf("the article published after the anchor was sent to the reranker")
			}
		}
	}

	srv.SetFault(func(_ int, _ reranktest.Request, w http.ResponseWriter) bool {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"invalid api key"}`)
		return true
	})
	code, _, errOut = ask("--rerank-url", srv.URL, "--rerank-model", "toy-reranker")
	if code == 0 || !strings.Contains(errOut, srv.URL+"/rerank") || !strings.Contains(errOut, "status 401") {
		t.Fatalf("refused: exit %d, stderr %s", code, errOut)
	}
}
