package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/testmodel"
)

type tgRow struct {
	MessageID   int64   `parquet:"message_id"`
	Message     string  `parquet:"message"`
	Date        string  `parquet:"date"`
	ChannelName string  `parquet:"channel_name"`
	ChannelW    float64 `parquet:"channel_w"`
	Topic       string  `parquet:"topic"`
}

// TestIndexCommandWithModel runs `asof index` on the embedded default twice over a Telegram
// layout file with a bad row: the table reconciles, and the second run changes nothing.
func TestIndexCommandWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	file := writeParquetFile(t, dir, "tg.parquet", []tgRow{
		{1, "ЦБ повысил ключевую ставку до 21%.", "2024-10-25", "markettwits", 0.9, "rates"},
		{2, "Инфляция ускорилась.", "2024-11-02", "rbc", 0.7, "inflation"},
		{3, "", "2024-11-03", "rbc", 0.7, "empty"},
	})
	args := []string{"index", "--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t),
		"--index", "tg", "--corpus", file, "--telegram"}
	code, out, errOut := runCLI(t, nil, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"Index tg published", "tg.parquet", "total", "empty_text 1", "shards: 2 built, 0 reused; 2 chunks"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, nil, args...)
	if code != 0 || !strings.Contains(out, "Index tg is unchanged") || !strings.Contains(out, "0 built, 2 reused") {
		t.Fatalf("second run: exit %d\n%s\n%s", code, out, errOut)
	}
	// The same file named by a file:// URL glob is the same corpus: still unchanged.
	urlArgs := append(append([]string{}, args[:len(args)-3]...), "--corpus", "file://"+filepath.Join(dir, "t*.parquet"), "--telegram")
	code, out, errOut = runCLI(t, nil, urlArgs...)
	if code != 0 || !strings.Contains(out, "Index tg is unchanged") {
		t.Fatalf("file:// corpus: exit %d\n%s\n%s", code, out, errOut)
	}
	// --append: a new file with one row the index holds and one new row in a new week: the
	// old shards stay, the known row is a duplicate, one shard is added; again: unchanged.
	more := writeParquetFile(t, dir, "more.parquet", []tgRow{
		{1, "ЦБ повысил ключевую ставку до 21%.", "2024-10-25", "markettwits", 0.9, "rates"},
		{4, "Рубль укрепился к доллару.", "2024-12-02", "rbc", 0.7, "fx"},
	})
	appendArgs := append(append([]string{}, args[:len(args)-3]...), "--corpus", more, "--telegram", "--append")
	code, out, errOut = runCLI(t, nil, appendArgs...)
	if code != 0 || !strings.Contains(out, "duplicate_id 1") || !strings.Contains(out, "shards: 1 built, 0 reused") {
		t.Fatalf("append: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, nil, appendArgs...)
	if code != 0 || !strings.Contains(out, "Index tg is unchanged") {
		t.Fatalf("append again: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, nil, append(append([]string{}, appendArgs...), "--period", "week")...)
	if code == 0 || !strings.Contains(errOut, "partitioned by month") {
		t.Fatalf("append with another period: exit %d %s", code, errOut)
	}

	code, _, errOut = runCLI(t, nil, "index", "--index", "ok", "--corpus", "file://"+filepath.Join(dir, "nothing-*.parquet"))
	if code == 0 || !strings.Contains(errOut, "no such object") {
		t.Fatalf("missing file:// corpus: %d %s", code, errOut)
	}
	code, _, errOut = runCLI(t, nil, "index", "--index", "Bad Name", "--corpus", file)
	if code == 0 || !strings.Contains(errOut, "index name") {
		t.Fatalf("bad name: %d %s", code, errOut)
	}
	code, _, errOut = runCLI(t, nil, "index", "--index", "ok", "--corpus", filepath.Join(dir, "missing-*.parquet"))
	if code == 0 || !strings.Contains(errOut, "no such file") {
		t.Fatalf("missing corpus: %d %s", code, errOut)
	}
}
