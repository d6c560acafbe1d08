// Package brief writes the summary of an answer with an LLM and checks it (docs/design.md §6).
// It returns a schemas.Brief, the structured form the extractive summarizer (package
// summarize) returns too, so that both are rendered (package render) and scored (package
// sumeval) the same way.
//
// Prompts. BriefPrompt asks for a digest of the numbered context blocks as of a day: the
// claims "new" in the last newDays days and an ascending timeline; EvolutionPrompt asks for
// "then" vs "now" over an older and a newer group of blocks. The documents are untrusted
// data, fenced by package fence's rule: each sits between a "<<<DOC N n=X>>>" and a
// "<<<END n=X>>>" line, X a nonce hashed from the query and the block texts (the same input
// gives the same prompt), and every text passes through fence's neutralizing, so that no
// document can close its fence or open another. The reply is one JSON object (formats in
// BriefFormat and EvolutionFormat).
//
// Checks. ParseBrief and ParseEvolution read a reply and check it against the blocks; every
// failed check is a named problem, and all of them are returned together as a *CheckError
// (wrapping ErrCheck). The checks are listed on ParseBrief and ParseEvolution.
//
// Calls. Write and Evolve send the prompt once; when the reply fails its checks they send
// one repair turn (the bad reply, then a user message naming the problems and restating the
// format); when that fails too, the claims that failed their own checks are left out of the
// repaired reply, else of the first, and what remains is returned if it passes every check,
// its Note saying how many claims were left out and why (an unsupported claim is dropped, not
// the whole summary); otherwise the error wraps both llm.ErrBadResponse and the last
// *CheckError. Errors of the Chatter are returned wrapped, so errors.Is still tells
// llm.ErrServer from llm.ErrRateLimited. Temperature and retries with backoff belong to the
// client and to the caller (a Temporal activity).
//
// Days are UTC calendar days, as in evidence and summarize. Nothing here does I/O other than
// through the Chatter, or reads the clock.
package brief

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/schemas"
)

// Chatter sends a conversation and returns the reply; *llm.Client satisfies it.
type Chatter interface {
	Chat(ctx context.Context, msgs []llm.Message) (string, llm.Usage, error)
}

// MethodPrefix starts the Method of a Brief written by an LLM: "llm:" + model.
const MethodPrefix = "llm:"

// ErrInput is returned (wrapped) for inputs no reply can be checked against: a zero as-of
// time, a negative newDays, a block number that is not positive or is used twice, or a block
// published after the end of the as-of day (a leak from retrieval). It is not retryable.
var ErrInput = errors.New("brief: bad input")

// ErrCheck is wrapped by every *CheckError: the reply was read but is not a usable summary.
var ErrCheck = errors.New("brief: reply failed its checks")

// CheckError lists every problem found in one reply.
type CheckError struct {
	// Problems are one sentence each, e.g. `new #1: cites [9], but there is no document [9]`.
	Problems []string
	// bad are the claims with problems of their own (dropClaims can leave them out); nil when
	// the reply could not be read as the format at all.
	bad []claimRef
}

// claimRef names one claim of a reply: its list ("new", "timeline", "then", "now") and its
// index there.
type claimRef struct {
	list string
	i    int
}

// maxProblems is the most problems an error message lists.
const maxProblems = 20

// Error lists up to 20 problems.
func (e *CheckError) Error() string {
	ps := e.Problems
	more := ""
	if len(ps) > maxProblems {
		more = fmt.Sprintf("; and %d more", len(ps)-maxProblems)
		ps = ps[:maxProblems]
	}
	return ErrCheck.Error() + ": " + strings.Join(ps, "; ") + more
}

// Unwrap returns ErrCheck.
func (e *CheckError) Unwrap() error { return ErrCheck }

// Write asks c (model names the Method) for a digest of blocks as of asOf's day with a
// newDays "new" window, checks it with ParseBrief and returns it with Method "llm:"+model.
// With no blocks it returns a NotEnough brief without calling c. See the package comment for
// the repair turn and the errors.
func Write(ctx context.Context, c Chatter, model, query string, blocks []evidence.Block, asOf time.Time, newDays int) (schemas.Brief, error) {
	if _, err := checkInput(asOf, newDays, blocks); err != nil {
		return schemas.Brief{}, err
	}
	method := MethodPrefix + model
	if len(blocks) == 0 {
		return schemas.Brief{Method: method, AsOf: day(asOf), NewDays: newDays, New: []schemas.Claim{}, Earlier: []schemas.Claim{}, Timeline: []schemas.Claim{}, NotEnough: true}, nil
	}
	script := scriptOf(query)
	parse := func(reply string) (schemas.Brief, error) { return parseBrief(reply, blocks, asOf, newDays, script) }
	return converse(ctx, c, "digest", method, BriefPrompt(query, blocks, asOf, newDays), BriefFormat, BriefSchema(blocks, asOf, newDays), parse)
}

// Evolve asks c for a "then vs now" summary of an older (then) and a newer (now) group of
// blocks as of asOf's day, checks it with ParseEvolution and returns it with Method
// "llm:"+model. With no blocks at all it returns a NotEnough brief without calling c.
func Evolve(ctx context.Context, c Chatter, model, query string, then, now []evidence.Block, asOf time.Time) (schemas.Brief, error) {
	if _, err := checkInput(asOf, 0, then, now); err != nil {
		return schemas.Brief{}, err
	}
	method := MethodPrefix + model
	if len(then)+len(now) == 0 {
		return schemas.Brief{Method: method, AsOf: day(asOf), NotEnough: true}, nil
	}
	script := scriptOf(query)
	parse := func(reply string) (schemas.Brief, error) { return parseEvolution(reply, then, now, asOf, script) }
	return converse(ctx, c, "evolve", method, EvolutionPrompt(query, then, now, asOf), EvolutionFormat, EvolutionSchema(then, now), parse)
}

// converse runs the call and, on a failed check, the one repair turn; a SchemaChatter gets
// schema with both.
func converse(ctx context.Context, c Chatter, what, method string, msgs []llm.Message, format string, schema llm.Schema,
	parse func(string) (schemas.Brief, error)) (schemas.Brief, error) {
	chat := c.Chat
	if sc, ok := c.(SchemaChatter); ok {
		chat = func(ctx context.Context, msgs []llm.Message) (string, llm.Usage, error) {
			return sc.ChatSchema(ctx, msgs, schema)
		}
	}
	reply, _, err := chat(ctx, msgs)
	if err != nil {
		return schemas.Brief{}, fmt.Errorf("brief: %s: %w", what, err)
	}
	b, err := parse(reply)
	var ce *CheckError
	if err == nil {
		b.Method = method
		return b, nil
	} else if !errors.As(err, &ce) {
		return schemas.Brief{}, fmt.Errorf("brief: %s: %w", what, err)
	}
	first, firstErr := reply, err
	msgs = append(slices.Clip(msgs),
		llm.Message{Role: "assistant", Content: reply},
		llm.Message{Role: "user", Content: RepairMessage(ce.Problems, format)})
	reply, _, err = chat(ctx, msgs)
	if err != nil {
		return schemas.Brief{}, fmt.Errorf("brief: %s: repair turn: %w", what, err)
	}
	b, err2 := parse(reply)
	if err2 == nil {
		b.Method = method
		return b, nil
	}
	// The repaired reply, then the first, without the claims that failed their own checks.
	for _, try := range []struct {
		reply string
		err   error
	}{{reply, err2}, {first, firstErr}} {
		if b, ok := withoutBadClaims(try.reply, try.err, parse); ok {
			b.Method = method
			return b, nil
		}
	}
	return schemas.Brief{}, fmt.Errorf("brief: %s: the reply failed its checks again after a repair turn: %w: %w", what, llm.ErrBadResponse, err2)
}

// withoutBadClaims reads reply again without the claims that failed their own checks (err's
// bad claims) and returns the brief when the rest passes every check: an unsupported claim is
// dropped rather than the whole summary. The brief's Note says how many claims were left out
// and the first one's problem. It fails when err names no bad claim (the reply was not the
// format, or the problems are the reply's as a whole) or the rest fails too (no claims left,
// an empty timeline, ...).
func withoutBadClaims(reply string, err error, parse func(string) (schemas.Brief, error)) (schemas.Brief, bool) {
	var ce *CheckError
	if !errors.As(err, &ce) || len(ce.bad) == 0 {
		return schemas.Brief{}, false
	}
	rest, ok := dropClaims(reply, ce.bad)
	if !ok {
		return schemas.Brief{}, false
	}
	b, err := parse(rest)
	if err != nil {
		return schemas.Brief{}, false
	}
	first := ce.Problems[0]
	for _, p := range ce.Problems {
		if strings.HasPrefix(p, ce.bad[0].list+" #"+strconv.Itoa(ce.bad[0].i+1)+":") {
			first = p
			break
		}
	}
	claims := fmt.Sprintf("%d claims of the LLM's summary failed their checks and are", len(ce.bad))
	if len(ce.bad) == 1 {
		claims = "1 claim of the LLM's summary failed its checks and is"
	}
	b.Note = strings.TrimSpace(b.Note + " " + claims + " left out (" + first + ").")
	return b, true
}

// dropClaims returns reply's JSON object without the claims bad names, or false when reply is
// not a JSON object whose lists are arrays.
func dropClaims(reply string, bad []claimRef) (string, bool) {
	s := strings.TrimSpace(reply)
	if m := codeFence.FindStringSubmatch(s); m != nil && !strings.Contains(m[1], "```") {
		s = strings.TrimSpace(m[1])
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) != nil {
		return "", false
	}
	for _, list := range []string{"new", "timeline", "then", "now"} {
		raw, ok := obj[list]
		if !ok {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return "", false
		}
		kept := []json.RawMessage{}
		for i, it := range items {
			if !slices.Contains(bad, claimRef{list, i}) {
				kept = append(kept, it)
			}
		}
		out, err := json.Marshal(kept)
		if err != nil {
			return "", false
		}
		obj[list] = out
	}
	out, err := json.Marshal(obj)
	return string(out), err == nil
}

// RepairMessage is the user message of the repair turn: the problems of the last reply, one
// per line, and the reply format again.
func RepairMessage(problems []string, format string) string {
	var b strings.Builder
	b.WriteString("Your reply cannot be used. Problems:\n")
	for i, p := range problems {
		if i == maxProblems {
			fmt.Fprintf(&b, "- … and %d more\n", len(problems)-maxProblems)
			break
		}
		b.WriteString("- " + p + "\n")
	}
	b.WriteString("\nFix every problem and reply again with ONLY the JSON object, no other text, in this format:\n")
	b.WriteString(format + "\n")
	b.WriteString("The rules of the first message still hold: use only the numbered documents, cite in every claim the one to three of them that state it, and write no date that is not in them.")
	return b.String()
}

// checkInput validates the as-of time, newDays and the block numbers and dates, and returns
// the start of asOf's UTC day.
func checkInput(asOf time.Time, newDays int, groups ...[]evidence.Block) (time.Time, error) {
	if asOf.IsZero() {
		return time.Time{}, fmt.Errorf("%w: as-of time is zero", ErrInput)
	}
	if newDays < 0 {
		return time.Time{}, fmt.Errorf("%w: new days %d is negative", ErrInput, newDays)
	}
	if err := evidence.CheckBlocks(asOf, groups...); err != nil {
		return time.Time{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	d := day(asOf)
	return d, nil
}

// day is the start of t's UTC day.
func day(t time.Time) time.Time { return asofday.Start(t) }

// newFrom is the first instant of the "new" window of newDays days ending with asOf's day
// (newDays 0: the day after, so that nothing is new).
func newFrom(asOf time.Time, newDays int) time.Time { return day(asOf).AddDate(0, 0, 1-newDays) }
