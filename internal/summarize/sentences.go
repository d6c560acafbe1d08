package summarize

import "github.com/asofrag/asof/internal/textnorm"

// Sentences splits text into sentences: textnorm.Sentences, which documents the rules (line
// breaks, terminal punctuation, abbreviations, emoji bullets and doubled words at the joins
// of Telegram items whose line breaks were lost).
func Sentences(text string) []string { return textnorm.Sentences(text) }
