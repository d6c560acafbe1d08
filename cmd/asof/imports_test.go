package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// activitiesAllowed are the names of package activities the CLI may use: none. The CLI is a
// client, and a client needs only workflows (api.go), internal/layout, internal/evalrun (the
// eval system names) and internal/config.
var activitiesAllowed []string

// TestCLIDoesNotImportActivities fails when a file of cmd/asof (its tests too) uses package
// activities: what a client passes and reads is in workflows/api.go, store keys in
// internal/layout.
func TestCLIDoesNotImportActivities(t *testing.T) {
	const activitiesPath = "github.com/asofrag/asof/activities"
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Go files in cmd/asof")
	}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		name := ""
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != activitiesPath {
				continue
			}
			name = path.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			if name == "_" || name == "." {
				t.Errorf("%s imports activities as %q", file, name)
			}
		}
		if name == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && !slices.Contains(activitiesAllowed, sel.Sel.Name) {
				t.Errorf("%s: activities.%s: a client uses workflows (api.go) or internal/layout, not activities", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
