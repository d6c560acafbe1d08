package judge

// PromptWithNonce exposes prompt to the external tests, so that a document
// can carry the very nonce its prompt uses (with the real, text-derived nonce
// that would need a hash fixed point).
var PromptWithNonce = prompt
