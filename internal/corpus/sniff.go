package corpus

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// sniffBytes is how much of a file NotParquet reads to tell what it is.
const sniffBytes = 4096

// NotParquet tells, from a file's first bytes, a file that is not Parquet at all (CSV or TSV,
// JSON or JSON Lines, gzip, zip, zstd, bzip2, xz, Arrow, ORC, Avro, plain text, empty) and
// returns an error that wraps ErrBadFile, names the format and says how to convert it to
// Parquet; nil when the file starts like Parquet or is not recognised, so that the Parquet
// reader's own error stands. name is the file's name as the user gave it.
func NotParquet(r io.ReaderAt, size int64, name string) error {
	if size == 0 {
		return fmt.Errorf("%s: %w: the file is empty", name, ErrBadFile)
	}
	head := make([]byte, min(size, sniffBytes))
	n, err := r.ReadAt(head, 0)
	if n == 0 && err != nil {
		return nil
	}
	head = head[:n]
	format, how := sniff(head, name)
	if format == "" {
		return nil
	}
	return fmt.Errorf("%s: %w: it is %s, not Parquet; asof reads Parquet only. %s", name, ErrBadFile, format, how)
}

// sniff names the format of a file starting with head and how to make Parquet of it; "" when
// head starts like Parquet or is not recognised.
func sniff(head []byte, name string) (format, how string) {
	base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	out := base + ".parquet"
	convert := func(reader, pandas string) string {
		return fmt.Sprintf("Convert it with DuckDB: duckdb -c \"COPY (SELECT * FROM %s('%s')) TO '%s' (FORMAT parquet)\", or with pandas and pyarrow: python -c \"import pandas as pd; pd.%s.to_parquet('%s', index=False)\"; then map its columns with --map if they are not named doc_id, published_at, text",
			reader, name, out, fmt.Sprintf(pandas, name), out)
	}
	decompress := func(kind, tool string) (string, string) {
		return kind + "-compressed data", fmt.Sprintf("Decompress it first (%s %s), then convert what it holds (CSV or JSON) to Parquet; Parquet compresses its columns by itself", tool, name)
	}
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return "", ""
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return decompress("gzip", "gunzip")
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return decompress("zstd", "zstd -d")
	case bytes.HasPrefix(head, []byte("BZh")):
		return decompress("bzip2", "bunzip2")
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return decompress("xz", "unxz")
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "a zip archive (an .xlsx workbook is one)", "Extract the file it holds (or save the sheet as CSV), then convert that to Parquet"
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return "an Arrow IPC (Feather) file", fmt.Sprintf("Convert it with pyarrow: python -c \"import pyarrow.feather as f, pyarrow.parquet as p; p.write_table(f.read_table('%s'), '%s')\"", name, out)
	case bytes.HasPrefix(head, []byte("ORC")):
		return "an ORC file", convert("read_orc", "read_orc('%s')")
	case bytes.HasPrefix(head, []byte("Obj\x01")):
		return "an Avro file", "Convert it to Parquet (Spark, DuckDB's avro extension or fastavro with pandas)"
	}
	text := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	if len(head) == sniffBytes {                           // a cut rune at the end is no reason to doubt
		for i := 0; i < utf8.UTFMax && len(text) > 0 && !utf8.Valid(text); i++ {
			text = text[:len(text)-1]
		}
	}
	if !utf8.Valid(text) || bytes.IndexByte(text, 0) >= 0 {
		return "", ""
	}
	trimmed := bytes.TrimLeft(text, " \t\r\n")
	firstLine, _, _ := bytes.Cut(trimmed, []byte("\n"))
	switch {
	case len(trimmed) == 0:
		return "blank text", "Give a Parquet file with the columns doc_id, published_at and text"
	case trimmed[0] == '{' && bytes.Contains(bytes.TrimSpace(firstLine), []byte("}")) && bytes.HasSuffix(bytes.TrimSpace(firstLine), []byte("}")):
		return "JSON Lines", convert("read_json_auto", "read_json('%s', lines=True)")
	case trimmed[0] == '{' || trimmed[0] == '[':
		return "JSON", convert("read_json_auto", "read_json('%s')")
	case bytes.Contains(firstLine, []byte("\t")):
		return "TSV (tab-separated text)", convert("read_csv_auto", "read_csv('%s', sep='\\t')")
	case bytes.Contains(firstLine, []byte(",")):
		return "CSV", convert("read_csv_auto", "read_csv('%s')")
	case bytes.Contains(firstLine, []byte(";")):
		return "CSV (semicolon-separated)", convert("read_csv_auto", "read_csv('%s', sep=';')")
	}
	return "text", "Give a Parquet file with the columns doc_id, published_at and text"
}
