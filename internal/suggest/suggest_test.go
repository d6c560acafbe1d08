package suggest

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestNearest(t *testing.T) {
	known := []string{"name", "query", "mode"}
	for _, tt := range []struct{ in, want string }{
		{"qeury", "query"}, {"nmae", "name"}, {"mod", "mode"}, {"title", "name"}, {"Question", "query"}, {"colour", ""}, {"que", "query"},
	} {
		if got := Nearest(tt.in, known); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestYAMLKeys: an unknown key is reworded with its line and the key meant; two are two
// lines; any other decode error is yaml's own.
func TestYAMLKeys(t *testing.T) {
	type item struct {
		Name  string `yaml:"name"`
		Query string `yaml:"query,omitempty"`
	}
	type file struct {
		Items []item `yaml:"items"`
	}
	dec := func(s string) error {
		d := yaml.NewDecoder(strings.NewReader(s))
		d.KnownFields(true)
		var f file
		return YAMLKeys(d.Decode(&f), item{}, file{})
	}
	err := dec("items:\n  - name: a\n    qeury: b\n")
	var uk *UnknownKeyError
	if !errors.As(err, &uk) || err.Error() != "line 3: unknown key `qeury` (did you mean `query`?)" {
		t.Errorf("err = %v", err)
	}
	if err := dec("itmes: []\ntitle: x\n"); err == nil || err.Error() != "line 1: unknown key `itmes` (did you mean `items`?)\nline 2: unknown key `title`" {
		t.Errorf("two keys: err = %q", err)
	}
	if err := dec("items: 5\n"); err == nil || errors.As(err, &uk) {
		t.Errorf("a type error: err = %v, want yaml's", err)
	}
}
