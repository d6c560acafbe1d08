package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// englishDocs are n English news items, two a day from 2024-01-01, of about 25 words each.
func englishDocs(n int) []schemas.Document {
	subjects := []string{"The city council", "The central bank", "The health ministry", "The football club", "The school board", "The port authority"}
	actions := []string{"said that it would review the budget for the new library, which has been delayed for months",
		"announced that the rate would stay where it was, and that inflation had been lower than expected",
		"told reporters that the plan was not final and that more meetings with the unions were needed",
		"confirmed that the new stadium will open in the spring, after years of arguments about its cost"}
	var docs []schemas.Document
	for i := range n {
		docs = append(docs, schemas.Document{DocID: fmt.Sprintf("en-%03d", i), PublishedAt: day("2024-01-01").AddDate(0, 0, i/2), Source: "wire",
			Title: fmt.Sprintf("Story %d", i),
			Text:  fmt.Sprintf("%s %s, in a statement published on day %d of the year.", subjects[i%len(subjects)], actions[i%len(actions)], i/2+1)})
	}
	return docs
}

// russianDocs are n Russian posts from 2024-03-01.
func russianDocs(n int) []schemas.Document {
	var docs []schemas.Document
	for i := range n {
		docs = append(docs, schemas.Document{DocID: fmt.Sprintf("ru-%03d", i), PublishedAt: day("2024-03-01").AddDate(0, 0, i), Source: "@cbr",
			Text: fmt.Sprintf("Банк России сохранил ключевую ставку, сообщение номер %d: инфляция замедляется.", i)})
	}
	return docs
}

// TestIndexChoosesTheModelByTheCorpusWithModel: with no model configured, a new index on ONNX
// Runtime whose corpus is English takes e5-small-v2-q and says why (the sampled counts, what it
// buys, how to get a multilingual index); when that model is not here it is pulled, and when it
// cannot be the default stays, in one line. An append of Russian rows to that index keeps its
// model and warns; a mixed corpus (92% English) and --embed-model keep their model.
func TestIndexChoosesTheModelByTheCorpusWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	testmodel.Fast(t) // the rule is ONNX Runtime's: pure Go's default is English already
	english := testmodel.DirOf(t, models.EnglishID)
	multilingual := testmodel.DirOf(t, models.DefaultID)
	dir := t.TempDir()
	modelDir := filepath.Join(dir, "models") // the default only, at first
	if err := os.MkdirAll(modelDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(multilingual, filepath.Join(modelDir, models.DefaultID)); err != nil {
		t.Fatal(err)
	}
	enFile := writeParquetFile(t, dir, "en.parquet", englishDocs(60))
	mixedFile := writeParquetFile(t, dir, "mixed.parquet", append(englishDocs(55), russianDocs(5)...))
	ruFile := writeParquetFile(t, dir, "ru.parquet", russianDocs(2))
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	index := func(args ...string) (string, string) {
		t.Helper()
		code, out, errOut := runCLI(t, nil, append(append([]string{"index"}, args...), common...)...)
		if code != 0 {
			t.Fatalf("index %v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		return out, errOut
	}
	wantLines := func(what, errOut string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", what, w, errOut)
			}
		}
	}
	defaultLine := "embedding model: " + models.DefaultID + " (the default for new indexes; multilingual)\n"

	// Offline (TestMain's pullModel fails): the default, and why not the English model.
	_, errOut := index("--index", "offline", "--corpus", enFile)
	wantLines("English corpus, English model not pullable", errOut,
		"the corpus is English (60 of 60 sampled documents), but e5-small-v2-q cannot be loaded here (tests do not download models (e5-small-v2-q)): the default instead\n",
		defaultLine)

	// The English model is pulled (a stand-in that links the test's copy) and chosen.
	defer func(p func(context.Context, string, string, io.Writer) (models.Model, error)) { pullModel = p }(pullModel)
	pulls := 0
	pullModel = func(_ context.Context, id, into string, log io.Writer) (models.Model, error) {
		pulls++
		if err := os.Symlink(english, filepath.Join(into, id)); err != nil {
			return models.Model{}, err
		}
		fmt.Fprintf(log, "model %s ready in %s\n", id, into)
		return models.Resolve(id, into)
	}
	out, errOut := index("--index", "en", "--corpus", enFile)
	wantLines("English corpus", errOut,
		"the corpus is English (60 of 60 sampled documents): pulling e5-small-v2-q for it\n",
		"embedding model: e5-small-v2-q (the corpus is English: 60 of 60 sampled documents; English only, ~1.3x faster than "+models.DefaultID+" on English)\n",
		"for a multilingual index pass --embed-model "+models.DefaultID+"\n")
	t.Logf("English corpus, stderr:\n%s", errOut)
	if pulls != 1 || !strings.Contains(out, "languages of the documents indexed: English 60") || strings.Contains(errOut, "warning:") {
		t.Fatalf("English corpus: %d pulls\n%s\n%s", pulls, out, errOut)
	}
	code, show, showErr := runCLI(t, nil, append([]string{"indexes", "show", "en"}, common...)...)
	if code != 0 || !strings.Contains(show, "model      e5-small-v2-q (dim 384") {
		t.Fatalf("indexes show en: exit %d\n%s\n%s", code, show, showErr)
	}

	// Russian rows appended: the index keeps its model and the append is warned, as before.
	_, errOut = index("--index", "en", "--corpus", ruFile, "--append")
	wantLines("Russian rows appended", errOut,
		"embedding model: e5-small-v2-q (the index's model: it was built with it; English only)\n",
		"warning: 100% of the rows this append adds (2 of 2) are in languages e5-small-v2-q does not read (Russian 2)")
	if strings.Contains(errOut, "sampled") {
		t.Errorf("an append samples nothing:\n%s", errOut)
	}

	// 55 English and 5 Russian documents: 92% English, the default stays, nothing more is said.
	_, errOut = index("--index", "mixed", "--corpus", mixedFile)
	wantLines("mixed corpus", errOut, defaultLine)
	if strings.Contains(errOut, "sampled") {
		t.Errorf("mixed corpus:\n%s", errOut)
	}

	// --embed-model wins over the corpus.
	_, errOut = index("--index", "flag", "--corpus", enFile, "--embed-model", models.DefaultID)
	wantLines("--embed-model", errOut, "embedding model: "+models.DefaultID+" (set by --embed-model; multilingual)\n")
	if strings.Contains(errOut, "sampled") || pulls != 1 {
		t.Errorf("--embed-model: %d pulls\n%s", pulls, errOut)
	}
}
