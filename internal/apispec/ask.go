// Package apispec holds the requests of asof's HTTP API (asof serve) and their checks, shared
// with the command line: an ask request is checked by the same code whether it came from
// `asof ask` flags or from POST /v1/ask, so a day, a mode or a k is refused alike in both. It
// also builds the API's OpenAPI document from the Go types (OpenAPI). It imports no Temporal:
// package httpapi turns a checked request into a workflow input.
package apispec

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/textnorm"
)

// ModeAuto is the mode that reads dates and cues from the query (workflows.ModeAuto).
const ModeAuto = answer.Auto

// Label names a request field for a person: the command line says "--as-of" where the API
// says "as_of". It is given the field's JSON name.
type Label func(field string) string

// JSONLabel names a field by its JSON name, as the HTTP API's errors do.
func JSONLabel(field string) string { return field }

// FlagLabel names a field by its command-line flag: "as_of" is "--as-of", "sources" is
// "--source" (a repeatable flag), "query" is "the query".
func FlagLabel(field string) string {
	switch field {
	case "query":
		return "the query"
	case "sources":
		return "--source"
	}
	return "--" + strings.ReplaceAll(field, "_", "-")
}

// ParseDay reads a day a person gave (YYYY-MM-DD, YYYY/MM/DD or RFC 3339, as UTC) under
// label. It is the one parser of days for the command line and the API: an unreadable day,
// and a year outside asofday.MinYear..MaxYear (0001-01-01 among them, Go's zero time, which
// would otherwise mean "not given" and quietly become today), are refused with the label and
// the range.
func ParseDay(label, s string) (time.Time, error) {
	accepted := fmt.Sprintf("give a day from %d-01-01 to %d-12-31 as YYYY-MM-DD", asofday.MinYear, asofday.MaxYear)
	t, err := corpus.ParseDate(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not a date: %s", label, s, accepted)
	}
	if asofday.Check(t) != nil {
		return time.Time{}, fmt.Errorf("%s %q is out of range: %s", label, s, accepted)
	}
	return t, nil
}

// AskRequest is a question to answer as of a day: the body of POST /v1/ask, and what the
// flags of `asof ask` fill in. Numbers left out (null) take retrieve.DefaultOptions.
type AskRequest struct {
	// Query is the question (required).
	Query string `json:"query"`
	// Index is the index to ask (required).
	Index string `json:"index"`
	// AsOf is the anchor day, YYYY-MM-DD, 1000-01-01 to 9999-12-31: nothing published after
	// its end (UTC) can reach the answer. Give it, or Today.
	AsOf string `json:"as_of,omitempty"`
	// Today asks as of the current day (UTC), said in the answer's as_of; only without AsOf.
	Today bool `json:"today,omitempty"`
	// Mode is auto (the default: read from the query), recency, decay, window, evolution,
	// hybrid, dense or bm25.
	Mode string `json:"mode,omitempty"`
	// Year keeps only documents of that year (window); From and To (YYYY-MM-DD) bound the
	// publication day instead.
	Year int    `json:"year,omitempty"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// K is how many results to return; EvolutionK how many per group in evolution mode.
	K          *int `json:"k,omitempty"`
	EvolutionK *int `json:"evolution_k,omitempty"`
	// WindowDays is how far back recency and decay look (0: unbounded).
	WindowDays *int `json:"window_days,omitempty"`
	// TopN is the candidates per branch before fusion.
	TopN *int `json:"top_n,omitempty"`
	// MaxPerSource caps the results of one source (0: no cap).
	MaxPerSource *int `json:"max_per_source,omitempty"`
	// Sources keeps only these sources.
	Sources []string `json:"sources,omitempty"`
	// ClusterGap merges results of one source published at most this far apart, as a Go
	// duration ("30m"); empty or "0s": off.
	ClusterGap string `json:"cluster_gap,omitempty"`
	// NoInt8 scans the shards' float32 vectors, not their int8 codes.
	NoInt8 bool `json:"no_int8,omitempty"`
	// Judge is auto, llm, heuristic or off (default: auto).
	Judge string `json:"judge,omitempty"`
	// Summarizer is auto or extractive (default: auto).
	Summarizer string `json:"summarizer,omitempty"`
}

// Ask is a checked AskRequest: what the Ask workflow's input is made of.
type Ask struct {
	Index, Query string
	// Mode is ModeAuto or one of retrieve.Modes.
	Mode string
	// AsOf is the anchor day; zero exactly when Today is set.
	AsOf  time.Time
	Today bool
	// From and To bound the publication day (zero: unbounded).
	From, To time.Time
	Options  retrieve.Options
	// Judge and Summarizer are as asked ("" for the default).
	Judge, Summarizer string
}

// InvalidError is the error of a request's Check: the request is wrong, not the server (the
// API answers 400 with its text).
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }

// Unwrap is the error e reports.
func (e *InvalidError) Unwrap() error { return e.Err }

// IsInvalid reports whether err is, or wraps, an *InvalidError.
func IsInvalid(err error) bool {
	var inv *InvalidError
	return errors.As(err, &inv)
}

// Check validates r and turns it into an Ask, naming the fields in its errors with label.
// Every error is an *InvalidError.
func (r AskRequest) Check(label Label) (Ask, error) {
	a, err := r.check(label)
	if err != nil {
		return Ask{}, &InvalidError{Err: err}
	}
	return a, nil
}

func (r AskRequest) check(label Label) (Ask, error) {
	// The query is one line of text: its control characters (escape sequences a terminal would
	// run when a stored answer is listed) and bidi overrides go, tabs and line breaks become
	// spaces, by the rule documents' fields are loaded with.
	a := Ask{Index: r.Index, Query: textnorm.Field(r.Query), Mode: r.Mode, Judge: r.Judge, Summarizer: r.Summarizer}
	if a.Query == "" {
		return a, fmt.Errorf("%s is empty: ask a question", label("query"))
	}
	if err := layout.ValidateIndexName(r.Index); err != nil {
		return a, fmt.Errorf("%s: %w", label("index"), err)
	}
	if a.Mode == "" {
		a.Mode = ModeAuto
	}
	if a.Mode != ModeAuto && !slices.Contains(retrieve.Modes, retrieve.Mode(a.Mode)) {
		return a, fmt.Errorf("%s %q: use %s or one of %v", label("mode"), a.Mode, ModeAuto, retrieve.Modes)
	}
	var err error
	switch {
	case r.AsOf != "" && r.Today:
		return a, fmt.Errorf("%s and %s: give one", label("as_of"), label("today"))
	case r.AsOf != "":
		if a.AsOf, err = ParseDay(label("as_of"), r.AsOf); err != nil {
			return a, err
		}
	case r.Today:
		a.Today = true
	default:
		return a, fmt.Errorf("%s is required (YYYY-MM-DD); set %s to ask as of the current day", label("as_of"), label("today"))
	}
	if r.From != "" {
		if a.From, err = ParseDay(label("from"), r.From); err != nil {
			return a, err
		}
	}
	if r.To != "" {
		if a.To, err = ParseDay(label("to"), r.To); err != nil {
			return a, err
		}
	}
	if r.Year != 0 {
		if r.From != "" || r.To != "" {
			return a, fmt.Errorf("%s and %s/%s: give one or the other", label("year"), label("from"), label("to"))
		}
		if r.Year < asofday.MinYear || r.Year > asofday.MaxYear {
			return a, fmt.Errorf("%s %d is not a year", label("year"), r.Year)
		}
		a.From = time.Date(r.Year, 1, 1, 0, 0, 0, 0, time.UTC)
		a.To = time.Date(r.Year, 12, 31, 0, 0, 0, 0, time.UTC)
		if a.Mode == ModeAuto {
			a.Mode = string(retrieve.Window)
		}
	}
	o := retrieve.DefaultOptions()
	for _, f := range []struct {
		v   *int
		dst *int
	}{{r.K, &o.K}, {r.EvolutionK, &o.EvolutionK}, {r.WindowDays, &o.WindowDays}, {r.TopN, &o.TopNEach}, {r.MaxPerSource, &o.MaxPerSource}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if r.MaxPerSource != nil && *r.MaxPerSource < 0 {
		return a, fmt.Errorf("%s %d must not be negative", label("max_per_source"), *r.MaxPerSource)
	}
	o.Sources = r.Sources
	for _, s := range r.Sources {
		if strings.TrimSpace(s) == "" {
			return a, fmt.Errorf("%s: an empty source", label("sources"))
		}
	}
	if r.ClusterGap != "" {
		if o.ClusterGap, err = time.ParseDuration(r.ClusterGap); err != nil {
			return a, fmt.Errorf("%s %q: a duration such as 30m", label("cluster_gap"), r.ClusterGap)
		}
	}
	if r.NoInt8 {
		o.Int8Rerank = -1
	}
	check := o
	check.Mode, check.From, check.To = retrieve.Mode(a.Mode), a.From, a.To
	if a.Mode == ModeAuto || (check.Mode == retrieve.Window && a.From.IsZero() && a.To.IsZero()) {
		check.Mode = retrieve.Recency // the query's words decide (window: its dates)
	}
	if err := check.Validate(); err != nil {
		return a, err
	}
	if a.Summarizer != "" && a.Summarizer != "auto" && a.Summarizer != "extractive" {
		return a, fmt.Errorf("%s %q: use auto or extractive", label("summarizer"), a.Summarizer)
	}
	a.Options = o
	return a, nil
}
