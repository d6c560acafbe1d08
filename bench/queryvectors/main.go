// Command queryvectors embeds questions as search queries (the model's query prefix, as asof
// ask does) and writes them as one vectors.f32 file: the queries of TestInt8RecallRealVectors
// (internal/vecindex, ASOF_TEST_QUERIES), which measures the int8 scan's recall against the
// exact float scan on a real index (docs/kernels.md).
//
//	go run -tags ORT -ldflags "-X github.com/asofrag/asof/internal/embed.DefaultORTDir=$PWD/.asof/ort/lib" \
//	    ./bench/queryvectors -model e5-small-v2-q -n 400 -out /tmp/queries.f32 ../shared/data/realtimeqa/questions.parquet
//
// It takes n questions spread evenly over the file (every len/n-th row).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/vecindex"
)

func main() {
	model := flag.String("model", models.DefaultID, "model id (in -models) or folder; the index's model")
	modelsDir := flag.String("models", ".asof/models", "models folder")
	n := flag.Int("n", 400, "questions to embed, spread over the file")
	column := flag.String("column", "question", "the questions' column: question (realtimeqa) or query (tg-finance-ru)")
	out := flag.String("out", "queries.f32", "vectors file to write")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: queryvectors [flags] questions.parquet")
		os.Exit(2)
	}
	if err := run(*model, *modelsDir, flag.Arg(0), *column, *out, *n); err != nil {
		fmt.Fprintln(os.Stderr, "queryvectors:", err)
		os.Exit(1)
	}
}

func run(model, modelsDir, questions, column, out string, n int) error {
	var rows []string
	var err error
	switch column {
	case "question":
		rows, err = readColumn(questions, func(r struct {
			Q string `parquet:"question"`
		}) string {
			return r.Q
		})
	case "query":
		rows, err = readColumn(questions, func(r struct {
			Q string `parquet:"query"`
		}) string {
			return r.Q
		})
	default:
		err = fmt.Errorf("-column %q: question or query", column)
	}
	if err != nil {
		return err
	}
	n = min(n, len(rows))
	texts := make([]string, n)
	for i := range n {
		texts[i] = rows[i*len(rows)/n]
	}
	m, err := models.Resolve(model, modelsDir)
	if err != nil {
		return err
	}
	onnx, err := filepath.Rel(m.Dir, m.ONNXPath)
	if err != nil {
		return err
	}
	h, err := embed.NewHugot(embed.Config{
		Dir: m.Dir, ONNXFile: onnx, ID: m.Spec.ID, Dim: m.Spec.Dim, QueryPrefix: m.Spec.QueryPrefix,
		PassagePrefix: m.Spec.PassagePrefix, MaxTokens: m.Spec.MaxTokens, Pooling: m.Spec.Pooling,
	})
	if err != nil {
		return err
	}
	defer h.Close()
	vecs, err := h.EmbedQueries(context.Background(), texts)
	if err != nil {
		return err
	}
	f := vecindex.New(h.Dim(), h.ModelID())
	for _, v := range vecs {
		if err := f.Add(v); err != nil {
			return err
		}
	}
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := f.WriteTo(w); err != nil {
		w.Close()
		return err
	}
	fmt.Printf("%d questions embedded with %s into %s\n", n, h.ModelID(), out)
	return w.Close()
}

func readColumn[T any](p string, get func(T) string) ([]string, error) {
	rows, err := parquet.ReadFile[T](p)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = get(r)
	}
	return out, nil
}
