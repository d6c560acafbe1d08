package worker_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/metrics"
	"github.com/asofrag/asof/internal/modelcache"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
)

// activityRecorder is an activity registry that records the name and type of every activity
// registered, by the SDK's rule (worker.ActivityRegistry): a function under its name (or the
// options' Name), a struct pointer as every exported method, named options.Name + the method's
// name.
type activityRecorder struct {
	acts    map[string]reflect.Type
	dynamic bool
}

func (r *activityRecorder) RegisterActivity(a any) {
	r.RegisterActivityWithOptions(a, activity.RegisterOptions{})
}

func (r *activityRecorder) RegisterActivityWithOptions(a any, o activity.RegisterOptions) {
	v := reflect.ValueOf(a)
	if v.Kind() == reflect.Func {
		name := o.Name
		if name == "" {
			full := runtime.FuncForPC(v.Pointer()).Name()
			name = strings.TrimSuffix(full[strings.LastIndex(full, ".")+1:], "-fm")
		}
		r.acts[name] = v.Type()
		return
	}
	for i := range v.NumMethod() {
		if m := v.Type().Method(i); m.IsExported() {
			r.acts[o.Name+m.Name] = v.Method(i).Type()
		}
	}
}

func (r *activityRecorder) RegisterDynamicActivity(any, activity.DynamicRegisterOptions) {
	r.dynamic = true
}

// workflowsDir is the workflows package's folder, resolved when the package loads, before
// TestMain starts the S3 gateway, which changes the working directory.
var workflowsDir = func() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return filepath.Join(wd, "..", "workflows")
}()

// scheduledActivities are the names of the activities the workflows execute:
// workflow.ExecuteActivity(ctx, a.Name, …), workflow.ExecuteLocalActivity(ctx, a.Name, …) and
// maybeLocal(ctx, local, a.Name, …) (the Ask steps that run locally when they can) in
// workflows/*.go, tests left out.
func scheduledActivities(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(workflowsDir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s (%v)", workflowsDir, err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			arg := -1 // the activity's argument: workflow.Execute[Local]Activity(ctx, a.Name, …), maybeLocal(ctx, local, a.Name, …)
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := fn.X.(*ast.Ident); ok && pkg.Name == "workflow" && (fn.Sel.Name == "ExecuteActivity" || fn.Sel.Name == "ExecuteLocalActivity") {
					arg = 1
				}
			case *ast.Ident:
				if fn.Name == "maybeLocal" {
					arg = 2
				}
			}
			if arg < 0 || len(call.Args) <= arg {
				return true
			}
			if act, ok := call.Args[arg].(*ast.SelectorExpr); ok {
				if recv, ok := act.X.(*ast.Ident); ok && recv.Name == "a" && !slices.Contains(names, act.Sel.Name) {
					names = append(names, act.Sel.Name)
				}
			}
			return true
		})
	}
	slices.Sort(names)
	return names
}

// TestOnlyActivitiesAreRegistered lists the activities a worker registers (RegisterActivities,
// which Run uses too) and checks them against the activities the workflows execute: a
// registered name that no workflow executes (an exported helper method on
// activities.Activities, as Close was, which any client could then start) fails, and so does
// an activity a workflow executes that no worker registers. Each registered activity takes a
// context and one input and returns an error last.
func TestOnlyActivitiesAreRegistered(t *testing.T) {
	rec := &activityRecorder{acts: map[string]reflect.Type{}}
	worker.RegisterActivities(rec, worker.Deps{})
	var registered []string
	for name := range rec.acts {
		registered = append(registered, name)
	}
	slices.Sort(registered)
	t.Logf("registered activities (%d): %s", len(registered), strings.Join(registered, ", "))
	scheduled := scheduledActivities(t)
	if len(scheduled) < 10 {
		t.Fatalf("found only %d activities executed in workflows/*.go (%v): has the way workflows call activities changed?", len(scheduled), scheduled)
	}
	for _, name := range registered {
		if !slices.Contains(scheduled, name) {
			t.Errorf("%s is registered as an activity, but no workflow executes it: any client could start it (move it off activities.Activities or unexport it)", name)
		}
	}
	for _, name := range scheduled {
		if _, ok := rec.acts[name]; !ok {
			t.Errorf("workflows execute %s, but the worker does not register it", name)
		}
	}
	if rec.dynamic {
		t.Error("a dynamic activity is registered: it would accept any activity name")
	}
	ctxType := reflect.TypeFor[context.Context]()
	errType := reflect.TypeFor[error]()
	for _, name := range registered {
		ft := rec.acts[name]
		if ft.NumIn() != 2 || ft.In(0) != ctxType || ft.NumOut() < 1 || ft.NumOut() > 2 || ft.Out(ft.NumOut()-1) != errType {
			t.Errorf("activity %s is %v, want func(context.Context, Input) (Result, error) or error alone", name, ft)
		}
	}

	// The same registration through the SDK's own registry: Close, which empties the shard
	// cache, is not an activity there, and a real one runs.
	env := (&testsuite.WorkflowTestSuite{}).NewTestActivityEnvironment()
	worker.RegisterActivities(env, worker.Deps{Identity: "register-test"})
	if _, err := env.ExecuteActivity("Close"); err == nil {
		t.Error("the SDK ran Close as an activity")
	}
	if _, err := env.ExecuteActivity("Ping", struct{}{}); err != nil {
		t.Errorf("Ping through the SDK's registry: %v", err)
	}
}

// TestNewActivitiesKeepsEveryDep: the activities a worker runs get the very dependencies it
// was given, with the identity defaulted to host:pid when none is set.
func TestNewActivitiesKeepsEveryDep(t *testing.T) {
	tests := []struct {
		name         string
		identity     string
		wantIdentity string
	}{
		{name: "identity given", identity: "w1", wantIdentity: "w1"},
		{name: "identity defaulted", identity: "", wantIdentity: worker.DefaultIdentity()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket, err := blob.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			deps := worker.Deps{
				Bucket:             bucket,
				Model:              schemas.ModelRef{ID: "m", SHA256: "s", Dim: 3},
				QueryModels:        modelcache.New(1, nil),
				RerankOptions:      rerank.Options{TopN: 7, Fuse: rerank.FuseReplace},
				HeuristicAutoJudge: true,
				JudgePerCall:       1,
				Identity:           tt.identity,
				Metrics:            metrics.New(),
			}
			acts := worker.NewActivities(deps)
			want := deps
			want.Identity = tt.wantIdentity
			if !reflect.DeepEqual(acts.Deps, want) {
				t.Errorf("NewActivities(deps).Deps = %+v, want %+v", acts.Deps, want)
			}
		})
	}
}
