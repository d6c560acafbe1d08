package jsonschema

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type base struct {
	ID string `json:"id"`
}

type node struct {
	base
	Name     string            `json:"name,omitempty"`
	At       time.Time         `json:"at"`
	Wait     time.Duration     `json:"wait"`
	Tags     map[string]int    `json:"tags"`
	Next     *node             `json:"next,omitempty"`
	Skipped  string            `json:"-"`
	Untagged bool              // encoding/json uses the Go name
	Raw      []byte            `json:"raw"`
	List     []float32         `json:"list"`
	Anything any               `json:"anything"`
	hidden   int               // unexported: never encoded
	Nested   struct{ X int }   `json:"nested"`
	Opts     map[string]string `json:"opts,omitzero"`
	Maybe    *float64          `json:"maybe"`
	Count    counter           `json:"count"`
}

// counter is encoded as countJSON, as its MarshalJSON would.
type counter struct{ n int }

type countJSON struct {
	N    int  `json:"n"`
	Many bool `json:"many"`
}

func (counter) JSONSchemaAlias() any { return countJSON{} }

func TestFor(t *testing.T) {
	_ = node{}.hidden
	_ = counter{}.n
	for _, tc := range []struct {
		name string
		kind Kind
		path []string // into the schema, through maps
		want string   // JSON of the value found there
	}{
		{name: "root refers to its definition", kind: Output, path: []string{"$ref"}, want: `"#/$defs/jsonschema.node"`},
		{name: "embedded struct flattened", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "id"}, want: `{"type":"string"}`},
		{name: "time is a date-time string", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "at"}, want: `{"format":"date-time","type":"string"}`},
		{name: "duration is integer nanoseconds", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "wait", "type"}, want: `"integer"`},
		{name: "map", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "tags"}, want: `{"additionalProperties":{"type":"integer"},"type":["object","null"]}`},
		{name: "recursive pointer refers back", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "next"}, want: `{"$ref":"#/$defs/jsonschema.node"}`},
		{name: "untagged field keeps its Go name", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "Untagged"}, want: `{"type":"boolean"}`},
		{name: "bytes are base64", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "raw"}, want: `{"contentEncoding":"base64","type":"string"}`},
		{name: "slice", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "list"}, want: `{"items":{"type":"number"},"type":["array","null"]}`},
		{name: "interface is any value", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "anything"}, want: `{}`},
		{name: "anonymous struct inlined", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "nested", "properties", "X"}, want: `{"type":"integer"}`},
		{name: "output requires what is always written", kind: Output, path: []string{"$defs", "jsonschema.node", "required"},
			want: `["id","at","wait","tags","Untagged","raw","list","anything","nested","maybe","count"]`},
		{name: "a pointer always written may be null", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "maybe"}, want: `{"type":["number","null"]}`},
		{name: "an aliaser is its alias, under its own name", kind: Output, path: []string{"$defs", "jsonschema.counter", "properties"},
			want: `{"many":{"type":"boolean"},"n":{"type":"integer"}}`},
		{name: "output allows more", kind: Output, path: []string{"$defs", "jsonschema.node", "additionalProperties"}, want: `null`},
		{name: "input requires nothing", kind: Input, path: []string{"$defs", "jsonschema.node", "required"}, want: `null`},
		{name: "input allows no unknown field", kind: Input, path: []string{"$defs", "jsonschema.node", "additionalProperties"}, want: `false`},
		{name: "skipped and unexported fields absent", kind: Output, path: []string{"$defs", "jsonschema.node", "properties", "Skipped"}, want: `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := For(reflect.TypeFor[node](), tc.kind, "id", "title").Marshal()
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatal(err)
			}
			for _, p := range tc.path {
				m, _ := v.(map[string]any)
				v = m[p]
			}
			got, _ := json.Marshal(v)
			if string(got) != tc.want {
				t.Fatalf("%v = %s, want %s", tc.path, got, tc.want)
			}
		})
	}
}
