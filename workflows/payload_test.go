package workflows

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
)

// recordingRegistry keeps what Register registers.
type recordingRegistry struct{ funcs map[string]any }

func (r *recordingRegistry) RegisterWorkflow(w any) {
	r.RegisterWorkflowWithOptions(w, workflow.RegisterOptions{})
}

func (r *recordingRegistry) RegisterWorkflowWithOptions(w any, o workflow.RegisterOptions) {
	r.funcs[o.Name] = w
}

func (r *recordingRegistry) RegisterDynamicWorkflow(any, workflow.DynamicRegisterOptions) {}

// payloadRoots are the types that cross a workflow boundary: the parameters and results of
// every registered workflow and of every activity method of *activities.Activities.
func payloadRoots(t *testing.T) map[string]reflect.Type {
	t.Helper()
	roots := map[string]reflect.Type{}
	add := func(fn string, ft reflect.Type, skipFirst bool) {
		for i := 0; i < ft.NumIn(); i++ {
			if skipFirst && i == 0 {
				continue
			}
			in := ft.In(i)
			if in == reflect.TypeFor[context.Context]() || in == reflect.TypeFor[workflow.Context]() {
				continue
			}
			roots[fn+" in "+in.String()] = in
		}
		for i := 0; i < ft.NumOut(); i++ {
			if out := ft.Out(i); out != reflect.TypeFor[error]() {
				roots[fn+" out "+out.String()] = out
			}
		}
	}
	reg := &recordingRegistry{funcs: map[string]any{}}
	Register(reg)
	if len(reg.funcs) == 0 {
		t.Fatal("Register registered no workflow")
	}
	for name, fn := range reg.funcs {
		add("workflow "+name, reflect.TypeOf(fn), false)
	}
	at := reflect.TypeFor[*activities.Activities]()
	acts := 0
	for i := 0; i < at.NumMethod(); i++ {
		m := at.Method(i)
		// Activities are the methods Temporal registers: first parameter (after the
		// receiver) a context.Context, last result an error.
		ft := m.Type
		if ft.NumIn() < 2 || ft.In(1) != reflect.TypeFor[context.Context]() || ft.NumOut() == 0 || ft.Out(ft.NumOut()-1) != reflect.TypeFor[error]() {
			continue
		}
		acts++
		add("activity "+m.Name, ft, true)
	}
	if acts == 0 {
		t.Fatal("no activity method found on *activities.Activities")
	}
	return roots
}

// untaggedFields walks t and everything reachable from it that asof declares, and returns
// "Type.Field" for each exported field without a json tag. An embedded struct without a tag is
// allowed (encoding/json flattens its fields, which are checked in turn).
func untaggedFields(t reflect.Type, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() == reflect.Map {
		return append(untaggedFields(t.Key(), seen), untaggedFields(t.Elem(), seen)...)
	}
	if t.Kind() != reflect.Struct || seen[t] || !strings.HasPrefix(t.PkgPath(), "github.com/asofrag/asof") {
		return nil
	}
	seen[t] = true
	var bad []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous { // encoding/json flattens embedded structs, exported or not
			continue
		}
		if _, ok := f.Tag.Lookup("json"); !ok && !f.Anonymous {
			bad = append(bad, t.String()+"."+f.Name)
		}
		bad = append(bad, untaggedFields(f.Type, seen)...)
	}
	return bad
}

// TestPayloadFieldsHaveJSONTags: every exported field of every type a workflow or activity
// takes or returns has a json tag, so renaming the Go field does not silently change the key
// (and zero the value) in histories of running workflows.
func TestPayloadFieldsHaveJSONTags(t *testing.T) {
	roots := payloadRoots(t)
	names := make([]string, 0, len(roots))
	for n := range roots {
		names = append(names, n)
	}
	sort.Strings(names)
	seen := map[reflect.Type]bool{}
	var bad []string
	for _, n := range names {
		for _, f := range untaggedFields(roots[n], seen) {
			bad = append(bad, f+" (via "+n+")")
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%d exported fields crossing a workflow boundary have no json tag:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// TestUntaggedFieldsFindsMissingTags: the walker reports an untagged field of a nested,
// pointed-to or listed struct, and accepts tagged and embedded ones.
func TestUntaggedFieldsFindsMissingTags(t *testing.T) {
	type inner struct {
		Tagged   int `json:"tagged"`
		Untagged int
	}
	type embedded struct {
		Flat string
	}
	type root struct {
		embedded
		In     *inner           `json:"in"`
		List   []inner          `json:"list"`
		Clean  HealthCheckInput `json:"clean"`
		hidden int
	}
	_ = root{}.hidden
	got := strings.Join(untaggedFields(reflect.TypeFor[root](), map[reflect.Type]bool{}), ",")
	if want := "workflows.embedded.Flat,workflows.inner.Untagged"; got != want {
		t.Fatalf("untagged = %s, want %s", got, want)
	}
}

// TestRecordedPayloadsDecodeWithoutLoss decodes every workflow and activity input (and local
// activity result) recorded in testdata/*.json into today's Go type and fails on a key the type no longer knows: a renamed
// field or a json tag that changed the key would make a running workflow's payload decode to
// zero.
func TestRecordedPayloadsDecodeWithoutLoss(t *testing.T) {
	reg := &recordingRegistry{funcs: map[string]any{}}
	Register(reg)
	at := reflect.TypeFor[*activities.Activities]()
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded histories: %v", err)
	}
	decoded := 0
	check := func(t *testing.T, what string, ft reflect.Type, first int, in *commonpb.Payloads) {
		t.Helper()
		for i, p := range in.GetPayloads() {
			if first+i >= ft.NumIn() {
				t.Errorf("%s: payload %d has no parameter", what, i)
				continue
			}
			v := reflect.New(ft.In(first + i))
			dec := json.NewDecoder(bytes.NewReader(p.GetData()))
			dec.DisallowUnknownFields()
			if err := dec.Decode(v.Interface()); err != nil {
				t.Errorf("%s: recorded input does not decode into %s: %v", what, ft.In(first+i), err)
			}
			decoded++
		}
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			hist := readHistory(t, f)
			for _, ev := range hist.Events {
				if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil {
					fn, ok := reg.funcs[a.GetWorkflowType().GetName()]
					if !ok {
						t.Fatalf("workflow %s is not registered", a.GetWorkflowType().GetName())
					}
					check(t, "workflow "+a.GetWorkflowType().GetName(), reflect.TypeOf(fn), 1, a.GetInput())
				}
				if a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil {
					fn, ok := reg.funcs[a.GetWorkflowType().GetName()]
					if !ok {
						t.Fatalf("child workflow %s is not registered", a.GetWorkflowType().GetName())
					}
					check(t, "child "+a.GetWorkflowType().GetName(), reflect.TypeOf(fn), 1, a.GetInput())
				}
				if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
					m, ok := at.MethodByName(a.GetActivityType().GetName())
					if !ok {
						t.Fatalf("activity %s no longer exists", a.GetActivityType().GetName())
					}
					check(t, "activity "+m.Name, m.Type, 2, a.GetInput()) // receiver, context
				}
				// A local activity's result is in its marker, and replay hands it to the
				// workflow as today's result type.
				if mk := ev.GetMarkerRecordedEventAttributes(); mk != nil && mk.GetMarkerName() == "LocalActivity" {
					var la struct{ ActivityType string }
					if p := mk.GetDetails()["data"].GetPayloads(); len(p) == 0 || json.Unmarshal(p[0].GetData(), &la) != nil {
						t.Fatalf("local activity marker %d without its data", ev.GetEventId())
					}
					m, ok := at.MethodByName(la.ActivityType)
					if !ok {
						t.Fatalf("local activity %s no longer exists", la.ActivityType)
					}
					for _, p := range mk.GetDetails()["result"].GetPayloads() {
						v := reflect.New(m.Type.Out(0))
						dec := json.NewDecoder(bytes.NewReader(p.GetData()))
						dec.DisallowUnknownFields()
						if err := dec.Decode(v.Interface()); err != nil {
							t.Errorf("local activity %s: recorded result does not decode into %s: %v", m.Name, m.Type.Out(0), err)
						}
						decoded++
					}
				}
			}
		})
	}
	if decoded == 0 {
		t.Fatal("no recorded payload was decoded")
	}
}
