package judge

import (
	"time"

	"github.com/asofrag/asof/internal/fence"
	"github.com/asofrag/asof/internal/llm"
)

// PromptWithNonce exposes prompt to the external tests, so that a document
// can carry the very nonce its prompt uses (with the real, text-derived nonce
// that would need a hash fixed point).
func PromptWithNonce(query string, asOf time.Time, docs []Doc, n string) []llm.Message {
	return prompt(query, asOf, docs, fence.WithNonce(n))
}
