// Command gen checks the Chinese as-of fixture's judgements and writes its Parquet files
// (docs.parquet, questions.parquet, qrels.parquet) from its JSONL source:
//
//	go run ./evalsets/zh-news-fixture/gen -dir evalsets/zh-news-fixture
//
// or `go generate ./evalsets/zh-news-fixture` from the repository root.
package main

import (
	"flag"
	"fmt"
	"os"

	zhnews "github.com/asofrag/asof/evalsets/zh-news-fixture"
)

func main() {
	dir := flag.String("dir", ".", "the fixture folder: reads its docs.jsonl, questions.jsonl and qrels.jsonl, writes the .parquet files next to them")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	f, err := zhnews.Load(dir)
	if err != nil {
		return err
	}
	if err := f.WriteParquet(dir); err != nil {
		return err
	}
	fmt.Printf("wrote %s/{docs,questions,qrels}.parquet: %d documents, %d questions, %d judgements\n", dir, len(f.Docs), len(f.Questions), len(f.Judgements))
	return nil
}
