package sumeval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/fence"
	"github.com/asofrag/asof/internal/llm"
)

// ErrMalformed reports a rubric reply that ParseRubric cannot accept.
var ErrMalformed = errors.New("sumeval: malformed rubric")

// Chatter sends a chat and returns the reply (*llm.Client satisfies it).
type Chatter interface {
	Chat(ctx context.Context, msgs []llm.Message) (string, llm.Usage, error)
}

// RubricKeys are the five scores, in the order the reply gives them.
var RubricKeys = []string{"relevance", "groundedness", "facts_numbers", "dates_timeline", "recency"}

// rubricSystem asks for the study's five criteria (paraphrased, not its prompt).
var rubricSystem = `You grade a summary written from dated news documents, as of an anchor date. Judge ONLY against the CONTEXT documents: no outside knowledge, and not the style. Score each criterion from 1 (very poor) to 5 (excellent):
relevance: the summary is about the query (penalize only clear off-topic text);
groundedness: every substantial statement can be checked in the CONTEXT, nothing invented;
facts_numbers: facts and numbers agree with the CONTEXT;
dates_timeline: dates are stated, correct and in a coherent order;
recency: the summary uses the freshest documents of the CONTEXT (those closest to the anchor date) and says what is new; ignoring them is a strong minus.

` + fence.Rule("the CONTEXT or the SUMMARY to be graded") + `

Reply with ONLY a JSON object, no prose and no other keys, in exactly this format:
` + rubricFormat + `
where each letter is your score for this summary, an integer from 1 to 5.`

// rubricFormat is the reply format with letters for the scores. It held example numbers
// (5, 4, 4, 3, 2) until the local 1.5B gave every one of the study's summaries exactly those:
// a small model copies an example's values.
const rubricFormat = `{"relevance":R,"groundedness":G,"facts_numbers":F,"dates_timeline":D,"recency":N}`

// RubricPromptVersion changes whenever the rubric prompt does, so that grades kept from an
// older prompt are graded again rather than reused (activities.RubricSummary, RubricStudy).
// 2: the reply format holds letters, not example scores.
const RubricPromptVersion = 2

// MaxRubricContextRunes caps the context shown to the rubric judge.
const MaxRubricContextRunes = 24000

// RubricPrompt returns the messages asking a model for the five scores of a's summary (as
// Answer.Text gives it), written for query as of a's anchor from its blocks. Blocks are listed
// as "[n] date=YYYY-MM-DD" and their text (the whole context cut to MaxRubricContextRunes
// runes). The context and the summary are fenced by package fence's rule, as CONTEXT and
// SUMMARY, and every text passes through its neutralizing, so no text can close its fence;
// the nonce hashes the inputs, so the same input gives the same prompt.
func RubricPrompt(query string, a Answer) []llm.Message {
	var ctx strings.Builder
	for _, b := range a.Blocks {
		fmt.Fprintf(&ctx, "[%d] date=%s\n%s\n\n", b.N, b.Date.UTC().Format(time.DateOnly), strings.TrimSpace(b.Text))
	}
	c := []rune(strings.TrimSpace(ctx.String()))
	if len(c) > MaxRubricContextRunes {
		c = append(c[:MaxRubricContextRunes], '…')
	}
	sum := strings.TrimSpace(a.Text())
	f := fence.New(query, string(c), sum)
	var u strings.Builder
	fmt.Fprintf(&u, "QUERY: %s\nANCHOR_DATE: %s\n\n", f.Line(query), a.Anchor.UTC().Format(time.DateOnly))
	f.Write(&u, "CONTEXT", string(c))
	u.WriteString("\n")
	f.Write(&u, "SUMMARY", sum)
	u.WriteString("\nReply with ONLY the JSON object of the five integer scores.")
	return []llm.Message{{Role: "system", Content: rubricSystem}, {Role: "user", Content: u.String()}}
}

// ParseRubric reads a reply strictly: exactly one JSON object (whitespace and one ``` or
// ```json fence around it allowed, nothing after it) with exactly the five keys of
// RubricKeys, each a JSON integer literal from 1 to 5 (4.0, "4" and 6 are rejected). Errors
// wrap ErrMalformed and say what was wrong.
func ParseRubric(reply string) (Rubric, error) {
	s := strings.TrimSpace(reply)
	if strings.HasPrefix(s, "```") {
		first, rest, ok := strings.Cut(s[3:], "\n")
		body, closed := strings.CutSuffix(strings.TrimSpace(rest), "```")
		if lang := strings.TrimSpace(first); !ok || !closed || (lang != "" && !strings.EqualFold(lang, "json")) {
			return Rubric{}, fmt.Errorf("%w: code fence must be ``` or ```json, a line break, the object and ```", ErrMalformed)
		}
		s = strings.TrimSpace(body)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return Rubric{}, fmt.Errorf("%w: reply is not a JSON object", ErrMalformed)
	}
	if strings.TrimSpace(s[dec.InputOffset():]) != "" {
		return Rubric{}, fmt.Errorf("%w: text after the JSON object", ErrMalformed)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(RubricKeys, k) {
			return Rubric{}, fmt.Errorf("%w: unexpected key %q", ErrMalformed, k)
		}
	}
	var scores [5]*float64
	for i, k := range RubricKeys {
		raw, ok := obj[k]
		if !ok {
			return Rubric{}, fmt.Errorf("%w: %q missing", ErrMalformed, k)
		}
		v := string(raw)
		if strings.Trim(v, "0123456789") != "" || v == "" {
			return Rubric{}, fmt.Errorf("%w: %s %.20q is not an integer", ErrMalformed, k, v)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 5 {
			return Rubric{}, fmt.Errorf("%w: %s %s is not 1..5", ErrMalformed, k, v)
		}
		f := float64(n)
		scores[i] = &f
	}
	return Rubric{Relevance: scores[0], Groundedness: scores[1], FactsNumbers: scores[2], DatesTimeline: scores[3], Recency: scores[4]}, nil
}

// JudgeRubric asks c for the five scores of a's summary (RubricPrompt) and parses the reply
// (ParseRubric). A reply that does not parse gets one repair turn: the bad reply and a
// message naming the problem. Errors from c come back wrapped (errors.Is finds llm's
// sentinels); a reply that fails twice gives an error wrapping llm.ErrBadResponse and
// ErrMalformed.
func JudgeRubric(ctx context.Context, c Chatter, query string, a Answer) (Rubric, error) {
	msgs := RubricPrompt(query, a)
	reply, _, err := c.Chat(ctx, msgs)
	if err != nil {
		return Rubric{}, fmt.Errorf("rubric: %w", err)
	}
	r, perr := ParseRubric(reply)
	if perr == nil {
		return r, nil
	}
	msgs = append(msgs, llm.Message{Role: "assistant", Content: reply}, llm.Message{Role: "user", Content: fmt.Sprintf(
		"Your reply could not be used: %v.\nReply again with ONLY a JSON object, no prose and no other keys, in exactly this format:\n"+
			rubricFormat+"\nwhere each letter is your score for this summary, an integer from 1 to 5.", perr)})
	reply, _, err = c.Chat(ctx, msgs)
	if err != nil {
		return Rubric{}, fmt.Errorf("rubric: repair: %w", err)
	}
	if r, err = ParseRubric(reply); err != nil {
		return Rubric{}, fmt.Errorf("rubric: %w: reply unusable after one repair: %w (first reply: %v)", llm.ErrBadResponse, err, perr)
	}
	return r, nil
}
