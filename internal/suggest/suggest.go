// Package suggest is the one rule for "did you mean": the known name nearest a typed one
// (flags, commands' keys, YAML keys), and yaml.v3's unknown-field errors reworded with it.
package suggest

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// MaxDistance is the most edits a suggestion may be from what was typed.
const MaxDistance = 2

// Synonyms are words people type for a known name that no edit distance reaches ("title" for
// a topic's name, "question" for its query).
var Synonyms = map[string][]string{
	"title": {"name"}, "label": {"name"}, "heading": {"name"},
	"question": {"query"}, "q": {"query"}, "search": {"query"}, "text": {"query"},
}

// Nearest is the known name that name most likely meant: the closest by edit distance (at
// most MaxDistance; the first of equals), else a known synonym (Synonyms), else the first that
// starts with name (of at least 3 bytes); "" when none.
func Nearest(name string, known []string) string {
	for _, syn := range Synonyms[strings.ToLower(name)] {
		if slices.Contains(known, syn) {
			return syn
		}
	}
	best, bestD := "", MaxDistance+1
	for _, k := range known {
		if d := Distance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return best
	}
	if len(name) >= 3 {
		for _, k := range known {
			if strings.HasPrefix(k, name) {
				return k
			}
		}
	}
	return ""
}

// Distance is the Levenshtein distance of a and b (bytes; names are ASCII).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// UnknownKeyError is a YAML key that the type it was read into does not have.
type UnknownKeyError struct {
	Line int
	Key  string
	// Near is the known key meant, "" when none is near.
	Near string
}

func (e *UnknownKeyError) Error() string {
	s := fmt.Sprintf("line %d: unknown key `%s`", e.Line, e.Key)
	if e.Near != "" {
		s += fmt.Sprintf(" (did you mean `%s`?)", e.Near)
	}
	return s
}

var unknownFieldRE = regexp.MustCompile(`^line (\d+): field (.+) not found in type (\S+)$`)

// YAMLKeys rewords err, yaml.v3's error of a decode with KnownFields, when every one of its
// problems is an unknown key: one *UnknownKeyError (or several, joined) with the key meant
// among the yaml keys of the struct types of types (values of them). Any other error is
// returned as it is.
func YAMLKeys(err error, types ...any) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return err
	}
	known := map[string][]string{}
	for _, v := range types {
		t := reflect.TypeOf(v)
		known[t.String()] = Keys(t)
	}
	var out []error
	for _, e := range te.Errors {
		m := unknownFieldRE.FindStringSubmatch(e)
		if m == nil {
			return err
		}
		line, _ := strconv.Atoi(m[1])
		out = append(out, &UnknownKeyError{Line: line, Key: m[2], Near: Nearest(m[2], known[m[3]])})
	}
	if len(out) == 1 {
		return out[0]
	}
	return errors.Join(out...)
}

// Keys are the YAML keys of the struct type t (its yaml tags, else its lowercased field
// names), in field order.
func Keys(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		keys = append(keys, name)
	}
	return keys
}
