package e5s1

import (
	"encoding/json"
	"fmt"
)

// CheckTokenizer verifies that a Hugging Face tokenizer.json is this model's: a Unigram model
// whose pieces and scores are the file's vocabulary, in the same order (ids are rows of the
// word embeddings, so one shifted piece would embed every text wrongly).
func (m *Model) CheckTokenizer(tokenizerJSON []byte) error {
	var kind struct {
		Model struct {
			Type string `json:"type"`
		} `json:"model"`
	}
	if err := json.Unmarshal(tokenizerJSON, &kind); err != nil {
		return fmt.Errorf("e5s1: tokenizer.json: %w", err)
	}
	if kind.Model.Type != "Unigram" {
		return fmt.Errorf("e5s1: tokenizer.json is a %q model, want Unigram", kind.Model.Type)
	}
	var tk struct {
		Model struct {
			UnkID int                  `json:"unk_id"`
			Vocab [][2]json.RawMessage `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(tokenizerJSON, &tk); err != nil {
		return fmt.Errorf("e5s1: tokenizer.json: %w", err)
	}
	v := tk.Model.Vocab
	switch {
	case len(v) != len(m.Pieces):
		return fmt.Errorf("e5s1: tokenizer.json has %d pieces, the model %d", len(v), len(m.Pieces))
	case tk.Model.UnkID != m.UNK:
		return fmt.Errorf("e5s1: tokenizer.json's unknown token is %d, the model's %d", tk.Model.UnkID, m.UNK)
	}
	for i, e := range v {
		var piece string
		var score float64
		if err := json.Unmarshal(e[0], &piece); err != nil {
			return fmt.Errorf("e5s1: tokenizer.json piece %d: %w", i, err)
		}
		if err := json.Unmarshal(e[1], &score); err != nil {
			return fmt.Errorf("e5s1: tokenizer.json piece %d score: %w", i, err)
		}
		if piece != m.Pieces[i] || float32(score) != m.Scores[i] {
			return fmt.Errorf("e5s1: tokenizer.json piece %d is %q (score %v), the model's %q (score %v)", i, piece, score, m.Pieces[i], m.Scores[i])
		}
	}
	return nil
}
