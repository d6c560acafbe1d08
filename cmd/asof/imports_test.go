package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// workflowCalls are the Temporal client's calls that start, signal, query or describe a
// workflow or a schedule: use cases, which live in package client (one per use case, with its
// workflow id rule), never in a command.
var workflowCalls = []string{"ExecuteWorkflow", "SignalWorkflow", "SignalWithStartWorkflow", "QueryWorkflow", "DescribeWorkflowExecution",
	"GetWorkflowHistory", "ScheduleClient", "CancelWorkflow", "TerminateWorkflow", "UpdateWorkflow"}

// TestCommandsCallTheClient fails when a command (a non-test file of cmd/asof) calls the
// Temporal client for a workflow or a schedule itself, or writes an asof workflow id: a command
// is flags, a call of package client, and output, so the CLI and the HTTP API serve each use
// case with the same rules.
func TestCommandsCallTheClient(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if slices.Contains(workflowCalls, x.Sel.Name) {
					t.Errorf("%s: .%s: a command starts, queries or schedules workflows through package client", fset.Position(x.Pos()), x.Sel.Name)
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && strings.HasPrefix(s, "asof-") &&
					slices.ContainsFunc([]string{"asof-ask-", "asof-digest-", "asof-index-", "asof-eval-", "asof-health-"}, func(p string) bool { return strings.HasPrefix(s, p) }) {
					t.Errorf("%s: %q: workflow ids are made by package client (client/ids.go)", fset.Position(x.Pos()), s)
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no command files in cmd/asof")
	}
}
