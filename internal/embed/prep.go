package embed

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// prepFor reads the model's tokenizer.json and returns the text preparation both backends need
// to tokenize alike. hugot's pure-Go tokenizer (sugarme/tokenizer) skips the accent stripping of
// BERT's normalizer, which Hugging Face's Rust tokenizer (the ONNX Runtime backend's) does:
// without it "Europäische" and "рублей" (й) become [UNK] on one backend and real word pieces
// on the other, and the vectors disagree (cosine 0.96 on a German sentence). Stripping accents
// here, before either tokenizer, is what the reference normalizer does anyway, so it changes
// nothing for the Rust tokenizer and fixes the pure-Go one.
// tokenizerKind is the type of the vocabulary model in dir's tokenizer.json: WordPiece (BERT,
// E5 English), Unigram (SentencePiece: XLM-R, the multilingual E5), BPE, ...
func tokenizerKind(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return "", fmt.Errorf("embed: %w", err)
	}
	var tk struct {
		Model struct {
			Type string `json:"type"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &tk); err != nil {
		return "", fmt.Errorf("embed: %s: %w", filepath.Join(dir, "tokenizer.json"), err)
	}
	return tk.Model.Type, nil
}

func prepFor(dir string) (func(string) string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	var tk struct {
		Normalizer *struct {
			Type         string `json:"type"`
			Lowercase    bool   `json:"lowercase"`
			StripAccents *bool  `json:"strip_accents"`
		} `json:"normalizer"`
	}
	if err := json.Unmarshal(data, &tk); err != nil {
		return nil, fmt.Errorf("embed: %s: %w", filepath.Join(dir, "tokenizer.json"), err)
	}
	n := tk.Normalizer
	if n == nil || n.Type != "BertNormalizer" {
		return func(s string) string { return s }, nil
	}
	// Hugging Face: strip_accents null follows lowercase.
	strip := n.Lowercase
	if n.StripAccents != nil {
		strip = *n.StripAccents
	}
	if !strip {
		return func(s string) string { return s }, nil
	}
	return StripAccents, nil
}

// StripAccents is BERT's accent stripping: canonical decomposition (NFD), then every
// nonspacing mark removed ("Europäische" → "Europaische", "рублей" → "рублеи").
func StripAccents(s string) string {
	if isASCII(s) {
		return s
	}
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
