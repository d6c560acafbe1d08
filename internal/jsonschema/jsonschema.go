// Package jsonschema derives JSON Schema (draft 2020-12) documents from Go types, the way
// encoding/json encodes them: json tag names, embedded structs flattened, time.Time as a
// date-time string, time.Duration as integer nanoseconds. Every named struct becomes a
// definition under $defs, so a schema reads like the Go types.
//
// An input schema (what a client sends) requires nothing, since a missing field decodes to its
// zero value, the documented default, and allows no unknown property: a misspelt field would
// otherwise be dropped in silence. An output schema (what asof writes) requires every field
// without omitempty, as encoding/json always writes it, and allows more, so a reader keeps
// working when a field is added.
package jsonschema

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// Draft is the JSON Schema dialect of the documents For writes.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Schema is one JSON Schema object (encoding/json sorts its keys, so output is stable).
type Schema map[string]any

// Kind says which side of the API a schema is for.
type Kind int

// Input and Output are the two kinds of schema.
const (
	Input Kind = iota
	Output
)

// For returns the schema of t's JSON encoding, with id as its $id and title as its title.
func For(t reflect.Type, kind Kind, id, title string) Schema {
	g := &generator{kind: kind, defs: map[string]Schema{}, names: map[reflect.Type]string{}, prefix: "#/$defs/"}
	root := g.schema(t)
	out := Schema{"$schema": Draft, "$id": id, "title": title}
	for k, v := range root {
		out[k] = v
	}
	if len(g.defs) > 0 {
		out["$defs"] = g.defs
	}
	return out
}

// Marshal is s as indented JSON with a final newline.
func (s Schema) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(s, "", "  ")
	return append(data, '\n'), err
}

type generator struct {
	kind  Kind
	defs  map[string]Schema
	names map[reflect.Type]string
	// prefix is where references point: "#/$defs/" in a schema of its own,
	// "#/components/schemas/" in an OpenAPI document.
	prefix string
	// kinds, shared by a Components' two generators, records which side defined a name.
	kinds map[string]Kind
}

// Components collects the schemas of an OpenAPI 3.1 document (whose schema dialect is
// draft 2020-12) under #/components/schemas: each named struct once, referred to by its
// package-qualified name. A type used both as input and as output is defined twice, the
// second with "Input" or "Output" after its name.
type Components struct {
	defs     map[string]Schema
	in, out  *generator
	defKinds map[string]Kind
}

// NewComponents returns an empty Components.
func NewComponents() *Components {
	c := &Components{defs: map[string]Schema{}, defKinds: map[string]Kind{}}
	c.in = &generator{kind: Input, defs: c.defs, names: map[reflect.Type]string{}, prefix: "#/components/schemas/"}
	c.out = &generator{kind: Output, defs: c.defs, names: map[reflect.Type]string{}, prefix: "#/components/schemas/"}
	c.in.kinds, c.out.kinds = c.defKinds, c.defKinds
	return c
}

// Schema returns the schema of t's JSON encoding as kind, a reference for a named struct,
// adding what it needs to c.
func (c *Components) Schema(t reflect.Type, kind Kind) Schema {
	if kind == Input {
		return c.in.schema(t)
	}
	return c.out.schema(t)
}

// Schemas are the collected definitions, by name: the document's components.schemas.
func (c *Components) Schemas() map[string]Schema { return c.defs }

// Aliaser is a type whose JSON encoding is another type's: one with a MarshalJSON that
// marshals a struct of its own. Its schema is that of JSONSchemaAlias's value (called on the
// zero value), under the type's own name.
type Aliaser interface {
	JSONSchemaAlias() any
}

var (
	aliaserType  = reflect.TypeFor[Aliaser]()
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
	rawType      = reflect.TypeFor[json.RawMessage]()
)

func (g *generator) schema(t reflect.Type) Schema {
	switch t {
	case timeType:
		return Schema{"type": "string", "format": "date-time"}
	case durationType:
		return Schema{"type": "integer", "description": "a duration in nanoseconds"}
	case rawType:
		return Schema{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.schema(t.Elem())
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return Schema{"type": "string", "contentEncoding": "base64"}
		}
		return Schema{"type": []string{"array", "null"}, "items": g.schema(t.Elem())}
	case reflect.Map:
		return Schema{"type": []string{"object", "null"}, "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		return g.ref(t)
	}
	return Schema{} // interfaces and anything else: any JSON value
}

// ref defines a named struct once under $defs and refers to it; anonymous structs are inlined.
func (g *generator) ref(t reflect.Type) Schema {
	if t.Name() == "" {
		return g.object(t)
	}
	name, ok := g.names[t]
	if !ok {
		name = defName(t)
		if k, taken := g.kinds[name]; taken && k != g.kind { // a Components' other side defined it
			name += [...]string{Input: "Input", Output: "Output"}[g.kind]
		}
		if g.kinds != nil {
			g.kinds[name] = g.kind
		}
		g.names[t] = name
		g.defs[name] = nil // reserved: recursive types refer to it while it is built
		g.defs[name] = g.object(aliasOf(t))
	}
	return Schema{"$ref": g.prefix + name}
}

// aliasOf is the struct type t is encoded as: JSONSchemaAlias's for an Aliaser, else t.
func aliasOf(t reflect.Type) reflect.Type {
	if t.Implements(aliaserType) {
		if a := reflect.TypeOf(reflect.Zero(t).Interface().(Aliaser).JSONSchemaAlias()); a != nil && a.Kind() == reflect.Struct {
			return a
		}
	}
	return t
}

// defName is the package-qualified name of t, such as "retrieve.Options".
func defName(t reflect.Type) string {
	pkg := t.PkgPath()
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + t.Name()
}

func (g *generator) object(t reflect.Type) Schema {
	props := Schema{}
	var required []string
	g.fields(t, props, &required)
	s := Schema{"type": "object", "properties": props}
	if g.kind == Input {
		s["additionalProperties"] = false
	}
	if g.kind == Output && len(required) > 0 {
		s["required"] = required
	}
	return s
}

// fields adds t's encoded fields to props: what encoding/json writes, embedded structs
// flattened. A field without omitempty is always written, so it is required; a pointer one
// to a scalar may be null.
func (g *generator) fields(t reflect.Type, props Schema, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, props, required)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs := g.schema(ft)
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") {
			*required = append(*required, name)
			if typ, ok := fs["type"].(string); ok && ft.Kind() == reflect.Pointer { // a nil one is written null
				fs["type"] = []string{typ, "null"}
			}
		}
		props[name] = fs
	}
}
