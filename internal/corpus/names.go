package corpus

import (
	"fmt"
	"path/filepath"
	"strings"
)

// UniqueNames names input files for reports: each path's base name, or, where two paths
// share it, the shortest tail of their folders that tells them apart (2024/news.parquet and
// 2025/news.parquet), so that no two files are counted as one. Paths that are the same file
// keep one name; a caller passes each file once.
func UniqueNames(paths []string) []string {
	parts := make([][]string, len(paths))
	for i, p := range paths {
		parts[i] = strings.Split(filepath.ToSlash(filepath.Clean(p)), "/")
	}
	names := make([]string, len(paths))
	depth := make([]int, len(paths)) // how many trailing elements each name has
	for i := range paths {
		depth[i] = 1
	}
	for {
		clash := map[string][]int{}
		for i, ps := range parts {
			names[i] = strings.Join(ps[max(0, len(ps)-depth[i]):], "/")
			clash[names[i]] = append(clash[names[i]], i)
		}
		grown := false
		for _, idx := range clash {
			if len(idx) < 2 {
				continue
			}
			for _, i := range idx {
				if depth[i] < len(parts[i]) {
					depth[i]++
					grown = true
				}
			}
		}
		if !grown {
			return names
		}
	}
}

// uniqueName returns name, or, when a file of that name was already read by l, name with
// the number of its reading, "news.parquet (2)": two files are two rows of the counts even
// when their caller named them alike.
func (l *Loader) uniqueName(name string) string {
	if _, taken := l.stats[name]; !taken {
		return name
	}
	for n := 2; ; n++ {
		if c := fmt.Sprintf("%s (%d)", name, n); l.stats[c] == nil {
			return c
		}
	}
}
