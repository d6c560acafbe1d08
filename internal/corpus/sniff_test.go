package corpus

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
)

// TestNotParquetSaysWhatTheFileIs: a CSV, JSON, compressed or otherwise non-Parquet file given
// as a corpus is named for what it is, with how to convert it, instead of the Parquet reader's
// "invalid magic header"; both CheckFile and ReadFile say so, and the error is still ErrBadFile.
func TestNotParquetSaysWhatTheFileIs(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("doc_id,published_at,text\n1,2024-01-01,hello\n"))
	zw.Close()
	var zipped bytes.Buffer
	za := zip.NewWriter(&zipped)
	w, _ := za.Create("news.csv")
	w.Write([]byte("doc_id,text\n"))
	za.Close()
	tests := []struct {
		name, file string
		data       []byte
		want       []string // all in the error; nil: the Parquet reader's own error stands
	}{
		{"csv", "news.csv", []byte("doc_id,published_at,text\n1,2024-01-01,\"hello, world\"\n"),
			[]string{"news.csv: unreadable Parquet file: it is CSV, not Parquet", "read_csv_auto('news.csv')) TO 'news.parquet'", "pd.read_csv('news.csv')"}},
		{"csv with a byte order mark", "bom.csv", []byte("\xef\xbb\xbfid,date,text\n"), []string{"it is CSV"}},
		{"semicolon csv", "eu.csv", []byte("id;date;text\n1;2024-01-01;x\n"), []string{"it is CSV (semicolon-separated)", "sep=';'"}},
		{"tsv", "news.tsv", []byte("id\tdate\ttext\n"), []string{"it is TSV", `sep='\t'`}},
		{"json array", "news.json", []byte("  [{\"doc_id\": \"1\"}]"), []string{"it is JSON, not Parquet", "read_json_auto('news.json')"}},
		{"json lines", "news.jsonl", []byte("{\"doc_id\": \"1\"}\n{\"doc_id\": \"2\"}\n"), []string{"it is JSON Lines", "lines=True"}},
		{"gzip", "news.csv.gz", gz.Bytes(), []string{"it is gzip-compressed data", "gunzip news.csv.gz"}},
		{"zip", "news.zip", zipped.Bytes(), []string{"it is a zip archive"}},
		{"zstd", "news.zst", []byte{0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4}, []string{"zstd-compressed"}},
		{"arrow", "news.arrow", []byte("ARROW1\x00\x00rest"), []string{"Arrow IPC"}},
		{"empty", "empty.parquet", nil, []string{"the file is empty"}},
		{"plain text", "notes.txt", []byte("just some words\nand more\n"), []string{"it is text, not Parquet"}},
		{"broken parquet", "broken.parquet", []byte("PAR1 and then garbage that is not a footer"), nil},
		{"binary junk", "junk.bin", []byte{0x00, 0x01, 0xfe, 0xff, 0x10, 0x20, 0x30, 0x40}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLoader(Options{})
			r := bytes.NewReader(tt.data)
			errs := map[string]error{"CheckFile": l.CheckFile(r, r.Size(), tt.file)}
			_, errs["ReadFile"] = load(t, l, r, tt.file)
			for fn, err := range errs {
				if !errors.Is(err, ErrBadFile) {
					t.Fatalf("%s: err = %v, want ErrBadFile", fn, err)
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s: err = %v\nwant it to hold %q", fn, err, w)
					}
				}
				if tt.want == nil && strings.Contains(err.Error(), "not Parquet") {
					t.Errorf("%s: err = %v, want the Parquet reader's own error", fn, err)
				}
				if strings.Contains(err.Error(), "magic header") && tt.want != nil {
					t.Errorf("%s: err = %v still speaks of a magic header", fn, err)
				}
			}
		})
	}
}
