// Package modelchoice decides which embedding model a command embeds with and says why, and
// checks the languages of a corpus against those the model reads, so that an English-only
// model does not index a mostly Russian or Chinese corpus without a word.
//
// The rules, in order: a model the user configured (--embed-model, embed.model,
// ASOF_EMBED_MODEL) is used; else a command on an existing index embeds with the model the
// index's manifest records (an index keeps its model); else, for a new index whose corpus a
// sample shows to be English, the English model the caller names (EnglishCorpus); else the
// catalogue default for the backend. It knows nothing of model files, corpora or Temporal:
// the caller reads the manifest, samples the corpus and passes the counts in.
package modelchoice

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// Reason says where a command's embedding model comes from.
type Reason int

// The reasons, as Choose decides them.
const (
	// Default: no model is configured and there is no index to follow: the catalogue default
	// for new indexes.
	Default Reason = iota
	// Configured: --embed-model, embed.model in a config file, or ASOF_EMBED_MODEL.
	Configured
	// Index: the model the index's live manifest records.
	Index
	// Workers: the command does not embed itself (an external Temporal cluster); the workers
	// that serve the embedding queue embed with their own model.
	Workers
	// EnglishCorpus: no model is configured, the index is new, and a sample of its corpus is
	// English (EnglishPercent or more of at least MinSample documents): the English model,
	// faster than the multilingual default on English text.
	EnglishCorpus
)

// The English rule's thresholds: a sample of at least MinSample documents of which
// EnglishPercent or more are English. 98% lets an English archive hold a few foreign posts
// (they lose their dense match, as they would in any English-only index) and keeps a corpus
// with a real share of other languages on the multilingual default; below 50 documents a
// sample says too little, and a build that small costs seconds either way.
const (
	EnglishPercent = 98
	MinSample      = 50
)

// Sample is what a look at a new index's corpus found: Docs documents sampled (those the build
// would index), English of them in English.
type Sample struct {
	Docs, English int64
}

// SampleOf counts sampled documents: Docs all of them, English those Count counts as English
// (the lang column's primary code, else the language detected from title and text) whose
// title and text also read as English words (textnorm.LooksEnglish): detection counts every
// Latin-script text as English, and a French or German corpus must not get an English-only
// model for it.
func SampleOf(docs []schemas.Document) Sample {
	s := Sample{Docs: int64(len(docs))}
	for _, d := range docs {
		if Base(d.Lang) == "en" && textnorm.LooksEnglish(d.Title+" "+d.Text) {
			s.English++
		}
	}
	return s
}

// IsEnglish reports whether the sample shows an English corpus: at least MinSample documents,
// EnglishPercent or more of them English.
func (s Sample) IsEnglish() bool {
	return s.Docs >= MinSample && s.English*100 >= s.Docs*EnglishPercent
}

// Input is what the choice is made from.
type Input struct {
	// Configured is embed.model as configured ("" when no flag, file or environment set it);
	// Source names where it was set, e.g. "--embed-model" or "ASOF_EMBED_MODEL".
	Configured string
	Source     string
	// Index is the model the index's live manifest records; nil when the command names no
	// index or the index has no manifest yet (a new index).
	Index *schemas.ModelRef
	// Remote is set when the backend is an embeddings server (--embed-backend openai).
	Remote bool
	// Default is the catalogue default for the backend that will run the model.
	Default string
	// English is the model a new index of an English corpus embeds with instead of Default
	// ("" where there is none: the pure-Go backend, whose default is English already, or an
	// embeddings server, whose models are its own); Gain says what it buys, e.g. "~1.3x faster
	// than multilingual-e5-small on English".
	English, Gain string
	// Corpus is the sample of a new index's corpus; nil when the command builds no new index
	// or its corpus could not be read here.
	Corpus *Sample
}

// Choice is the model a command embeds with, and why.
type Choice struct {
	Model  string
	Reason Reason
	// Source is Input.Source for Configured.
	Source string
	// Sample and Gain are Input.Corpus and Input.Gain for EnglishCorpus; Instead is the default
	// it replaces.
	Sample  Sample
	Gain    string
	Instead string
}

// Choose picks the model: the configured one; else the index's, unless the index was built
// through an embeddings server and this command embeds locally (the index's model name is
// then a server's, which no local backend runs: the query-time model check names the settings
// to pass); else, for a local backend with an English model and an English sample of the
// corpus, the English model; else the default.
func Choose(in Input) Choice {
	if in.Configured != "" {
		return Choice{Model: in.Configured, Reason: Configured, Source: in.Source}
	}
	if in.Index != nil && in.Index.ID != "" {
		served := strings.HasPrefix(in.Index.SHA256, schemas.RemoteModelPrefix)
		if served == in.Remote {
			return Choice{Model: in.Index.ID, Reason: Index}
		}
	}
	if in.English != "" && in.English != in.Default && !in.Remote && in.Corpus != nil && in.Corpus.IsEnglish() {
		return Choice{Model: in.English, Reason: EnglishCorpus, Sample: *in.Corpus, Gain: in.Gain, Instead: in.Default}
	}
	return Choice{Model: in.Default, Reason: Default}
}

// Why says in words why the model was chosen.
func (c Choice) Why() string {
	switch c.Reason {
	case Configured:
		if c.Source == "" {
			return "configured"
		}
		return "set by " + c.Source
	case Index:
		return "the index's model: it was built with it"
	case Workers:
		return "the model of the workers serving the embedding queue"
	case EnglishCorpus:
		return fmt.Sprintf("the corpus is English: %d of %d sampled documents", c.Sample.English, c.Sample.Docs)
	}
	return "the default for new indexes"
}

// Line is what a command prints about its model: "embedding model: ID (why; what it reads)",
// and for EnglishCorpus what the English model buys: "(why; English only, ~1.3x faster than
// multilingual-e5-small on English)". langs are the model's languages as models.Spec lists
// them (nil when unknown).
func (c Choice) Line(langs []string) string {
	why := c.Why()
	r := Reads(langs)
	if c.Reason == EnglishCorpus && c.Gain != "" {
		r = strings.TrimPrefix(r+", "+c.Gain, ", ")
	}
	if r != "" {
		why += "; " + r
	}
	return fmt.Sprintf("embedding model: %s (%s)", c.Model, why)
}

// Hint is the line that follows Line for a model chosen by the corpus: how to build the index
// with the default instead; "" for the other reasons. (A long-running asof dev, serve or
// worker embeds each index's queries with the index's own model, so it needs no flag.)
func (c Choice) Hint() string {
	if c.Reason != EnglishCorpus || c.Instead == "" {
		return ""
	}
	return fmt.Sprintf("for a multilingual index pass --embed-model %s", c.Instead)
}

// Any in a model's languages marks a multilingual model (models.LanguagesAny).
const Any = "*"

// Reads says which languages a model reads: "multilingual", "English only", "reads English,
// Russian", or "" when they are unknown.
func Reads(langs []string) string {
	switch {
	case len(langs) == 0:
		return ""
	case slices.Contains(langs, Any):
		return "multilingual"
	case len(langs) == 1:
		return Name(langs[0]) + " only"
	}
	names := make([]string, len(langs))
	for i, l := range langs {
		names[i] = Name(l)
	}
	return "reads " + strings.Join(names, ", ")
}

// names are the languages asof detects (textnorm.Lang) and those a lang column most often
// holds; other codes are shown as they are.
var names = map[string]string{
	"en": "English", "ru": "Russian", "zh": "Chinese", "ja": "Japanese", "ko": "Korean",
	"uk": "Ukrainian", "be": "Belarusian", "kk": "Kazakh", "de": "German", "fr": "French",
	"es": "Spanish", "it": "Italian", "pt": "Portuguese", "pl": "Polish", "tr": "Turkish",
	"ar": "Arabic", "fa": "Persian", "he": "Hebrew", "hi": "Hindi", "vi": "Vietnamese",
	"und": "undetermined",
}

// Name is a language code's English name ("ru" → "Russian"), or the code itself when it is
// not one of the common ones.
func Name(code string) string {
	if n, ok := names[code]; ok {
		return n
	}
	return code
}

// Base reduces a language tag to its lower-case primary code, the key of the counts: "ru",
// "zh-Hant" → "zh", "en_US" → "en". An empty tag is "und" (undetermined).
func Base(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, "-_"); i >= 0 {
		lang = lang[:i]
	}
	if lang == "" {
		return "und"
	}
	return lang
}

// Count counts documents per language (Base of each document's Lang, which corpus.Loader
// fills from the input's lang column or detects with textnorm.Lang); nil for no documents.
func Count(docs []schemas.Document) map[string]int64 {
	if len(docs) == 0 {
		return nil
	}
	out := map[string]int64{}
	for _, d := range docs {
		out[Base(d.Lang)]++
	}
	return out
}

// LangCount is one language and its documents.
type LangCount struct {
	Lang string
	Docs int64
}

// Sorted lists counts by documents, most first (ties by code).
func Sorted(counts map[string]int64) []LangCount {
	out := make([]LangCount, 0, len(counts))
	for l, n := range counts {
		out = append(out, LangCount{l, n})
	}
	slices.SortFunc(out, func(a, b LangCount) int {
		if c := cmp.Compare(b.Docs, a.Docs); c != 0 {
			return c
		}
		return cmp.Compare(a.Lang, b.Lang)
	})
	return out
}

// Reader is what a model says of a language: whether it reads it, and whether that is known
// at all (models.Spec.Understands).
type Reader interface {
	Understands(lang string) (ok, known bool)
}

// Fit is how a model's languages cover a set of documents.
type Fit struct {
	// Docs counts the documents; Unread those in languages the model is known not to read.
	Docs, Unread int64
	// Langs are the languages the model does not read, most documents first.
	Langs []LangCount
}

// Check measures which of the counted documents a model does not read. A language the model
// says nothing about (Understands' known is false) counts as read: no warning without
// knowledge.
func Check(counts map[string]int64, m Reader) Fit {
	var f Fit
	for _, lc := range Sorted(counts) {
		f.Docs += lc.Docs
		if ok, known := m.Understands(lc.Lang); known && !ok {
			f.Unread += lc.Docs
			f.Langs = append(f.Langs, lc)
		}
	}
	return f
}

// WarnPercent is the share of documents (in percent) in languages the model does not read
// from which Warning speaks: at 30% nearly a third of the corpus is found by its words (BM25) alone, its vectors
// near noise (on Russian the English E5 finds the answer sentence in the top 10 for 43% of
// ru-xquad-r's questions, the multilingual one for 96%: docs/embedding.md), and the fused
// ranking carries that noise for every query. A few foreign documents in an English corpus
// stay below it.
const WarnPercent = 30

// Warn reports whether the share reaches WarnPercent.
func (f Fit) Warn() bool { return f.Docs > 0 && f.Unread*100 >= f.Docs*WarnPercent }

// Warning is the warning for a model that does not read a large share of the documents it is
// to embed, naming the share, the languages and the model to use instead (suggest); "" when f
// does not reach WarnPercent. For an append (the documents are rows added to an index that
// keeps its model) it says how to get there: rebuild the index with that model.
func Warning(f Fit, model, suggest string, appending bool) string {
	if !f.Warn() {
		return ""
	}
	langs := make([]string, len(f.Langs))
	for i, lc := range f.Langs {
		langs[i] = fmt.Sprintf("%s %d", Name(lc.Lang), lc.Docs)
	}
	what := "documents"
	if appending {
		what = "rows this append adds"
	}
	msg := fmt.Sprintf("warning: %d%% of the %s (%d of %d) are in languages %s does not read (%s): dense retrieval cannot match them, only their words (BM25) will.",
		f.Unread*100/f.Docs, what, f.Unread, f.Docs, model, strings.Join(langs, ", "))
	if suggest == "" || suggest == model {
		return msg
	}
	if appending {
		return msg + fmt.Sprintf("\nThe index keeps its model; to read them, rebuild it from all its files with --embed-model %s (or build a new index with it).", suggest)
	}
	return msg + fmt.Sprintf("\nIndex with --embed-model %s (multilingual) instead.", suggest)
}
