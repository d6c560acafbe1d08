package brief

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/llm"
)

// SchemaChatter is a [Chatter] that can hold a reply to a JSON schema. *llm.Client satisfies
// it: with llm.Config.Schemas (which `--llm local` sets) it sends the schema as
// response_format json_schema, which llama.cpp compiles into a grammar. Write and Evolve send
// [BriefSchema] or [EvolutionSchema] to one, with the first call and the repair turn.
type SchemaChatter interface {
	Chatter
	ChatSchema(ctx context.Context, msgs []llm.Message, s llm.Schema) (string, llm.Usage, error)
}

// Bounds of a reply under a schema: a small model that loops writes claims until its token
// budget cuts the reply, which is then not JSON (the local 1.5B did, at 1,024 tokens).
const (
	// MaxNewClaims bounds "new" (and each side of an evolution).
	MaxNewClaims = 6
	// MaxTimelineClaims bounds "timeline".
	MaxTimelineClaims = 10
	// MaxClaimChars bounds a claim's text (characters): a loop inside one string ran the 1.5B
	// to its 1,024-token budget under the schema too (ru-dev-08). It is a block's snippet
	// length (snippetChars): 15 of the 97 claims the 1.5B wrote in session 20's and 21's runs
	// were a block's 800-character snippet copied whole, which a shorter bound would cut
	// mid-sentence; the median claim had 144.
	MaxClaimChars = snippetChars
)

// BriefSchema is the shape of a BriefFormat reply over blocks as of asOf with a newDays
// window, as exact as a grammar can hold it: a "new" claim cites one to MaxCites of the blocks
// published in the window (none there, or newDays 0: "new" is []); a timeline entry's date is
// one of the blocks' publication days and it cites one to MaxCites blocks; at most
// MaxNewClaims and MaxTimelineClaims claims of at most MaxClaimChars characters each; the keys
// in BriefFormat's order and no others. An endpoint whose strict mode refuses maxLength,
// minItems or maxItems gets it only with llm.json_schema, which is off for endpoints. Under it a model cannot cite a block that does not exist, cite none, cite an old block in
// "new", write a date that is no block's, or run on; ParseBrief still checks everything (which
// block a timeline date belongs to, the dates in the texts).
func BriefSchema(blocks []evidence.Block, asOf time.Time, newDays int) llm.Schema {
	from := newFrom(asOf, newDays)
	var all, recent []int
	var days []string
	for _, b := range blocks {
		all = append(all, b.N)
		if newDays > 0 && !b.Doc.PublishedAt.Before(from) {
			recent = append(recent, b.N)
		}
		if d := day(b.Doc.PublishedAt).Format(time.DateOnly); !slices.Contains(days, d) {
			days = append(days, d)
		}
	}
	slices.Sort(all)
	slices.Sort(recent)
	slices.Sort(days)
	return llm.Schema{Name: "brief", Doc: object{
		{"type", "object"},
		{"properties", object{
			{"not_enough", object{{"type", "boolean"}}},
			{"new", claimList(claimSchema(nil, recent), MaxNewClaims, len(recent) > 0)},
			{"timeline", claimList(claimSchema(days, all), MaxTimelineClaims, len(all) > 0)},
		}},
		{"required", []string{"not_enough", "new", "timeline"}},
		{"additionalProperties", false},
	}}
}

// EvolutionSchema is the shape of an EvolutionFormat reply: "then" claims cite only the older
// blocks, "now" claims only the newer ones, one to MaxCites each, at most MaxNewClaims a side.
func EvolutionSchema(then, now []evidence.Block) llm.Schema {
	nums := func(bs []evidence.Block) []int {
		var n []int
		for _, b := range bs {
			n = append(n, b.N)
		}
		slices.Sort(n)
		return n
	}
	t, n := nums(then), nums(now)
	return llm.Schema{Name: "evolution", Doc: object{
		{"type", "object"},
		{"properties", object{
			{"not_enough", object{{"type", "boolean"}}},
			{"then", claimList(claimSchema(nil, t), MaxNewClaims, len(t) > 0)},
			{"now", claimList(claimSchema(nil, n), MaxNewClaims, len(n) > 0)},
		}},
		{"required", []string{"not_enough", "then", "now"}},
		{"additionalProperties", false},
	}}
}

// claimSchema is one claim: a date among days when days is not nil, its text, and one to
// MaxCites cites among nums.
func claimSchema(days []string, nums []int) object {
	props := object{}
	required := []string{}
	if days != nil {
		props = append(props, field{"date", object{{"type", "string"}, {"enum", days}}})
		required = append(required, "date")
	}
	props = append(props,
		field{"text", object{{"type", "string"}, {"maxLength", MaxClaimChars}}},
		field{"cites", object{{"type", "array"}, {"items", object{{"type", "integer"}, {"enum", nums}}}, {"minItems", 1}, {"maxItems", MaxCites}}})
	return object{{"type", "object"}, {"properties", props}, {"required", append(required, "text", "cites")}, {"additionalProperties", false}}
}

// claimList is an array of at most max items; none when possible is false (no block to cite).
func claimList(item object, max int, possible bool) object {
	if !possible {
		return object{{"type", "array"}, {"maxItems", 0}}
	}
	return object{{"type", "array"}, {"items", item}, {"maxItems", max}}
}

// field is one key of an object.
type field struct {
	key string
	val any
}

// object is a JSON object that keeps its keys in order: llama.cpp writes a schema's
// properties in the order the schema lists them.
type object []field

// MarshalJSON writes the fields in order.
func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
