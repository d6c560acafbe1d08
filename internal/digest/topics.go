package digest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/asofrag/asof/internal/querycap"
	"github.com/asofrag/asof/internal/suggest"
	"github.com/asofrag/asof/internal/textnorm"
)

// MaxTopics is the most topics a topics file may hold: each topic is one Ask run, so a
// digest of more would take long and read badly.
const MaxTopics = 50

// maxTopicsFileBytes bounds what ParseTopics reads; a topics file is a few kilobytes.
const maxTopicsFileBytes = 1 << 20

// defaultNameRunes is how many runes of the query make the name of a topic without one.
const defaultNameRunes = 60

// ModeAuto lets the query's wording choose the mode (the default of a topic).
const ModeAuto = "auto"

// Modes are the modes a topic may ask for: auto, then the ranking modes of package retrieve.
var Modes = []string{ModeAuto, "recency", "decay", "hybrid", "window", "evolution", "dense", "bm25"}

// Errors of ParseTopics. The returned error wraps one of them and names the entry (1-based)
// and its line.
var (
	// ErrEmptyFile is returned for a file with no YAML document (empty, blank or comments).
	ErrEmptyFile = errors.New("topics file is empty")
	// ErrSyntax is returned for a file that is not YAML of the expected shape, unknown keys
	// included.
	ErrSyntax = errors.New("malformed topics file")
	// ErrNoTopics is returned for a file whose topics list is missing or empty.
	ErrNoTopics = errors.New("no topics")
	// ErrTooManyTopics is returned for a file of more than MaxTopics topics.
	ErrTooManyTopics = errors.New("too many topics")
	// ErrEmptyQuery is returned for a topic without a query.
	ErrEmptyQuery = errors.New("empty query")
	// ErrDuplicateName is returned for two topics whose names differ only in case.
	ErrDuplicateName = errors.New("duplicate topic name")
	// ErrUnknownMode is returned for a mode not in Modes.
	ErrUnknownMode = errors.New("unknown mode")
)

// syntaxError is an error of the file's shape worded whole (an unknown key with its line):
// it is ErrSyntax without saying so.
type syntaxError struct{ err error }

func (e syntaxError) Error() string   { return e.err.Error() }
func (e syntaxError) Unwrap() []error { return []error{ErrSyntax, e.err} }

// Topic is one entry of a topics file.
type Topic struct {
	// Name heads the topic in the digest; it defaults to the query cut to 60 runes.
	Name string `yaml:"name" json:"name"`
	// Query is asked as of the digest's day.
	Query string `yaml:"query" json:"query"`
	// Mode is one of Modes; "auto" when the file leaves it out.
	Mode string `yaml:"mode,omitempty" json:"mode,omitempty"`
}

// topicsFile is the shape of a topics file.
type topicsFile struct {
	Topics []Topic `yaml:"topics"`
}

// ParseTopics reads a topics YAML file:
//
//	topics:
//	  - name: Interest rates
//	    query: what did the central bank decide on rates
//	  - query: новости о выборах
//	    mode: recency
//
// Names and queries are one line each (textnorm.Field: control characters such as ESC and
// BEL and bidi overrides removed, tabs and line breaks made spaces, surrounding space
// trimmed) and modes are trimmed; a missing name defaults to the query (whitespace
// collapsed) cut to 60 runes, a missing mode to "auto". Keys other than
// topics, name, query and mode are errors, as are an empty file, no topics, more than
// MaxTopics, an empty query, two names equal but for case and a mode not in Modes. Errors
// wrap the sentinels above and name the entry and its line; an unknown key reads
// "line 3: unknown key `qeury` (did you mean `query`?)" (a *suggest.UnknownKeyError).
func ParseTopics(r io.Reader) ([]Topic, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxTopicsFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read topics file: %w", err)
	}
	if len(data) > maxTopicsFileBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrSyntax, maxTopicsFileBytes)
	}
	// First pass: the typed decode, strict about keys and types; yaml's errors name the line.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f topicsFile
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ErrEmptyFile
		}
		var uk *suggest.UnknownKeyError
		if err := suggest.YAMLKeys(err, Topic{}, topicsFile{}); errors.As(err, &uk) {
			return nil, syntaxError{err} // "line 3: unknown key `qeury` (did you mean `query`?)"
		}
		if line, msg := misindented(data); line > 0 {
			return nil, fmt.Errorf("%w: line %d: %s (yaml: %w)", ErrSyntax, line, msg, err)
		}
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: more than one YAML document", ErrSyntax)
	}
	// Second pass: the same document as nodes, for the line of each entry (and because
	// the typed decode silently drops null entries, which would shift the numbering).
	var nodes struct {
		Topics []yaml.Node `yaml:"topics"`
	}
	if err := yaml.Unmarshal(data, &nodes); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	if len(nodes.Topics) == 0 {
		return nil, fmt.Errorf("%w: the file needs a list \"topics:\" of entries with a query", ErrNoTopics)
	}
	if len(nodes.Topics) > MaxTopics {
		return nil, fmt.Errorf("%w: %d, at most %d", ErrTooManyTopics, len(nodes.Topics), MaxTopics)
	}
	where := func(i int) string { return fmt.Sprintf("entry %d (line %d)", i+1, nodes.Topics[i].Line) }
	out := make([]Topic, len(nodes.Topics))
	seen := make(map[string]int, len(nodes.Topics))
	for i, n := range nodes.Topics {
		var t Topic
		if err := n.Decode(&t); err != nil { // keys and types were checked by the first pass
			return nil, fmt.Errorf("%w: %s: %w", ErrSyntax, where(i), err)
		}
		t.Query = textnorm.Field(t.Query)
		if t.Query == "" {
			return nil, fmt.Errorf("%s: %w", where(i), ErrEmptyQuery)
		}
		if err := querycap.Check("its query", t.Query); err != nil {
			return nil, fmt.Errorf("%s: %w", where(i), err)
		}
		t.Name = textnorm.Field(t.Name)
		if t.Name == "" {
			t.Name = defaultName(t.Query)
		}
		key := strings.ToLower(t.Name)
		if j, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s: %w %q (also %s)", where(i), ErrDuplicateName, t.Name, where(j))
		}
		seen[key] = i
		t.Mode = strings.ToLower(strings.TrimSpace(t.Mode))
		if t.Mode == "" {
			t.Mode = ModeAuto
		}
		if !slices.Contains(Modes, t.Mode) {
			return nil, fmt.Errorf("%s: %w %q (allowed: %s)", where(i), ErrUnknownMode, t.Mode, strings.Join(Modes, ", "))
		}
		out[i] = t
	}
	return out, nil
}

// defaultName is query with its whitespace collapsed; a longer one than defaultNameRunes runes
// is cut at its last space within them (at defaultNameRunes when that would leave less than
// half) and ends with "…", so a reader sees the name was cut ("…по итогам последнего…", not
// "…последнего заседани").
func defaultName(query string) string {
	q := []rune(strings.Join(strings.Fields(query), " "))
	if len(q) <= defaultNameRunes {
		return string(q)
	}
	cut := defaultNameRunes
	for i := defaultNameRunes; i > defaultNameRunes/2; i-- {
		if q[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimSpace(string(q[:cut])) + "…"
}

// misindented finds, in a topics file YAML refused, the first key of a list entry indented
// otherwise than the entry's first key ("- name: …" then "   query: …"): YAML names the line
// its block began on, which is rarely the line to fix. 0 when no such line.
func misindented(data []byte) (int, string) {
	keyCol, entryLine := -1, 0
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimRight(raw, " \t\r")
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indent := len(line) - len(trimmed)
		switch {
		case strings.HasPrefix(trimmed, "- "):
			rest := strings.TrimLeft(trimmed[2:], " ")
			keyCol, entryLine = indent+len(trimmed)-len(rest), i+1
		case keyCol >= 0 && indent > 0 && indent != keyCol && strings.Contains(trimmed, ":") && !strings.HasPrefix(trimmed, "\"") && indent < keyCol+2:
			key, _, _ := strings.Cut(trimmed, ":")
			return i + 1, fmt.Sprintf("`%s:` is indented %d spaces, but the entry that starts on line %d has its keys at %d", key, indent, entryLine, keyCol)
		case indent == 0:
			keyCol = -1
		}
	}
	return 0, ""
}
