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
)

// The CLI checks what it can before it uploads a file or starts a workflow, with the same
// functions the activities use, so that a typo fails here, at once, instead of as a FAILED
// workflow in the history.

// checkCorpusFiles checks that every file is Parquet with the columns the index build needs
// (after mapping), reading only each file's footer, as the PlanIndex activity would, and
// that they hold rows (indexplan.CheckRows).
func checkCorpusFiles(files []string, mapping corpus.Mapping) error {
	l := corpus.NewLoader(corpus.Options{Mapping: mapping})
	names := corpus.UniqueNames(files) // as uploadCorpora names them
	var rows int64
	for i, p := range files {
		err := withFile(p, func(f *os.File, size int64) error {
			n, err := l.CheckFileRows(f, size, names[i])
			rows += n
			return err
		})
		if err != nil {
			return fmt.Errorf("--corpus: %w", err)
		}
	}
	if err := indexplan.CheckRows(files, rows); err != nil {
		return fmt.Errorf("--corpus: %w", err)
	}
	return nil
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
