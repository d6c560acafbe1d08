package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// ErrInvalid is what Validate returns (wrapped, with every violation) for a document that does
// not match its schema.
var ErrInvalid = errors.New("document does not match its schema")

// Fields lists every field a schema (JSON, as For writes it) describes, one "path type" line
// each, sorted: "results[].published_at string/date-time". Definitions are followed through
// $ref (a recursive one once); a map's values are at "name{}", an array's items at "name[]".
// Two schemas are compatible for a reader or a writer of the older one when every line of the
// older is still in the newer: a field removed, renamed or retyped loses its line.
func Fields(schema []byte) ([]string, error) {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	defs, _ := root["$defs"].(map[string]any)
	var out []string
	var walk func(path string, s map[string]any, seen []string)
	walk = func(path string, s map[string]any, seen []string) {
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			if slices.Contains(seen, name) {
				out = append(out, path+" ref:"+name)
				return
			}
			def, _ := defs[name].(map[string]any)
			walk(path, def, append(seen, name))
			return
		}
		if path != "" {
			out = append(out, path+" "+typeOf(s))
		}
		if props, ok := s["properties"].(map[string]any); ok {
			prefix := path
			if prefix != "" {
				prefix += "."
			}
			for name, p := range props {
				ps, _ := p.(map[string]any)
				walk(prefix+name, ps, seen)
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(path+"[]", items, seen)
		}
		if values, ok := s["additionalProperties"].(map[string]any); ok {
			walk(path+"{}", values, seen)
		}
	}
	walk("", root, nil)
	sort.Strings(out)
	return out, nil
}

// typeOf is a schema's type (types joined by |, then /format), or "any".
func typeOf(s map[string]any) string {
	var t string
	switch v := s["type"].(type) {
	case string:
		t = v
	case []any:
		parts := make([]string, len(v))
		for i, p := range v {
			parts[i] = fmt.Sprint(p)
		}
		t = strings.Join(parts, "|")
	default:
		return "any"
	}
	if f, ok := s["format"].(string); ok {
		t += "/" + f
	}
	return t
}

// Validate checks doc (JSON) against schema (JSON, as For writes it): the subset of draft
// 2020-12 that For uses — $ref into $defs, type, properties, required, additionalProperties
// (false or a schema), items and the date-time format. It returns ErrInvalid wrapped with
// every violation, each with its path.
func Validate(schema, doc []byte) error { return validate(schema, doc, false) }

// ValidateExact is Validate where an object may have no property its schema does not
// describe (an output schema allows more, for a reader's sake): a writer's test that what it
// writes is all published.
func ValidateExact(schema, doc []byte) error { return validate(schema, doc, true) }

func validate(schema, doc []byte, exact bool) error {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return fmt.Errorf("parse schema: %w", err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("parse document: %w", err)
	}
	defs, _ := root["$defs"].(map[string]any)
	var errs []error
	var check func(path string, s map[string]any, v any)
	check = func(path string, s map[string]any, v any) {
		if ref, ok := s["$ref"].(string); ok {
			def, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
			check(path, def, v)
			return
		}
		if t := typeOf(s); t != "any" {
			got := jsonType(v)
			want := strings.Split(strings.SplitN(t, "/", 2)[0], "|")
			if !slices.Contains(want, got) && !(got == "integer" && slices.Contains(want, "number")) {
				errs = append(errs, fmt.Errorf("%s: %s, want %s", pathOr(path), got, strings.Join(want, " or ")))
				return
			}
			if str, ok := v.(string); ok && s["format"] == "date-time" {
				if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
					errs = append(errs, fmt.Errorf("%s: %q is not an RFC 3339 date-time", pathOr(path), str))
				}
			}
		}
		switch x := v.(type) {
		case map[string]any:
			props, _ := s["properties"].(map[string]any)
			if req, ok := s["required"].([]any); ok {
				for _, r := range req {
					if _, ok := x[fmt.Sprint(r)]; !ok {
						errs = append(errs, fmt.Errorf("%s: lacks required %q", pathOr(path), r))
					}
				}
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if ps, ok := props[k].(map[string]any); ok {
					check(path+"."+k, ps, x[k])
					continue
				}
				switch ap := s["additionalProperties"].(type) {
				case map[string]any:
					check(path+"."+k, ap, x[k])
				case nil, bool:
					if ap == false || ap == nil && exact {
						errs = append(errs, fmt.Errorf("%s: unknown property %q", pathOr(path), k))
					}
				}
			}
		case []any:
			if items, ok := s["items"].(map[string]any); ok {
				for i, e := range x {
					check(fmt.Sprintf("%s[%d]", path, i), items, e)
				}
			}
		}
	}
	check("", root, v)
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return nil
}

func pathOr(p string) string {
	if p == "" {
		return "(root)"
	}
	return strings.TrimPrefix(p, ".")
}

// jsonType is the JSON Schema type of a decoded JSON value.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}
