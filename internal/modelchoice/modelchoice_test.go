package modelchoice_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/modelchoice"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/schemas"
)

func TestChoose(t *testing.T) {
	local := &schemas.ModelRef{ID: "e5-small-v2", SHA256: "b2a43b66", Dim: 384}
	served := &schemas.ModelRef{ID: "multilingual-e5-small-q4", SHA256: schemas.RemoteModelPrefix + "3f1c", Dim: 384}
	for _, tc := range []struct {
		name string
		in   modelchoice.Input
		want modelchoice.Choice
		why  string
	}{
		{"a new index takes the default", modelchoice.Input{Default: "e5-small-v2-q"},
			modelchoice.Choice{Model: "e5-small-v2-q", Reason: modelchoice.Default}, "the default for new indexes"},
		{"an existing index keeps its model", modelchoice.Input{Default: "e5-small-v2-q", Index: local},
			modelchoice.Choice{Model: "e5-small-v2", Reason: modelchoice.Index}, "the index's model: it was built with it"},
		{"the flag wins over the index", modelchoice.Input{Configured: "e5-small-v2-q", Source: "--embed-model", Default: "e5-small-v2-q", Index: local},
			modelchoice.Choice{Model: "e5-small-v2-q", Reason: modelchoice.Configured, Source: "--embed-model"}, "set by --embed-model"},
		{"the environment wins over the default", modelchoice.Input{Configured: "multilingual-e5-small", Source: "ASOF_EMBED_MODEL", Default: "e5-small-v2-q"},
			modelchoice.Choice{Model: "multilingual-e5-small", Reason: modelchoice.Configured, Source: "ASOF_EMBED_MODEL"}, "set by ASOF_EMBED_MODEL"},
		{"a config file", modelchoice.Input{Configured: "e5-small-v2", Source: "embed.model in asof.yaml", Default: "e5-small-v2-q"},
			modelchoice.Choice{Model: "e5-small-v2", Reason: modelchoice.Configured, Source: "embed.model in asof.yaml"}, "set by embed.model in asof.yaml"},
		{"an index built through a server is not followed by a local backend", modelchoice.Input{Default: "e5-small-v2-q", Index: served},
			modelchoice.Choice{Model: "e5-small-v2-q", Reason: modelchoice.Default}, "the default for new indexes"},
		{"a server backend follows a served index", modelchoice.Input{Default: "e5-small-v2-q", Index: served, Remote: true},
			modelchoice.Choice{Model: "multilingual-e5-small-q4", Reason: modelchoice.Index}, "the index's model: it was built with it"},
		{"a manifest without a model is a new index", modelchoice.Input{Default: "e5-small-v2", Index: &schemas.ModelRef{}},
			modelchoice.Choice{Model: "e5-small-v2", Reason: modelchoice.Default}, "the default for new indexes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := modelchoice.Choose(tc.in)
			if got != tc.want {
				t.Fatalf("Choose = %+v, want %+v", got, tc.want)
			}
			if got.Why() != tc.why {
				t.Fatalf("Why = %q, want %q", got.Why(), tc.why)
			}
		})
	}
}

// TestChooseByCorpus: a new index on a local ONNX Runtime backend takes the English model when
// a sample of at least 50 of its documents is 98% English or more; a configured model, the
// index's model, the pure-Go backend (no English model to switch to) and an embeddings server
// are not moved by the corpus.
func TestChooseByCorpus(t *testing.T) {
	const def, english, gain = "multilingual-e5-small", "e5-small-v2-q", "~1.3x faster than multilingual-e5-small on English"
	local := &schemas.ModelRef{ID: "multilingual-e5-small", SHA256: "9f1c", Dim: 384}
	sample := func(docs, en int64) *modelchoice.Sample { return &modelchoice.Sample{Docs: docs, English: en} }
	picked := func(s *modelchoice.Sample) modelchoice.Choice {
		return modelchoice.Choice{Model: english, Reason: modelchoice.EnglishCorpus, Sample: *s, Gain: gain, Instead: def}
	}
	kept := modelchoice.Choice{Model: def, Reason: modelchoice.Default}
	for _, tc := range []struct {
		name string
		in   modelchoice.Input
		want modelchoice.Choice
	}{
		{"all English", modelchoice.Input{Default: def, English: english, Gain: gain, Corpus: sample(2000, 2000)}, picked(sample(2000, 2000))},
		{"98% English", modelchoice.Input{Default: def, English: english, Gain: gain, Corpus: sample(1000, 980)}, picked(sample(1000, 980))},
		{"97.9% English keeps the default", modelchoice.Input{Default: def, English: english, Gain: gain, Corpus: sample(1000, 979)}, kept},
		{"a mixed corpus keeps the default", modelchoice.Input{Default: def, English: english, Gain: gain, Corpus: sample(127, 73)}, kept},
		{"a Russian corpus keeps the default", modelchoice.Input{Default: def, English: english, Gain: gain, Corpus: sample(1219, 1)}, kept},
		{"50 documents are enough", modelchoice.Input{Default: def, English: english, Gain: gain, Corpus: sample(50, 50)}, picked(sample(50, 50))},
		{"49 are too few", modelchoice.Input{Default: def, English: english, Gain: gain, Corpus: sample(49, 49)}, kept},
		{"no sample", modelchoice.Input{Default: def, English: english, Gain: gain}, kept},
		{"an empty sample", modelchoice.Input{Default: def, English: english, Gain: gain, Corpus: sample(0, 0)}, kept},
		{"the configured model wins", modelchoice.Input{Configured: def, Source: "--embed-model", Default: def, English: english, Corpus: sample(2000, 2000)},
			modelchoice.Choice{Model: def, Reason: modelchoice.Configured, Source: "--embed-model"}},
		{"the environment wins too", modelchoice.Input{Configured: "e5-small-v2", Source: "ASOF_EMBED_MODEL", Default: def, English: english, Corpus: sample(2000, 2000)},
			modelchoice.Choice{Model: "e5-small-v2", Reason: modelchoice.Configured, Source: "ASOF_EMBED_MODEL"}},
		{"an existing index keeps its model", modelchoice.Input{Default: def, English: english, Index: local, Corpus: sample(2000, 2000)},
			modelchoice.Choice{Model: def, Reason: modelchoice.Index}},
		{"pure Go: no English model to switch to", modelchoice.Input{Default: "e5-small-v2", Corpus: sample(2000, 2000)},
			modelchoice.Choice{Model: "e5-small-v2", Reason: modelchoice.Default}},
		{"an embeddings server is not moved", modelchoice.Input{Default: def, English: english, Remote: true, Corpus: sample(2000, 2000)}, kept},
		{"the English model is the default", modelchoice.Input{Default: english, English: english, Corpus: sample(2000, 2000)},
			modelchoice.Choice{Model: english, Reason: modelchoice.Default}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := modelchoice.Choose(tc.in); got != tc.want {
				t.Fatalf("Choose = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSampleOf(t *testing.T) {
	english := "The central bank raised its key rate again on Thursday, and said that inflation has been higher than it expected for most of the year, which would keep rates high."
	french := "La banque centrale a relevé jeudi son taux directeur, une décision attendue par les marchés, et a déclaré que l'inflation restait trop élevée pour le moment selon elle."
	docs := []schemas.Document{
		{Lang: "en", Text: english},
		{Lang: "en-US", Text: english},
		{Lang: "en", Title: "Rates", Text: "Key rate raised."}, // too short to tell: the script decides
		{Lang: "en", Text: french},                             // Latin script, detected as English, is not
		{Lang: "fr", Text: french},
		{Lang: "ru", Text: "Банк России повысил ключевую ставку."},
		{Lang: "", Text: english}, // no language: undetermined
	}
	if got, want := modelchoice.SampleOf(docs), (modelchoice.Sample{Docs: 7, English: 3}); got != want {
		t.Fatalf("SampleOf = %+v, want %+v", got, want)
	}
	if got := modelchoice.SampleOf(nil); got != (modelchoice.Sample{}) {
		t.Fatalf("SampleOf(nil) = %+v", got)
	}
}

func TestEnglishCorpusLines(t *testing.T) {
	c := modelchoice.Choose(modelchoice.Input{Default: "multilingual-e5-small", English: "e5-small-v2-q", Gain: "~1.3x faster than multilingual-e5-small on English",
		Corpus: &modelchoice.Sample{Docs: 2000, English: 1998}})
	if got, want := c.Why(), "the corpus is English: 1998 of 2000 sampled documents"; got != want {
		t.Fatalf("Why = %q, want %q", got, want)
	}
	if got, want := c.Line(models.Known["e5-small-v2-q"].Languages),
		"embedding model: e5-small-v2-q (the corpus is English: 1998 of 2000 sampled documents; English only, ~1.3x faster than multilingual-e5-small on English)"; got != want {
		t.Fatalf("Line =\n%s\nwant\n%s", got, want)
	}
	if got, want := c.Line(nil), "embedding model: e5-small-v2-q (the corpus is English: 1998 of 2000 sampled documents; ~1.3x faster than multilingual-e5-small on English)"; got != want {
		t.Fatalf("Line without languages =\n%s\nwant\n%s", got, want)
	}
	if got, want := c.Hint(), "for a multilingual index pass --embed-model multilingual-e5-small"; got != want {
		t.Fatalf("Hint =\n%s\nwant\n%s", got, want)
	}
	for _, other := range []modelchoice.Choice{{Model: "multilingual-e5-small", Reason: modelchoice.Default}, {Model: "e5-small-v2-q", Reason: modelchoice.Configured, Source: "--embed-model"}} {
		if h := other.Hint(); h != "" {
			t.Fatalf("%v: Hint = %q, want none", other.Reason, h)
		}
	}
}

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     modelchoice.Choice
		langs []string
		want  string
	}{
		{"multilingual default", modelchoice.Choice{Model: "multilingual-e5-small", Reason: modelchoice.Default}, models.Known["multilingual-e5-small"].Languages,
			"embedding model: multilingual-e5-small (the default for new indexes; multilingual)"},
		{"English flag", modelchoice.Choice{Model: "e5-small-v2-q", Reason: modelchoice.Configured, Source: "--embed-model"}, models.Known["e5-small-v2-q"].Languages,
			"embedding model: e5-small-v2-q (set by --embed-model; English only)"},
		{"the index's, languages unknown", modelchoice.Choice{Model: "my-e5", Reason: modelchoice.Index}, nil,
			"embedding model: my-e5 (the index's model: it was built with it)"},
		{"the workers'", modelchoice.Choice{Model: "e5-small-v2", Reason: modelchoice.Workers}, []string{"en", "ru"},
			"embedding model: e5-small-v2 (the model of the workers serving the embedding queue; reads English, Russian)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Line(tc.langs); got != tc.want {
				t.Fatalf("Line =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestBaseAndCount(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "ru", "ru"},
		{"region", "en_US", "en"},
		{"script", "zh-Hant", "zh"},
		{"upper case and spaces", " RU ", "ru"},
		{"empty", "", "und"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := modelchoice.Base(tc.in); got != tc.want {
				t.Fatalf("Base(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	docs := []schemas.Document{{Lang: "ru"}, {Lang: "ru-RU"}, {Lang: "en"}, {Lang: "zh-Hans"}, {Lang: "zh"}, {Lang: "zh"}}
	want := map[string]int64{"ru": 2, "en": 1, "zh": 3}
	if got := modelchoice.Count(docs); !reflect.DeepEqual(got, want) {
		t.Fatalf("Count = %v, want %v", got, want)
	}
	if got := modelchoice.Count(nil); got != nil {
		t.Fatalf("Count(nil) = %v, want nil", got)
	}
	if got, want := modelchoice.Sorted(map[string]int64{"en": 2, "zh": 3, "ko": 2}), []modelchoice.LangCount{{"zh", 3}, {"en", 2}, {"ko", 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Sorted = %v, want %v", got, want)
	}
}

func TestCheckAndWarn(t *testing.T) {
	english := models.Known["e5-small-v2-q"]
	multi := models.Known["multilingual-e5-small"]
	unknown := models.Spec{ID: "my-model"} // an asof-model.yaml without languages
	for _, tc := range []struct {
		name   string
		counts map[string]int64
		model  models.Spec
		unread int64
		langs  []modelchoice.LangCount
		warn   bool
	}{
		{"English corpus, English model", map[string]int64{"en": 100}, english, 0, nil, false},
		{"Russian corpus, English model", map[string]int64{"ru": 90, "en": 10}, english, 90, []modelchoice.LangCount{{"ru", 90}}, true},
		{"29% foreign stays quiet", map[string]int64{"en": 71, "ru": 29}, english, 29, []modelchoice.LangCount{{"ru", 29}}, false},
		{"30% foreign warns", map[string]int64{"en": 70, "ru": 20, "zh": 10}, english, 30, []modelchoice.LangCount{{"ru", 20}, {"zh", 10}}, true},
		{"a lang column's German counts too", map[string]int64{"de": 50, "en": 50}, english, 50, []modelchoice.LangCount{{"de", 50}}, true},
		{"a multilingual model reads them all", map[string]int64{"ru": 50, "zh": 50}, multi, 0, nil, false},
		{"a model of unknown languages gives no warning", map[string]int64{"ru": 100}, unknown, 0, nil, false},
		{"no documents", nil, english, 0, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := modelchoice.Check(tc.counts, tc.model)
			if f.Unread != tc.unread || !reflect.DeepEqual(f.Langs, tc.langs) {
				t.Fatalf("Check = %+v, want %d unread in %v", f, tc.unread, tc.langs)
			}
			if f.Warn() != tc.warn {
				t.Fatalf("Warn = %v, want %v (%d of %d)", f.Warn(), tc.warn, f.Unread, f.Docs)
			}
			if got := modelchoice.Warning(f, tc.model.ID, "multilingual-e5-small", false); (got != "") != tc.warn {
				t.Fatalf("Warning = %q, want one: %v", got, tc.warn)
			}
		})
	}
}

func TestWarning(t *testing.T) {
	f := modelchoice.Check(map[string]int64{"ru": 5400, "en": 174, "zh": 3}, models.Known["e5-small-v2-q"])
	for _, tc := range []struct {
		name      string
		suggest   string
		appending bool
		want      string
	}{
		{"a new index", "multilingual-e5-small", false,
			"warning: 96% of the documents (5403 of 5577) are in languages e5-small-v2-q does not read (Russian 5400, Chinese 3): dense retrieval cannot match them, only their words (BM25) will.\n" +
				"Index with --embed-model multilingual-e5-small (multilingual) instead."},
		{"an append", "multilingual-e5-small-f32", true,
			"warning: 96% of the rows this append adds (5403 of 5577) are in languages e5-small-v2-q does not read (Russian 5400, Chinese 3): dense retrieval cannot match them, only their words (BM25) will.\n" +
				"The index keeps its model; to read them, rebuild it from all its files with --embed-model multilingual-e5-small-f32 (or build a new index with it)."},
		{"nothing to suggest", "", false,
			"warning: 96% of the documents (5403 of 5577) are in languages e5-small-v2-q does not read (Russian 5400, Chinese 3): dense retrieval cannot match them, only their words (BM25) will."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := modelchoice.Warning(f, "e5-small-v2-q", tc.suggest, tc.appending)
			if got != tc.want {
				t.Fatalf("Warning =\n%s\nwant\n%s", got, tc.want)
			}
			if strings.Count(got, "\n") > 1 {
				t.Fatalf("a warning is at most two lines:\n%s", got)
			}
		})
	}
}

func TestReadsAndName(t *testing.T) {
	for _, tc := range []struct {
		name  string
		langs []string
		want  string
	}{
		{"unknown", nil, ""},
		{"any", []string{modelchoice.Any}, "multilingual"},
		{"one", []string{"en"}, "English only"},
		{"several, one unnamed", []string{"ru", "tt"}, "reads Russian, tt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := modelchoice.Reads(tc.langs); got != tc.want {
				t.Fatalf("Reads(%v) = %q, want %q", tc.langs, got, tc.want)
			}
		})
	}
	if modelchoice.Any != models.LanguagesAny {
		t.Fatalf("modelchoice.Any %q is not models.LanguagesAny %q", modelchoice.Any, models.LanguagesAny)
	}
}
