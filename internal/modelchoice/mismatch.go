package modelchoice

import (
	"errors"
	"fmt"
	"strings"

	"github.com/asofrag/asof/schemas"
)

// ErrMismatch matches (errors.Is) vectors of two models about to be mixed: an index built
// with one model, queried or extended with vectors of another.
var ErrMismatch = errors.New("embedding models differ")

// mismatchError is what a person reads about a mismatch; it matches ErrMismatch.
type mismatchError struct{ msg string }

func (e mismatchError) Error() string        { return e.msg }
func (e mismatchError) Is(target error) bool { return target == ErrMismatch }

// Mismatch refuses to mix vectors of two models: index built with built, queried or extended
// with vectors of used. It is nil when both are the same weights (id and sha256); otherwise
// the error names both and says how to fix it (the flag to pass, or the server to point at).
func Mismatch(index string, built, used schemas.ModelRef) error {
	if built.ID == used.ID && built.SHA256 == used.SHA256 {
		return nil
	}
	msg := fmt.Sprintf("index %s was built with model %s, this worker embeds with %s: pass --embed-model %s (or rebuild the index with --embed-model %s)",
		index, built.ID, used.ID, built.ID, used.ID)
	if strings.HasPrefix(built.SHA256, schemas.RemoteModelPrefix) && !strings.HasPrefix(used.SHA256, schemas.RemoteModelPrefix) {
		msg = fmt.Sprintf("index %s was built with model %s from an embeddings server, this worker embeds with %s: pass --embed-backend openai --embed-model %s and that server's embed.base_url",
			index, built.ID, used.ID, built.ID)
	}
	if built.ID == used.ID {
		msg = fmt.Sprintf("index %s was built with model %s (sha256 %.12s…), this worker's %s is other weights or another recipe (sha256 %.12s…): use the model folder the index was built with, or rebuild the index",
			index, built.ID, built.SHA256, used.ID, used.SHA256)
	}
	return mismatchError{msg}
}

// PlannedMismatch refuses to embed a build planned for model planned with the model used by
// the worker serving queue. It is nil when they are the same weights, or when planned is
// empty (builds planned before the model was recorded).
func PlannedMismatch(planned, used schemas.ModelRef, queue string) error {
	if planned.ID == "" || (planned.ID == used.ID && planned.SHA256 == used.SHA256) {
		return nil
	}
	return mismatchError{fmt.Sprintf("this build was planned for model %s (sha256 %.12s…) and this %s worker embeds with %s (sha256 %.12s…): every worker must run the same --embed-model",
		planned.ID, planned.SHA256, queue, used.ID, used.SHA256)}
}
