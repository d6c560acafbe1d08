package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDesignNamesEveryPackage keeps docs/design.md's package map true: every folder of the
// module with Go code (outside testdata and the side modules under infra/deploy and
// infra/cluster) is named in its "Layout" section, so a newcomer finds each one there.
func TestDesignNamesEveryPackage(t *testing.T) {
	root := examplesRepoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	layout := string(doc)
	if i := strings.Index(layout, "## 1. Layout"); i >= 0 {
		layout = layout[i:]
	}
	if i := strings.Index(layout, "\n## 2."); i >= 0 {
		layout = layout[:i]
	}
	checked := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "bin" || base == "node_modules" ||
				rel == "infra/deploy" || rel == "infra/cluster") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if dir == "." || checked[dir] {
			return nil
		}
		checked[dir] = true
		// Named as a word of its own: "internal/retrieve " or "internal/retrieve/", not as the
		// start of a longer path.
		if !regexp.MustCompile(`(^|[\s(,])` + regexp.QuoteMeta(dir) + `(/|\s|\)|,|;|$)`).MatchString(layout) {
			t.Errorf("docs/design.md's Layout does not name %s/", dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(checked) < 20 {
		t.Fatalf("checked %d folders: the walk missed the module", len(checked))
	}
}
