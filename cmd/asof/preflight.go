package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// The CLI checks what it can before it uploads a file or starts a workflow, with the same
// functions the activities use, so that a typo fails here, at once, instead of as a FAILED
// workflow in the history.

// checkCorpusFiles checks that every file is Parquet with the columns the index build needs
// (after mapping), reading only each file's footer, as the PlanIndex activity would, and
// that they hold rows (indexplan.CheckRows). It returns each file's rows, from its footer.
func checkCorpusFiles(files []string, mapping corpus.Mapping) ([]int64, error) {
	l := corpus.NewLoader(corpus.Options{Mapping: mapping})
	names := corpus.UniqueNames(files) // as uploadCorpora names them
	var rows int64
	perFile := make([]int64, len(files))
	for i, p := range files {
		err := withFile(p, func(f *os.File, size int64) error {
			n, err := l.CheckFileRows(f, size, names[i])
			rows, perFile[i] = rows+n, n
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("--corpus: %w", err)
		}
	}
	if err := indexplan.CheckRows(files, rows); err != nil {
		return nil, fmt.Errorf("--corpus: %w", err)
	}
	return perFile, nil
}

// corpusSampleRows bounds the rows sampleCorpus decodes, over all files: enough to tell an
// English corpus from one with 2% of other languages, and a fraction of a second to read.
const corpusSampleRows = 2000

// sampleCorpus reads up to limit rows spread evenly over files (rows: each file's, from
// checkCorpusFiles) with a loader of opts, as the build will read them (corpus.Loader.Sample),
// and returns the documents among them the build would index.
func sampleCorpus(ctx context.Context, files []string, rows []int64, opts corpus.Options, limit int) ([]schemas.Document, error) {
	var total int64
	for _, n := range rows {
		total += n
	}
	// Row k*total/limit for k = 0..limit-1 of the files laid end to end: every row when they
	// hold no more than limit.
	picked := func(g int64) bool {
		if total <= int64(limit) {
			return true
		}
		k := (g*int64(limit) + total - 1) / total // the first k whose row is at or after g
		return k < int64(limit) && k*total/int64(limit) == g
	}
	l := corpus.NewLoader(opts)
	names := corpus.UniqueNames(files)
	var docs []schemas.Document
	var offset int64
	for i, p := range files {
		first := offset
		err := withFile(p, func(f *os.File, size int64) error {
			d, err := l.Sample(ctx, f, size, names[i], func(row int64) bool { return picked(first + row) })
			docs = append(docs, d...)
			return err
		})
		if err != nil {
			return nil, err
		}
		offset += rows[i]
	}
	return docs, nil
}

// checkParquetColumns checks that file is Parquet and has every column of the row type T
// (the type the activity reads it into) except optional ones and those in notRead.
func checkParquetColumns[T any](flag, file string, notRead ...string) error {
	return withFile(file, func(fh *os.File, size int64) error {
		f, err := parquet.OpenFile(fh, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			if np := corpus.NotParquet(fh, size, file); np != nil {
				return fmt.Errorf("%s %w", flag, np)
			}
			return fmt.Errorf("%s %s: %w: %v", flag, file, corpus.ErrBadFile, err)
		}
		var missing, have []string
		for _, c := range f.Schema().Columns() {
			have = append(have, strings.Join(c, "."))
		}
		want := parquet.SchemaOf(new(T))
		for _, c := range want.Columns() {
			leaf, _ := want.Lookup(c...)
			name := strings.Join(c, ".")
			if leaf.Node.Optional() || slices.Contains(notRead, name) {
				continue
			}
			if _, ok := f.Schema().Lookup(c...); !ok {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("%s %s: %w: %s; the file has %s", flag, file, corpus.ErrMissingColumn, strings.Join(missing, ", "), strings.Join(have, ", "))
		}
		return nil
	})
}

func withFile(p string, fn func(f *os.File, size int64) error) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return fn(f, st.Size())
}

// checkIndexName is layout.ValidateIndexName for the flag --index.
func checkIndexName(index string) error {
	if err := layout.ValidateIndexName(index); err != nil {
		return fmt.Errorf("--index: %w", err)
	}
	return nil
}

// checkIndexExists is catalog.RequireIndex: an index with no published manifest is an error.
func checkIndexExists(ctx context.Context, b blob.Bucket, index string) error {
	return catalog.RequireIndex(ctx, b, index)
}
