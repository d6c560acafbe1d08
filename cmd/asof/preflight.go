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
// and returns the documents among them the build would index. When opts keeps only some days
// (--from, --to), the rows are spread over those dated in them (corpus.Loader.RowsInRange), so
// that a few days of a large file are sampled as well as the whole of a small one.
func sampleCorpus(ctx context.Context, files []string, rows []int64, opts corpus.Options, limit int) ([]schemas.Document, error) {
	l := corpus.NewLoader(opts)
	names := corpus.UniqueNames(files)
	// The candidates: every row of each file, or the rows dated in range.
	ranged := !opts.From.IsZero() || !opts.To.IsZero()
	inRange := make([][]int64, len(files))
	count := append([]int64(nil), rows...)
	if ranged {
		for i, p := range files {
			err := withFile(p, func(f *os.File, size int64) (err error) {
				inRange[i], err = l.RowsInRange(ctx, f, size, names[i])
				return err
			})
			if err != nil {
				return nil, err
			}
			count[i] = int64(len(inRange[i]))
		}
	}
	var total int64
	for _, n := range count {
		total += n
	}
	// Candidate k*total/limit for k = 0..limit-1 of the files laid end to end: every one when
	// there are no more than limit.
	keep := make([]map[int64]bool, len(files))
	for i := range keep {
		keep[i] = map[int64]bool{}
	}
	take := func(j int64) { // the j-th candidate
		i := 0
		for j >= count[i] {
			j -= count[i]
			i++
		}
		if ranged {
			j = inRange[i][j]
		}
		keep[i][j] = true
	}
	if total <= int64(limit) {
		for j := range total {
			take(j)
		}
	} else {
		for k := range int64(limit) {
			take(k * total / int64(limit))
		}
	}
	var docs []schemas.Document
	for i, p := range files {
		if len(keep[i]) == 0 {
			continue
		}
		err := withFile(p, func(f *os.File, size int64) error {
			d, err := l.Sample(ctx, f, size, names[i], func(row int64) bool { return keep[i][row] })
			docs = append(docs, d...)
			return err
		})
		if err != nil {
			return nil, err
		}
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
