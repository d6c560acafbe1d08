// Package expand asks an LLM for other ways to search for a question: rephrasings
// (multi-query) and a hypothetical answer passage (HyDE, embedded as a passage). Each is
// searched as of the same anchor and the rankings are fused by reciprocal rank
// (answer.Rank with Query.Variants): the generated text only searches. It is never shown,
// never put in the context and never cited, and the as-of mask applies to every search, so
// nothing the model imagines can bring a document published after the anchor.
//
// The reply must be strict JSON {"queries":["…"],"passage":"…"}; one repair turn names
// what was wrong. Nothing here reads the clock or does I/O beyond the Chatter.
package expand

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/asofrag/asof/internal/llm"
)

// Limits of what a reply may hold.
const (
	// MaxQueries is the most rephrasings one question gets.
	MaxQueries = 5
	// MaxQueryRunes and MaxPassageRunes bound each generated text.
	MaxQueryRunes   = 300
	MaxPassageRunes = 2000
)

// ErrReply marks a reply that is not the JSON asked for.
var ErrReply = errors.New("expand: unusable reply")

// Request is what to generate for one question.
type Request struct {
	Query string
	AsOf  time.Time
	// Queries is how many rephrasings to ask for (0..MaxQueries); HyDE asks for a passage.
	Queries int
	HyDE    bool
}

// Validate reports a request that cannot be asked.
func (r Request) Validate() error {
	switch {
	case strings.TrimSpace(r.Query) == "":
		return errors.New("expand: empty query")
	case r.Queries < 0 || r.Queries > MaxQueries:
		return fmt.Errorf("expand: %d rephrasings (0..%d)", r.Queries, MaxQueries)
	case r.Queries == 0 && !r.HyDE:
		return errors.New("expand: nothing to generate (no rephrasings, no passage)")
	case r.AsOf.IsZero():
		return errors.New("expand: no anchor date")
	}
	return nil
}

// Expansion is a usable reply.
type Expansion struct {
	Queries []string `json:"queries"`
	Passage string   `json:"passage"`
}

// Chatter sends a chat and returns the reply; *llm.Client satisfies it.
type Chatter interface {
	Chat(ctx context.Context, msgs []llm.Message) (string, llm.Usage, error)
}

const system = `You help a news search engine find articles. Given a user's question and the date it is asked on, write other ways to search for it and, when asked, a short passage that a news article answering it might contain. Use only what the question says and general knowledge from before that date; never say what happened after it. Reply with ONLY a JSON object, no prose.`

// Prompt is the chat for r.
func Prompt(r Request) []llm.Message {
	var want []string
	format := map[string]any{}
	if r.Queries > 0 {
		want = append(want, fmt.Sprintf("%d different search queries for the same question (other words, names spelled out, no dates unless the question has them)", r.Queries))
		format["queries"] = []string{"…"}
	}
	if r.HyDE {
		want = append(want, "a passage of 2 to 4 sentences, written as a news article published on or before the date would answer it")
		format["passage"] = "…"
	}
	example, _ := json.Marshal(format)
	return []llm.Message{
		{Role: "system", Content: system},
		{Role: "user", Content: fmt.Sprintf("Date: %s\nQuestion: %s\n\nWrite %s.\nReply in exactly this format: %s",
			r.AsOf.UTC().Format(time.DateOnly), strings.TrimSpace(r.Query), strings.Join(want, ", and "), example)},
	}
}

// Parse reads a reply strictly: one JSON object (a ```json fence is tolerated) with exactly the
// keys asked for; rephrasings non-empty, distinct, different from the question, at most
// MaxQueryRunes each, at most r.Queries of them (fewer is accepted, none is not); the passage
// non-empty and at most MaxPassageRunes.
func Parse(reply string, r Request) (Expansion, error) {
	s := strings.TrimSpace(reply)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "```json"), "```")
	s = strings.TrimSpace(strings.TrimSuffix(s, "```"))
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	var raw struct {
		Queries *[]string `json:"queries"`
		Passage *string   `json:"passage"`
	}
	if err := dec.Decode(&raw); err != nil {
		return Expansion{}, fmt.Errorf("%w: not the JSON object asked for: %v", ErrReply, err)
	}
	if dec.More() {
		return Expansion{}, fmt.Errorf("%w: text after the JSON object", ErrReply)
	}
	var e Expansion
	if r.Queries > 0 {
		if raw.Queries == nil || len(*raw.Queries) == 0 {
			return e, fmt.Errorf(`%w: no "queries"`, ErrReply)
		}
		if len(*raw.Queries) > r.Queries {
			return e, fmt.Errorf("%w: %d queries, at most %d asked", ErrReply, len(*raw.Queries), r.Queries)
		}
		seen := map[string]bool{strings.ToLower(strings.TrimSpace(r.Query)): true}
		for i, q := range *raw.Queries {
			q = strings.TrimSpace(q)
			key := strings.ToLower(q)
			switch {
			case q == "":
				return e, fmt.Errorf("%w: query %d is empty", ErrReply, i+1)
			case utf8.RuneCountInString(q) > MaxQueryRunes:
				return e, fmt.Errorf("%w: query %d is longer than %d characters", ErrReply, i+1, MaxQueryRunes)
			case seen[key]:
				continue // a repeat of the question or of another query adds nothing
			}
			seen[key] = true
			e.Queries = append(e.Queries, q)
		}
	} else if raw.Queries != nil {
		return e, fmt.Errorf(`%w: "queries" was not asked for`, ErrReply)
	}
	if r.HyDE {
		if raw.Passage == nil || strings.TrimSpace(*raw.Passage) == "" {
			return e, fmt.Errorf(`%w: no "passage"`, ErrReply)
		}
		e.Passage = strings.TrimSpace(*raw.Passage)
		if utf8.RuneCountInString(e.Passage) > MaxPassageRunes {
			return e, fmt.Errorf("%w: the passage is longer than %d characters", ErrReply, MaxPassageRunes)
		}
	} else if raw.Passage != nil {
		return e, fmt.Errorf(`%w: "passage" was not asked for`, ErrReply)
	}
	return e, nil
}

// Generate asks c for r's expansion: one call, and one repair turn naming the problem when the
// reply is unusable. Errors from c are returned wrapped (llm's kinds stay visible to errors.Is).
func Generate(ctx context.Context, c Chatter, r Request) (Expansion, error) {
	if err := r.Validate(); err != nil {
		return Expansion{}, err
	}
	msgs := Prompt(r)
	reply, _, err := c.Chat(ctx, msgs)
	if err != nil {
		return Expansion{}, fmt.Errorf("expand: %w", err)
	}
	e, perr := Parse(reply, r)
	if perr == nil {
		return e, nil
	}
	msgs = append(msgs, llm.Message{Role: "assistant", Content: reply},
		llm.Message{Role: "user", Content: fmt.Sprintf("Your reply could not be used: %v. Reply again with ONLY the JSON object in the format asked for.", perr)})
	reply, _, err = c.Chat(ctx, msgs)
	if err != nil {
		return Expansion{}, fmt.Errorf("expand: repair: %w", err)
	}
	e, err = Parse(reply, r)
	if err != nil {
		return Expansion{}, fmt.Errorf("expand: %w: unusable after one repair: %w (first reply: %v)", llm.ErrBadResponse, err, perr)
	}
	return e, nil
}
