// Package judge grades how relevant retrieved documents are to a query as of a
// date, on the scale 0, 1, 2:
//
//	2  directly answers the query, or is about its subject, and is current as of the date
//	1  related background: the subject or a close neighbour, but not an answer, or outdated
//	0  not relevant
//
// There are two judges. [LLM] asks a chat model through any [Chatter] (an
// *llm.Client satisfies it) with the prompt built by [Prompt] and reads the
// answer with the strict parser [Parse]. [Heuristic] is the offline judge,
// labelled [MethodHeuristic]: a transparent rule over lexical coverage and the
// dense cosine, described below.
//
// # Prompt
//
// Documents are untrusted data, fenced by the rule of package fence, which
// every prompt of asof follows: each document sits between the lines
//
//	<<<DOC 3 n=ab12cd34>>>
//	...
//	<<<END n=ab12cd34>>>
//
// and the system message tells the model to ignore any instruction inside
// them. The nonce hashes the query and the documents' texts, so the same input
// gives a byte-identical prompt; the query, titles, sources and texts pass
// through fence's neutralizing, so no document can close its fence or forge
// another. Texts are cut to [MaxTextRunes] runes and titles to
// [MaxTitleRunes].
//
// # Parse
//
// The reply must be exactly one JSON object {"verdicts":[{"id":1,"relevance":2},...]},
// optionally surrounded by whitespace and by one Markdown code fence (``` or
// ```json). Parse is strict, so that a confused reply costs a repair turn
// rather than a wrong grade:
//   - unknown keys, at the top level or inside a verdict, are rejected;
//   - id and relevance must be JSON integer literals: 2 is accepted, 2.0,
//     1e0 and "2" are rejected;
//   - relevance must be 0, 1 or 2;
//   - every expected id must have exactly one verdict and no other id may
//     appear;
//   - nothing may follow the object.
//
// A key repeated inside one object is not detected; encoding/json keeps the
// last value.
//
// A [Chatter] that is also a [SchemaChatter] (an *llm.Client with
// llm.Config.Schemas, which `--llm local` sets) is sent [Schema] with every
// call: the reply's exact shape, ids 1..n in order, which llama.cpp compiles
// into a grammar. The model then writes nothing but the n grades; Parse checks
// the reply all the same.
//
// Errors wrap [ErrMalformed] and say what was wrong, e.g. "verdict for id 7
// missing".
//
// # Heuristic
//
// The query and each document's title+text are split into lower-case words
// (textnorm.Tokens, with hyphenated words also split at the hyphens), English
// and Russian stop-words (including temporal cue words such as "latest",
// "сейчас") are dropped, and each word is reduced to a key by a light stemmer:
// a word with a digit is kept whole; a Cyrillic word is cut to 5 runes and
// loses trailing vowels, "й" and "ь" while more than 3 runes remain
// ("ставки", "ставка" → "ставк"); any other word loses "'s", a plural, "-ing"
// or "-ed" and a final "e" and is cut to 6 runes ("rates", "rate" → "rat").
// A query key matches a document key when they are equal or when the shorter,
// of at least [MinPrefixRunes] runes, is a prefix of the longer ("europ" ~
// "europe", so "Europe" meets "European"; "bank" does not meet "bankrupt").
// Then, with Q the distinct query keys,
//
//	matched  = |{q ∈ Q : q matches a document key}|
//	coverage = matched / |Q|
//	cosine   = Doc.Cosine, where 0 (or NaN, ±Inf) means unknown
//	agrees   = cosine unknown or cosine ≥ CosineDirect
//
//	grade 2  if coverage ≥ CoverageDirect and agrees,
//	         or coverage ≥ CoverageRelated and cosine ≥ CosineStrong
//	grade 1  else if coverage ≥ CoverageRelated and (matched ≥ 2 or |Q| = 1 or agrees),
//	         or cosine ≥ CosineRelated
//	grade 0  otherwise
//
// with CoverageDirect 0.6, CoverageRelated 0.3, CosineDirect 0.80,
// CosineRelated 0.83 and CosineStrong 0.88 (E5 cosines of a query and a
// passage mostly lie in 0.7..0.95). Words alone give 2 only when the meaning
// agrees too; a high cosine alone gives at most 1; a strong cosine with some
// of the words gives 2, for paraphrases. One shared word of a query of several
// gives 1 only when the meaning agrees too: with a light stemmer one word is
// often a coincidence ("ministry" in the agriculture ministry's grain forecast
// shares the key "minist" with "finance minister", at cosine 0.76), while a
// neighbouring subject ("Ставки по ипотеке" for "ключевая ставка ЦБ", cosine
// 0.81) stays related.
//
// Last, two rules relative to the pool the document was retrieved with
// ([Pool], [PoolOf]; [Heuristic] takes its docs as the pool):
//
//   - a document whose known cosine is more than [CosineSlack] (0.06) below the
//     pool's best known cosine gets 0, unless coverage ≥ CoverageDirect. The
//     best leaves out a document that is the query's own text
//     ([textnorm.IsCopy]: a post pasted as the question finds itself at a
//     cosine near 1, and its follow-ups would all fall below). The absolute
//     thresholds above are judgement on E5-small-v2 scores; multilingual-e5-small
//     scores unrelated posts of one language 0.80–0.90, so with it nearly
//     everything passed them (Russian dev set: keep precision 0.640 at recall
//     0.986); the relative floor holds for any model's scale (0.683 at 0.966).
//   - when some document of the pool shares at least CoverageRelated of the
//     query's terms (the subject is named in the corpus's words), a document in
//     the query's language (textnorm.Lang; not CJK, whose terms are not words)
//     that shares none of them gets 0, whatever its cosine: one language's
//     unrelated posts score high, and the extractive summary could not say a
//     word of it anyway. A document in another language keeps its cosine's
//     grade (Russian dev set: 0.696 at 0.965 → 0.701 at 0.956; the contexts of
//     the Telegram study's 200 queries lose the fresh off-topic posts that
//     their summaries never cited; docs/summaries.md).
//
// A query with no content terms (only stop-words, e.g. "what's new?") has no
// coverage and is graded by cosine only: 1 if cosine ≥ CosineRelated, else 0.
// It never gets 2, which needs lexical evidence. The heuristic ignores dates:
// it cannot tell current from outdated, so the retrieval's as-of filter is
// what keeps future documents out. It is deterministic: the same input gives
// the same verdicts.
package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/asofrag/asof/internal/fence"
	"github.com/asofrag/asof/internal/llm"
)

// Method labels, recorded with verdicts to say which judge produced them.
const (
	// MethodHeuristic labels verdicts from [Heuristic].
	MethodHeuristic = "heuristic"
	// MethodLLM labels verdicts from [LLM].
	MethodLLM = "llm"
)

// Modes say which judge grades a pool (the Ask workflow's judge options).
const (
	// ModeAuto judges with the LLM when the worker has one, else with [Heuristic].
	ModeAuto = "auto"
	// ModeLLM requires an LLM: a worker without one fails the batch as misconfigured.
	ModeLLM = "llm"
	// ModeHeuristic always uses the offline rule ([Heuristic]).
	ModeHeuristic = "heuristic"
	// ModeOff keeps every candidate unjudged.
	ModeOff = "off"
)

// Prompt size limits.
const (
	// MaxTextRunes caps each document's text in the prompt; longer texts are
	// cut and end with "…".
	MaxTextRunes = 1500
	// MaxTitleRunes caps each document's title in the prompt.
	MaxTitleRunes = 300
)

// Sentinel errors; compare them with errors.Is.
var (
	// ErrMalformed reports a reply that [Parse] cannot accept. [LLM] returns
	// it wrapped together with llm.ErrBadResponse when the repair turn fails
	// too.
	ErrMalformed = errors.New("judge: malformed verdicts")
	// ErrInput reports documents that cannot be judged: an id that is not
	// positive or appears twice. It is not retryable.
	ErrInput = errors.New("judge: invalid input")
)

// Doc is one candidate to judge.
type Doc struct {
	// ID is the 1-based id used in the prompt and the verdicts; unique
	// within a call.
	ID int
	// DocID is the corpus document id; the judge does not use it.
	DocID string
	// Title, Text and Source describe the document; Text may be a chunk.
	Title, Text, Source string
	// PublishedAt is the publication time; zero if unknown.
	PublishedAt time.Time
	// Cosine is the dense similarity to the query (E5, typically
	// 0.7..0.95); 0 if unknown.
	Cosine float64
}

// Verdict is the relevance grade, 0, 1 or 2, of the document with id ID.
type Verdict struct {
	ID        int `json:"id"`
	Relevance int `json:"relevance"`
}

// Chatter sends a chat and returns the reply. It is satisfied by
// *llm.Client.
type Chatter interface {
	Chat(ctx context.Context, msgs []llm.Message) (string, llm.Usage, error)
}

// SchemaChatter is a [Chatter] that can hold a reply to a JSON schema. *llm.Client
// satisfies it: with llm.Config.Schemas it sends [Schema] as response_format json_schema,
// which llama.cpp compiles into a grammar, so the model writes only the grades.
type SchemaChatter interface {
	Chatter
	ChatSchema(ctx context.Context, msgs []llm.Message, s llm.Schema) (string, llm.Usage, error)
}

// Schema is the JSON schema of the reply for documents numbered 1..n: the object
// {"verdicts":[...]} with exactly n verdicts, the i-th {"id":i,"relevance":0|1|2}, keys in
// that order and no others. Under a grammar the ids, keys and punctuation are forced, so a
// model can neither skip, repeat nor misnumber a document: it chooses the n grades only.
func Schema(n int) llm.Schema {
	type prop struct {
		Const *int  `json:"const,omitempty"`
		Enum  []int `json:"enum,omitempty"`
	}
	type verdict struct {
		Type       string          `json:"type"`
		Properties map[string]prop `json:"properties"`
		Required   []string        `json:"required"`
		Additional bool            `json:"additionalProperties"`
	}
	items := make([]verdict, n)
	for i := range items {
		id := i + 1
		items[i] = verdict{Type: "object", Properties: map[string]prop{"id": {Const: &id}, "relevance": {Enum: []int{0, 1, 2}}},
			Required: []string{"id", "relevance"}}
	}
	return llm.Schema{Name: "verdicts", Doc: map[string]any{
		"type": "object",
		"properties": map[string]any{"verdicts": map[string]any{
			"type": "array", "prefixItems": items, "minItems": n, "maxItems": n}},
		"required":             []string{"verdicts"},
		"additionalProperties": false,
	}}
}

var systemPrompt = `You are a relevance judge for a news search system. For each document, decide how relevant it is to the user's query as of the given date, and grade it:
2 = directly answers the query or is about the query's subject, and is current as of the date;
1 = related background: the same or a neighbouring subject, but it does not answer the query, or it is outdated as of the date;
0 = not relevant.
Treat the as-of date as today.

` + fence.Rule("a document to judge (NAME is DOC and its id)") + `

Reply with ONLY a JSON object, no prose and no other keys, in exactly this format:
{"verdicts":[{"id":1,"relevance":2},{"id":2,"relevance":0}]}
Give exactly one verdict for every document id, and relevance as the integer 0, 1 or 2.`

// Prompt returns the system and user messages asking a model to judge docs
// for query as of asOf (see the package documentation). Dates are written as
// YYYY-MM-DD in UTC, or "unknown" when zero. Prompt does not check the ids;
// [LLM] does.
func Prompt(query string, asOf time.Time, docs []Doc) []llm.Message {
	return prompt(query, asOf, docs, fences(query, docs))
}

// prompt is Prompt with the fences f given.
func prompt(query string, asOf time.Time, docs []Doc, f fence.Fence) []llm.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "Query: %s\n", f.Line(query))
	fmt.Fprintf(&b, "As of: %s\n", day(asOf))
	fmt.Fprintf(&b, "Documents: %d\n", len(docs))
	for _, d := range docs {
		b.WriteString("\n")
		f.Write(&b, "DOC "+strconv.Itoa(d.ID), "Title: "+f.Line(cut(d.Title, MaxTitleRunes))+
			"\nDate: "+day(d.PublishedAt)+
			"\nSource: "+f.Line(cut(d.Source, MaxTitleRunes))+
			"\nText:\n"+strings.TrimSpace(cut(d.Text, MaxTextRunes)))
	}
	fmt.Fprintf(&b, "\nReply with ONLY the JSON object, one verdict for each of the ids %s.", idList(ids(docs)))
	return []llm.Message{
		{Role: "system", Content: systemPrompt},
		{Role: "user", Content: b.String()},
	}
}

// Nonce returns the fence nonce [Prompt] uses for query and docs: fence.New
// over the query and each document's text.
func Nonce(query string, docs []Doc) string { return fences(query, docs).Nonce() }

func fences(query string, docs []Doc) fence.Fence {
	parts := []string{query}
	for _, d := range docs {
		parts = append(parts, d.Text)
	}
	return fence.New(parts...)
}

// cut returns s cut to max runes, with "…" appended when cut. Invalid UTF-8
// is replaced so the prompt is valid JSON-encodable text.
func cut(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}

func day(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(time.DateOnly)
}

func ids(docs []Doc) []int {
	out := make([]int, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

// idList formats ids as "1, 2, 3".
func idList(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}

// checkIDs reports ids that are not positive or repeat, wrapping [ErrInput].
func checkIDs(ids []int) error {
	seen := make(map[int]bool, len(ids))
	for _, id := range ids {
		if id <= 0 {
			return fmt.Errorf("%w: document id %d is not positive", ErrInput, id)
		}
		if seen[id] {
			return fmt.Errorf("%w: document id %d appears twice", ErrInput, id)
		}
		seen[id] = true
	}
	return nil
}

// Parse reads a model's reply (see the package documentation for the exact
// format and what is rejected) and returns one verdict per id in ids, sorted
// by ID. Errors wrap [ErrMalformed], or [ErrInput] when ids itself repeats an
// id or has one that is not positive.
func Parse(reply string, ids []int) ([]Verdict, error) {
	if err := checkIDs(ids); err != nil {
		return nil, err
	}
	body, err := unfence(reply)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(body))
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil || top == nil {
		return nil, fmt.Errorf("%w: reply is not a JSON object", ErrMalformed)
	}
	if rest := strings.TrimSpace(body[dec.InputOffset():]); rest != "" {
		return nil, fmt.Errorf("%w: text after the JSON object", ErrMalformed)
	}
	if err := onlyKeys(top, "verdicts"); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	raw, ok := top["verdicts"]
	if !ok {
		return nil, fmt.Errorf("%w: key \"verdicts\" missing", ErrMalformed)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || list == nil {
		return nil, fmt.Errorf("%w: \"verdicts\" is not an array", ErrMalformed)
	}
	want := make(map[int]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	got := make(map[int]bool, len(list))
	out := make([]Verdict, 0, len(list))
	for i, raw := range list {
		v, err := parseVerdict(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: verdict %d: %w", ErrMalformed, i+1, err)
		}
		if !want[v.ID] {
			return nil, fmt.Errorf("%w: verdict for unknown id %d", ErrMalformed, v.ID)
		}
		if got[v.ID] {
			return nil, fmt.Errorf("%w: more than one verdict for id %d", ErrMalformed, v.ID)
		}
		got[v.ID] = true
		out = append(out, v)
	}
	var missing []int
	for _, id := range ids {
		if !got[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	switch len(missing) {
	case 0:
	case 1:
		return nil, fmt.Errorf("%w: verdict for id %d missing", ErrMalformed, missing[0])
	default:
		return nil, fmt.Errorf("%w: verdicts for ids %s missing", ErrMalformed, idList(missing))
	}
	slices.SortFunc(out, func(a, b Verdict) int { return a.ID - b.ID })
	return out, nil
}

// unfence trims whitespace and one optional Markdown code fence (``` or
// ```json) around the reply.
func unfence(reply string) (string, error) {
	s := strings.TrimSpace(reply)
	if s == "" {
		return "", fmt.Errorf("%w: empty reply", ErrMalformed)
	}
	if !strings.HasPrefix(s, "```") {
		return s, nil
	}
	first, rest, ok := strings.Cut(s[3:], "\n")
	if lang := strings.TrimSpace(first); !ok || (lang != "" && !strings.EqualFold(lang, "json")) {
		return "", fmt.Errorf("%w: code fence must be ``` or ```json followed by a line break", ErrMalformed)
	}
	body, ok := strings.CutSuffix(strings.TrimSpace(rest), "```")
	if !ok {
		return "", fmt.Errorf("%w: code fence not closed", ErrMalformed)
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return "", fmt.Errorf("%w: empty code fence", ErrMalformed)
	}
	return body, nil
}

// parseVerdict decodes one verdict object, strictly.
func parseVerdict(raw json.RawMessage) (Verdict, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return Verdict{}, errors.New("not a JSON object")
	}
	if err := onlyKeys(obj, "id", "relevance"); err != nil {
		return Verdict{}, err
	}
	rawID, ok := obj["id"]
	if !ok {
		return Verdict{}, errors.New("no \"id\"")
	}
	id, err := integer(rawID)
	if err != nil {
		return Verdict{}, fmt.Errorf("id: %w", err)
	}
	rawRel, ok := obj["relevance"]
	if !ok {
		return Verdict{}, fmt.Errorf("id %d: no \"relevance\"", id)
	}
	rel, err := integer(rawRel)
	if err != nil {
		return Verdict{}, fmt.Errorf("id %d: relevance: %w", id, err)
	}
	if rel < 0 || rel > 2 {
		return Verdict{}, fmt.Errorf("id %d: relevance %d is not 0, 1 or 2", id, rel)
	}
	return Verdict{ID: id, Relevance: rel}, nil
}

// onlyKeys reports the first key of obj, in sorted order, that is not one of
// allowed. Keys are compared exactly, case included.
func onlyKeys(obj map[string]json.RawMessage, allowed ...string) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("unexpected key %s", short(k))
		}
	}
	return nil
}

// integer accepts only a JSON integer literal: an optional minus sign and
// digits, no fraction, exponent or quotes.
func integer(raw json.RawMessage) (int, error) {
	s := string(raw)
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, fmt.Errorf("%s is not an integer", short(s))
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s is out of range", short(s))
	}
	return n, nil
}

// short quotes at most 40 runes of s for an error message.
func short(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return strconv.Quote(s)
}

// LLM judges docs for query as of asOf with one chat call through c. If the
// reply does not parse, it makes one repair call that adds the bad reply and
// a message naming the problem and restating the format. Errors from c are
// returned wrapped, so errors.Is still finds llm.ErrServer and the other
// sentinels; a reply that fails to parse twice gives an error wrapping both
// llm.ErrBadResponse (retryable) and [ErrMalformed]. Ids that are not
// positive or repeat give [ErrInput] without a call. No docs gives nil, nil
// without a call.
func LLM(ctx context.Context, c Chatter, query string, asOf time.Time, docs []Doc) ([]Verdict, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	if err := checkIDs(ids(docs)); err != nil {
		return nil, err
	}
	// The model sees the batch numbered 1..n whatever the callers' ids (pool ranks 17..24 are
	// needlessly hard for a small model to echo); verdicts are mapped back.
	local := make([]Doc, len(docs))
	for i, d := range docs {
		local[i] = d
		local[i].ID = i + 1
	}
	vs, err := llmLocal(ctx, c, query, asOf, local)
	if err != nil {
		return nil, err
	}
	for i := range vs {
		vs[i].ID = docs[vs[i].ID-1].ID
	}
	slices.SortFunc(vs, func(a, b Verdict) int { return a.ID - b.ID })
	return vs, nil
}

// LLMInCalls is [LLM] with at most per documents in one call (0 or less: all of them, as
// LLM): the calls go one after another, in order, and the first error ends it. A small model
// judges one document a call better than eight (BENCHMARKS.md, session 19), and a server that
// caches the shared prompt prefix reads the system prompt and the query once.
func LLMInCalls(ctx context.Context, c Chatter, query string, asOf time.Time, docs []Doc, per int) ([]Verdict, error) {
	if per <= 0 || per >= len(docs) {
		return LLM(ctx, c, query, asOf, docs)
	}
	if err := checkIDs(ids(docs)); err != nil {
		return nil, err
	}
	out := make([]Verdict, 0, len(docs))
	for lo := 0; lo < len(docs); lo += per {
		vs, err := LLM(ctx, c, query, asOf, docs[lo:min(lo+per, len(docs))])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	slices.SortFunc(out, func(a, b Verdict) int { return a.ID - b.ID })
	return out, nil
}

// llmLocal judges docs numbered 1..n: one call, and one repair turn when the reply is unusable.
func llmLocal(ctx context.Context, c Chatter, query string, asOf time.Time, docs []Doc) ([]Verdict, error) {
	want := ids(docs)
	msgs := Prompt(query, asOf, docs)
	chat := c.Chat
	if sc, ok := c.(SchemaChatter); ok {
		s := Schema(len(docs))
		chat = func(ctx context.Context, msgs []llm.Message) (string, llm.Usage, error) {
			return sc.ChatSchema(ctx, msgs, s)
		}
	}
	reply, _, err := chat(ctx, msgs)
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	vs, perr := Parse(reply, want)
	if perr == nil {
		return vs, nil
	}
	msgs = append(msgs,
		llm.Message{Role: "assistant", Content: reply},
		llm.Message{Role: "user", Content: repairPrompt(perr, want)},
	)
	reply, _, err = chat(ctx, msgs)
	if err != nil {
		return nil, fmt.Errorf("judge: repair: %w", err)
	}
	vs, err = Parse(reply, want)
	if err != nil {
		return nil, fmt.Errorf("judge: %w: reply unusable after one repair: %w (first reply: %v)", llm.ErrBadResponse, err, perr)
	}
	return vs, nil
}

// repairPrompt names the parse error and restates the format.
func repairPrompt(perr error, ids []int) string {
	return fmt.Sprintf("Your reply could not be used: %v.\n"+
		"Reply again with ONLY a JSON object, no prose and no other keys, in exactly this format:\n"+
		`{"verdicts":[{"id":1,"relevance":2},{"id":2,"relevance":0}]}`+"\n"+
		"Give exactly one verdict for each of the ids %s, and relevance as the integer 0, 1 or 2.",
		perr, idList(ids))
}
