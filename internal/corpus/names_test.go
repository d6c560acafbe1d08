package corpus

import (
	"strings"
	"testing"
)

func TestUniqueNames(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  []string
	}{
		{name: "distinct base names", paths: []string{"/data/a.parquet", "/data/b.parquet"}, want: []string{"a.parquet", "b.parquet"}},
		{name: "same base name", paths: []string{"/data/2024/news.parquet", "/data/2025/news.parquet", "/data/x.parquet"}, want: []string{"2024/news.parquet", "2025/news.parquet", "x.parquet"}},
		{name: "same folder name too", paths: []string{"/a/exports/news.parquet", "/b/exports/news.parquet"}, want: []string{"a/exports/news.parquet", "b/exports/news.parquet"}},
		{name: "one deeper than the other", paths: []string{"news.parquet", "/old/news.parquet"}, want: []string{"news.parquet", "old/news.parquet"}},
		{name: "relative and unclean", paths: []string{"./in//news.parquet", "out/news.parquet"}, want: []string{"in/news.parquet", "out/news.parquet"}},
		{name: "none", paths: nil, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := UniqueNames(tt.paths)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.paths) {
				t.Fatalf("UniqueNames(%q) = %q, want %q", tt.paths, got, tt.want)
			}
		})
	}
}

// TestSameNameFilesAreCountedApart: two different files read under one name are two rows of
// the per-file counts, each reconciling, not one merged row.
func TestSameNameFilesAreCountedApart(t *testing.T) {
	first := writeParquet(t, []stringDated{{"a", ptr("2024-03-01"), "", "Row a.", "ex.com"}, {"", ptr("2024-03-01"), "", "No id.", "ex.com"}})
	second := writeParquet(t, []stringDated{{"b", ptr("2024-03-01"), "", "Row b.", "ex.com"}, {"c", ptr("2024-03-02"), "", "Row c.", "ex.com"}, {"d", ptr("2024-03-03"), "", "Row d.", "ex.com"}})
	l := NewLoader(Options{})
	if _, err := load(t, l, first, "news.parquet"); err != nil {
		t.Fatal(err)
	}
	res, err := load(t, l, second, "news.parquet")
	if err != nil {
		t.Fatal(err)
	}
	files, stats := l.Stats()
	if len(files) != 2 || files[0] != "news.parquet" || files[1] != "news.parquet (2)" {
		t.Fatalf("files %q, want two rows", files)
	}
	if stats[0].Read != 2 || stats[0].Documents != 1 || stats[1].Read != 3 || stats[1].Documents != 3 || !stats[0].Reconciles() || !stats[1].Reconciles() {
		t.Fatalf("stats %+v", stats)
	}
	if len(res.docs) != 3 {
		t.Fatalf("second file: %d documents", len(res.docs))
	}
}
