package apispec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/retrieve"
)

func intp(n int) *int { return &n }

func TestAskRequestCheck(t *testing.T) {
	base := AskRequest{Query: "brexit deal", Index: "rtqa", AsOf: "2023-03-03"}
	with := func(f func(r *AskRequest)) AskRequest { r := base; f(&r); return r }
	tests := []struct {
		name    string
		req     AskRequest
		label   Label
		wantErr string
		check   func(t *testing.T, a Ask)
	}{
		{name: "defaults", req: base, check: func(t *testing.T, a Ask) {
			if a.Mode != ModeAuto || !a.AsOf.Equal(time.Date(2023, 3, 3, 0, 0, 0, 0, time.UTC)) || a.Today || a.Options.K != retrieve.DefaultOptions().K {
				t.Fatalf("%+v", a)
			}
		}},
		{name: "today", req: with(func(r *AskRequest) { r.AsOf, r.Today = "", true }), check: func(t *testing.T, a Ask) {
			if !a.Today || !a.AsOf.IsZero() {
				t.Fatalf("%+v", a)
			}
		}},
		{name: "no day", req: with(func(r *AskRequest) { r.AsOf = "" }), wantErr: "as_of is required (YYYY-MM-DD); set today"},
		{name: "no day, flags", req: with(func(r *AskRequest) { r.AsOf = "" }), label: FlagLabel, wantErr: "--as-of is required"},
		{name: "day and today", req: with(func(r *AskRequest) { r.Today = true }), wantErr: "as_of and today: give one"},
		{name: "zero time", req: with(func(r *AskRequest) { r.AsOf = "0001-01-01" }), wantErr: `as_of "0001-01-01" is out of range`},
		{name: "year 0", req: with(func(r *AskRequest) { r.AsOf = "0000-01-01" }), label: FlagLabel, wantErr: `--as-of "0000-01-01" is out of range`},
		{name: "not a date", req: with(func(r *AskRequest) { r.AsOf = "yesterday" }), wantErr: `as_of "yesterday" is not a date`},
		{name: "empty query", req: with(func(r *AskRequest) { r.Query = "  " }), wantErr: "query is empty"},
		{name: "control characters stripped from the query", req: with(func(r *AskRequest) {
			r.Query = "key rate \x1b[2J\x1b]0;API-TITLE\x07 via\r\napi\u009b31m\u202e"
		}), check: func(t *testing.T, a Ask) {
			if a.Query != "key rate [2J]0;API-TITLE via  api31m" {
				t.Fatalf("query %q", a.Query)
			}
		}},
		{name: "a query of control characters only is empty", req: with(func(r *AskRequest) { r.Query = "\x1b\x07\u009b" }), wantErr: "query is empty"},
		{name: "bad index", req: with(func(r *AskRequest) { r.Index = "../x" }), wantErr: "index:"},
		{name: "bad mode", req: with(func(r *AskRequest) { r.Mode = "fast" }), wantErr: `mode "fast": use auto or one of`},
		{name: "k zero is refused, not the default", req: with(func(r *AskRequest) { r.K = intp(0) }), wantErr: "k 0 must be ≥ 1"},
		{name: "k", req: with(func(r *AskRequest) { r.K = intp(3) }), check: func(t *testing.T, a Ask) {
			if a.Options.K != 3 {
				t.Fatal(a.Options.K)
			}
		}},
		{name: "year makes a window", req: with(func(r *AskRequest) { r.Year = 2015 }), check: func(t *testing.T, a Ask) {
			if a.Mode != "window" || a.From.Year() != 2015 || a.To.Month() != 12 {
				t.Fatalf("%+v", a)
			}
		}},
		{name: "year and from", req: with(func(r *AskRequest) { r.Year, r.From = 2015, "2015-01-01" }), label: FlagLabel, wantErr: "--year and --from/--to"},
		{name: "cluster gap", req: with(func(r *AskRequest) { r.ClusterGap = "30m" }), check: func(t *testing.T, a Ask) {
			if a.Options.ClusterGap != 30*time.Minute {
				t.Fatal(a.Options.ClusterGap)
			}
		}},
		{name: "bad cluster gap", req: with(func(r *AskRequest) { r.ClusterGap = "soon" }), wantErr: `cluster_gap "soon"`},
		{name: "empty source", req: with(func(r *AskRequest) { r.Sources = []string{""} }), label: FlagLabel, wantErr: "--source: an empty source"},
		{name: "bad summarizer", req: with(func(r *AskRequest) { r.Summarizer = "gpt" }), wantErr: `summarizer "gpt"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			label := tc.label
			if label == nil {
				label = JSONLabel
			}
			a, err := tc.req.Check(label)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !IsInvalid(err) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, a)
		})
	}
}

func TestDigestRequestCheck(t *testing.T) {
	topics := []digest.Topic{{Query: "rates"}, {Name: "Elections", Query: "elections", Mode: "recency"}}
	tests := []struct {
		name    string
		req     DigestRequest
		wantErr string
	}{
		{name: "ok", req: DigestRequest{Index: "tg", Topics: topics, AsOf: "2025-09-04"}},
		{name: "today", req: DigestRequest{Index: "tg", Topics: topics, Today: true, TimeZone: "Europe/Moscow"}},
		{name: "no topics", req: DigestRequest{Index: "tg", AsOf: "2025-09-04"}, wantErr: "topics:"},
		{name: "empty query", req: DigestRequest{Index: "tg", Topics: []digest.Topic{{Name: "x"}}, AsOf: "2025-09-04"}, wantErr: "topics: entry 1"},
		{name: "bad mode", req: DigestRequest{Index: "tg", Topics: []digest.Topic{{Query: "x", Mode: "fast"}}, AsOf: "2025-09-04"}, wantErr: "topics:"},
		{name: "no day", req: DigestRequest{Index: "tg", Topics: topics}, wantErr: "as_of is required"},
		{name: "bad zone", req: DigestRequest{Index: "tg", Topics: topics, Today: true, TimeZone: "Mars/Olympus"}, wantErr: `time_zone "Mars/Olympus"`},
		{name: "bad name", req: DigestRequest{Name: "a/b", Index: "tg", Topics: topics, Today: true}, wantErr: "name:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.req.Check(JSONLabel)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !IsInvalid(err) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Name != "digest" || len(d.Topics) != 2 || d.Topics[0].Name != "rates" || d.Topics[0].Mode != "auto" {
				t.Fatalf("%+v", d)
			}
		})
	}
}

// TestOpenAPIMatchesTheGoTypes checks that every field of every request and response type of
// Operations is in the document's schema for it, with additionalProperties false on requests.
func TestOpenAPIMatchesTheGoTypes(t *testing.T) {
	data, err := OpenAPI("test")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI    string                                      `json:"openapi"`
		Paths      map[string]map[string]map[string]any        `json:"paths"`
		Components struct{ Schemas map[string]map[string]any } `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	schemaOf := func(t *testing.T, ref string) map[string]any {
		t.Helper()
		name, ok := strings.CutPrefix(ref, "#/components/schemas/")
		if !ok || doc.Components.Schemas[name] == nil {
			t.Fatalf("reference %q resolves to nothing", ref)
		}
		return doc.Components.Schemas[name]
	}
	var checkFields func(t *testing.T, typ reflect.Type, s map[string]any)
	checkFields = func(t *testing.T, typ reflect.Type, s map[string]any) {
		t.Helper()
		for typ.Kind() == reflect.Slice || typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		props, _ := s["properties"].(map[string]any)
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" { // an embedded struct's fields are the outer one's
				checkFields(t, f.Type, s)
				continue
			}
			if name == "-" || !f.IsExported() {
				continue
			}
			if _, ok := props[name]; !ok {
				t.Errorf("%s: field %s (%s) missing from the document", typ, f.Name, name)
			}
		}
		if len(props) < typ.NumField()/2 {
			t.Errorf("%s: %d properties for %d fields", typ, len(props), typ.NumField())
		}
	}
	for _, op := range Operations {
		o := doc.Paths[op.Path][strings.ToLower(op.Method)]
		if o == nil {
			t.Fatalf("%s %s is not in the document", op.Method, op.Path)
		}
		if op.Request != nil {
			ref := o["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["$ref"].(string)
			s := schemaOf(t, ref)
			if s["additionalProperties"] != false {
				t.Errorf("%s: request schema allows unknown fields", op.ID)
			}
			checkFields(t, op.Request, s)
		}
		if op.Response != nil {
			resp := o["responses"].(map[string]any)[itoa(op.Status)].(map[string]any)
			s := resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
			if items, ok := s["items"].(map[string]any); ok {
				s = items
			}
			checkFields(t, op.Response, schemaOf(t, s["$ref"].(string)))
		}
		if len(op.OneOf) > 0 {
			resp := o["responses"].(map[string]any)[itoa(op.Status)].(map[string]any)
			refs := resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["oneOf"].([]any)
			if len(refs) != len(op.OneOf) {
				t.Fatalf("%s: %d schemas for %d types", op.ID, len(refs), len(op.OneOf))
			}
			for i, typ := range op.OneOf {
				checkFields(t, typ, schemaOf(t, refs[i].(map[string]any)["$ref"].(string)))
			}
		}
	}
	// The listings' fields a client sorts and links by, by name.
	for typ, fields := range map[string][]string{"catalog.StoredAnswer": {"run_id", "index", "as_of", "query", "mode", "saved"},
		"catalog.StoredEval": {"id", "kind", "index", "questions", "systems", "saved", "problem"}} {
		props := schemaOf(t, "#/components/schemas/"+typ)["properties"].(map[string]any)
		for _, f := range fields {
			if props[f] == nil {
				t.Errorf("%s: no %s", typ, f)
			}
		}
	}
	// The ask request's every field, by name (the form and clients rely on them).
	ask := schemaOf(t, "#/components/schemas/apispec.AskRequest")["properties"].(map[string]any)
	for _, f := range []string{"query", "index", "as_of", "today", "mode", "year", "from", "to", "k", "evolution_k", "window_days", "top_n", "max_per_source", "sources", "cluster_gap", "no_int8", "judge", "summarizer"} {
		if ask[f] == nil {
			t.Errorf("ask request: no %s", f)
		}
	}
}

func TestListRequestCheck(t *testing.T) {
	tests := []struct {
		name    string
		req     ListRequest
		label   Label
		want    List
		wantErr string
	}{
		{name: "defaults", req: ListRequest{}, want: List{Limit: DefaultListLimit}},
		{name: "index and limit", req: ListRequest{Index: "news", Limit: "5"}, want: List{Index: "news", Limit: 5}},
		{name: "the most", req: ListRequest{Limit: "1000"}, want: List{Limit: 1000}},
		{name: "too many", req: ListRequest{Limit: "1001"}, wantErr: `limit "1001": give a number from 1 to 1000`},
		{name: "zero is refused, not the default", req: ListRequest{Limit: "0"}, wantErr: `limit "0": give a number`},
		{name: "not a number", req: ListRequest{Limit: "ten"}, label: FlagLabel, wantErr: `--limit "ten": give a number`},
		{name: "bad index", req: ListRequest{Index: "../x"}, wantErr: `index: index name "../x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			label := tc.label
			if label == nil {
				label = JSONLabel
			}
			got, err := tc.req.Check(label)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !IsInvalid(err) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Check = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestFormatAndIDs(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		wantErr string
	}{
		{name: "no format is json", err: func() error {
			if f, err := Format("format", ""); err != nil || f != "json" {
				return fmt.Errorf("Format(\"\") = %q, %v", f, err)
			}
			return nil
		}()},
		{name: "html", err: func() error { _, err := Format("format", "html"); return err }()},
		{name: "pdf", err: func() error { _, err := Format("format", "pdf"); return err }(), wantErr: `format "pdf": use json, md, html`},
		{name: "run id", err: CheckRunID("asof-ask-news-20260325T101010.123Z")},
		{name: "run id climbing out", err: CheckRunID("../x"), wantErr: `run id "../x" has a '/'`},
		{name: "eval id", err: CheckEvalID("0123456789abcdef")},
		{name: "empty eval id", err: CheckEvalID(""), wantErr: "eval id of 0 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.wantErr == "" {
				if tc.err != nil {
					t.Fatal(tc.err)
				}
				return
			}
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.wantErr) || !IsInvalid(tc.err) {
				t.Fatalf("error %v, want an invalid-request error containing %q", tc.err, tc.wantErr)
			}
		})
	}
}
