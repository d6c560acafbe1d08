package apispec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/layout"
)

// Bounds of a listing of stored answers or evaluations.
const (
	// DefaultListLimit is how many a listing returns when no limit is given.
	DefaultListLimit = 20
	// MaxListLimit is the most a listing returns: each entry reads a stored file.
	MaxListLimit = 1000
)

// ListRequest is a listing of stored answers or evaluations, newest first: the query of GET
// /v1/answers and GET /v1/evals (?index=&limit=), and what the flags of `asof answers list`
// and `asof evals list` fill in.
type ListRequest struct {
	// Index keeps those of one index ("" for all).
	Index string
	// Limit is how many: "" for DefaultListLimit, else 1..MaxListLimit.
	Limit string
}

// List is a checked ListRequest.
type List struct {
	Index string
	Limit int
}

// Check validates r, naming the fields with label; every error is an *InvalidError.
func (r ListRequest) Check(label Label) (List, error) {
	l := List{Index: r.Index, Limit: DefaultListLimit}
	if r.Index != "" {
		if err := layout.ValidateIndexName(r.Index); err != nil {
			return l, &InvalidError{Err: fmt.Errorf("%s: %w", label("index"), err)}
		}
	}
	if r.Limit != "" {
		n, err := strconv.Atoi(r.Limit)
		if err != nil || n < 1 || n > MaxListLimit {
			return l, &InvalidError{Err: fmt.Errorf("%s %q: give a number from 1 to %d", label("limit"), r.Limit, MaxListLimit)}
		}
		l.Limit = n
	}
	return l, nil
}

// Format checks the format a stored answer or evaluation is asked for ("" is JSON); an
// unknown one is an *InvalidError naming the formats.
func Format(label, s string) (string, error) {
	if s == "" {
		return catalog.FormatJSON, nil
	}
	if !slices.Contains(catalog.Formats, s) {
		return "", &InvalidError{Err: fmt.Errorf("%s %q: use %s", label, s, strings.Join(catalog.Formats, ", "))}
	}
	return s, nil
}

// CheckRunID checks a run id given to fetch its answer (layout.ValidateRunID) as an
// *InvalidError.
func CheckRunID(id string) error {
	if err := layout.ValidateRunID(id); err != nil {
		return &InvalidError{Err: err}
	}
	return nil
}

// CheckEvalID checks an eval id given to fetch its results (layout.ValidateEvalID) as an
// *InvalidError.
func CheckEvalID(id string) error {
	if err := layout.ValidateEvalID(id); err != nil {
		return &InvalidError{Err: err}
	}
	return nil
}
