package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDesignNamesEveryPackage keeps docs/design.md's package map true: every folder of the
// module with Go code (outside testdata and the side modules under deploy and
// deploy/cluster) is named in its "Layout" section, so a newcomer finds each one there.
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
				rel == "deploy" || rel == "deploy/cluster") {
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

// TestInternalImportsOneWay keeps the layering docs/design.md states: nothing under internal/
// (its tests included) imports Temporal or a package above it — the stack (infra/), the
// benchmarks, the worker, workflows, activities, the client, the HTTP API or a command — so
// every pipeline stage is plain Go, tested and benchmarked as such.
func TestInternalImportsOneWay(t *testing.T) {
	root := examplesRepoRoot(t)
	above := []string{"infra", "bench", "cmd", "worker", "workflows", "activities", "client", "httpapi", "examples"}
	files := 0
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, p)
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "go.temporal.io/") {
				t.Errorf("%s imports %s: internal/ never imports Temporal", rel, path)
			}
			for _, a := range above {
				if path == "github.com/asofrag/asof/"+a || strings.HasPrefix(path, "github.com/asofrag/asof/"+a+"/") {
					t.Errorf("%s imports %s: internal/ imports nothing above it", rel, path)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files under internal/: the walk missed them", files)
	}
}
