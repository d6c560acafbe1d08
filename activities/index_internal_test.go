package activities

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/schemas"
)

// TestGetParquetKeepsTheCause: a damaged Parquet object fails with an error that still says
// why (errors.Is finds parquet's ErrCorrupted under getParquet's own words).
func TestGetParquetKeepsTheCause(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Bucket: b}
	docs := []schemas.Document{
		{DocID: "a", PublishedAt: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), Text: "The key rate was raised."},
		{DocID: "b", PublishedAt: time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC), Text: "Oil prices fell."},
	}
	if err := putParquet(ctx, b, "docs.parquet", docs); err != nil {
		t.Fatal(err)
	}
	if got, err := getParquet[schemas.Document](ctx, a, "docs.parquet"); err != nil || len(got) != 2 {
		t.Fatalf("intact object: %d rows, %v", len(got), err)
	}
	data, err := blob.ReadAll(ctx, b, "docs.parquet")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	col := f.Metadata().RowGroups[0].Columns[0].MetaData
	data[col.DataPageOffset+col.TotalCompressedSize-1] ^= 0xff // the last byte of the first page
	if _, err := b.Put(ctx, "docs.parquet", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if _, err := getParquet[schemas.Document](ctx, a, "docs.parquet"); !errors.Is(err, parquet.ErrCorrupted) {
		t.Fatalf("err = %v, want parquet.ErrCorrupted in the chain", err)
	}
}
