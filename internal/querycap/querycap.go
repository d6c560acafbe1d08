// Package querycap holds the longest query asof takes. A query rides in workflow histories
// (twice in an Ask: as the query and as the text it searches for, and once more in a digest's
// child) and Temporal ends a workflow whose payload passes 2 MB with no reason a user reads, so
// the CLI and every workflow that takes a query (Ask, Digest, Eval) refuse a longer one first.
package querycap

import (
	"errors"
	"fmt"
)

// MaxBytes is the longest query, in bytes of UTF-8 (about 4,000 Latin or 2,000 Cyrillic
// letters): far longer than a question, far below Temporal's payload limit.
const MaxBytes = 4096

// ErrTooLong matches (errors.Is) the error of a query longer than MaxBytes.
var ErrTooLong = errors.New("query too long")

// tooLong is that error: its text names what was too long and what to do.
type tooLong struct {
	what string
	n    int
}

func (e tooLong) Error() string {
	return fmt.Sprintf("%s is %d bytes; asof takes queries of at most %d bytes (ask a shorter question: long text belongs in the corpus)", e.what, e.n, MaxBytes)
}

func (e tooLong) Is(target error) bool { return target == ErrTooLong }

// Check returns nil for a query of at most MaxBytes, else an ErrTooLong error naming it as
// what ("the query", "topic 3 (Rates)").
func Check(what, query string) error {
	if len(query) > MaxBytes {
		return tooLong{what: what, n: len(query)}
	}
	return nil
}
