package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestQuarantineShow prints the rows a build quarantined, read back from a real (local-folder)
// store in the type PlanIndex writes, by run id or by the key `asof index` prints, filtered by
// reason, as JSON, and says what is wrong with a run that quarantined nothing or a bad run id.
func TestQuarantineShow(t *testing.T) {
	_, _, b, common := tempStore(t)
	rows := []schemas.QuarantineRow{
		{SourceFile: "news.parquet", RowNumber: 3, DocID: "n3", Reason: "missing_date", Detail: "published_at is empty"},
		{SourceFile: "news.parquet", RowNumber: 7, DocID: "n7", Reason: "duplicate_id", Detail: "first seen at news.parquet:2 | again"},
		{SourceFile: "more.parquet", RowNumber: 0, DocID: "m0", Reason: "missing_date", Detail: "2026-13-40 is no date"},
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	key := layout.QuarantineKey("run-1")
	if _, err := b.Put(context.Background(), key, &buf); err != nil {
		t.Fatal(err)
	}
	runStoreCases(t, common, []storeCase{
		{name: "by run id", args: []string{"quarantine", "show", "run-1"}, wantOut: []string{
			"3 rows quarantined (duplicate_id 1, missing_date 2) in quarantine/run-1/rejects.parquet",
			"| news.parquet | 3 | n3 | missing_date | published_at is empty |",
			`| news.parquet | 7 | n7 | duplicate_id | first seen at news.parquet:2 \| again |`}},
		{name: "by the key asof index prints", args: []string{"quarantine", "show", key, "--reason", "missing_date", "--limit", "1"}, wantOut: []string{
			"| news.parquet | 3 | n3 | missing_date |", "2 more not shown"}},
		{name: "as JSON", args: []string{"quarantine", "show", "run-1", "--reason", "duplicate_id", "--json"}, wantOut: []string{`"doc_id": "n7"`, `"reason": "duplicate_id"`}},
		{name: "a run with none", args: []string{"quarantine", "show", "run-2"}, wantErr: "no quarantined rows under quarantine/run-2/rejects.parquet"},
		{name: "a path-climbing run", args: []string{"quarantine", "show", "../indexes"}, wantErr: `run id "../indexes" has a '/'`},
	})
}
