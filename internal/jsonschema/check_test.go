package jsonschema

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type item struct {
	At   time.Time `json:"at"`
	Note string    `json:"note,omitempty"`
}

type doc struct {
	Name  string         `json:"name"`
	N     int            `json:"n"`
	Score float64        `json:"score"`
	Items []item         `json:"items"`
	Tags  map[string]int `json:"tags"`
	Next  *doc           `json:"next,omitempty"`
}

func schemaOf(t *testing.T, v any, kind Kind) []byte {
	t.Helper()
	data, err := For(reflect.TypeOf(v), kind, "id", "title").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestFields(t *testing.T) {
	got, err := Fields(schemaOf(t, doc{}, Output))
	if err != nil {
		t.Fatal(err)
	}
	// next is a *doc: its definition is already being walked, so it is named, not expanded.
	want := []string{
		"items array|null", "items[] object", "items[].at string/date-time", "items[].note string",
		"n integer", "name string", "next ref:jsonschema.doc", "score number", "tags object|null", "tags{} integer",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Fields =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestValidate(t *testing.T) {
	out := schemaOf(t, doc{}, Output)
	in := schemaOf(t, doc{}, Input)
	for _, tc := range []struct {
		name   string
		schema []byte
		doc    string
		exact  bool     // ValidateExact
		want   []string // substrings of the error; none: valid
	}{
		{name: "valid", schema: out, doc: `{"name":"a","n":1,"score":0.5,"items":[{"at":"2026-03-31T00:00:00Z"}],"tags":null}`},
		{name: "integer is a number", schema: out, doc: `{"name":"a","n":1,"score":2,"items":null,"tags":{"x":1}}`},
		{name: "output allows more", schema: out, doc: `{"name":"a","n":1,"score":2,"items":[],"tags":{},"extra":true}`},
		{name: "exact allows no more", schema: out, exact: true, doc: `{"name":"a","n":1,"score":2,"items":[{"at":"2026-03-31T00:00:00Z","x":1}],"tags":{},"extra":true}`,
			want: []string{`(root): unknown property "extra"`, `items[0]: unknown property "x"`}},
		{name: "exact takes what is described", schema: out, exact: true, doc: `{"name":"a","n":1,"score":2,"items":[],"tags":{"x":1}}`},
		{name: "required missing", schema: out, doc: `{"name":"a","score":2,"items":[],"tags":{}}`, want: []string{`(root): lacks required "n"`}},
		{name: "wrong type", schema: out, doc: `{"name":3,"n":1.5,"score":2,"items":[],"tags":{}}`, want: []string{"name: integer, want string", "n: number, want integer"}},
		{name: "item date", schema: out, doc: `{"name":"a","n":1,"score":2,"items":[{"at":"31 March"}],"tags":{}}`, want: []string{`items[0].at: "31 March" is not an RFC 3339`}},
		{name: "map values", schema: out, doc: `{"name":"a","n":1,"score":2,"items":[],"tags":{"x":"y"}}`, want: []string{"tags.x: string, want integer"}},
		{name: "recursive ref", schema: out, doc: `{"name":"a","n":1,"score":2,"items":[],"tags":{},"next":{"name":"b"}}`, want: []string{`next: lacks required "n"`}},
		{name: "input rejects unknown", schema: in, doc: `{"nmae":"a"}`, want: []string{`(root): unknown property "nmae"`}},
		{name: "input requires nothing", schema: in, doc: `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validate := Validate
			if tc.exact {
				validate = ValidateExact
			}
			err := validate(tc.schema, []byte(tc.doc))
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to say %q", err, w)
				}
			}
		})
	}
}
