package storeio

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/schemas"
)

// ReadCorpus reads every input file through loader, calling done with each file's name once it
// is read: the valid documents and the rejected rows. A missing file is blob.ErrNotFound naming
// it; a file the loader refuses is its error (corpus.ErrMissingColumn, ErrBadFile, ErrColumnType).
func ReadCorpus(ctx context.Context, b blob.Bucket, loader *corpus.Loader, files []indexplan.InputFile, done func(name string)) ([]schemas.Document, []schemas.QuarantineRow, error) {
	var docs []schemas.Document
	var rejects []schemas.QuarantineRow
	for _, f := range files {
		err := ReadLocal(ctx, b, f.Key, func(r io.ReaderAt, size int64) error {
			return loader.ReadFile(ctx, r, size, f.Name,
				func(d schemas.Document) error { docs = append(docs, d); return nil },
				func(q schemas.QuarantineRow) error { rejects = append(rejects, q); return nil })
		})
		switch {
		case errors.Is(err, blob.ErrNotFound):
			return nil, nil, fmt.Errorf("input %s: %w", f.Name, err)
		case errors.Is(err, corpus.ErrMissingColumn) || errors.Is(err, corpus.ErrBadFile) || errors.Is(err, corpus.ErrColumnType):
			return nil, nil, err
		case err != nil:
			return nil, nil, fmt.Errorf("read %s: %w", f.Name, err)
		}
		done(f.Name)
	}
	return docs, rejects, nil
}
