// Package embed turns text into vectors. Embedder is the interface the pipeline uses; Hugot
// implements it with knights-analytics/hugot for E5-style encoder models: "query: " /
// "passage: " prefixes, each text tokenized once, texts sorted by token length and batched by
// a token budget (little padding), mean or CLS pooling, L2 normalization.
//
// Two backends run the same ONNX file: the pure-Go one (always built, no cgo) and ONNX Runtime
// (binaries built with `-tags ORT` after `make setup-ort`; about 25× faster on CPU). Backend
// "auto" picks ONNX Runtime when the binary has it and its library loads, else pure Go.
package embed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/backends"
	"github.com/knights-analytics/hugot/pipelines"
)

// Embedder embeds queries and passages into L2-normalized vectors of Dim values.
type Embedder interface {
	// EmbedQueries embeds search queries (with the model's query prefix).
	EmbedQueries(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedPassages embeds documents (with the model's passage prefix).
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
	// Dim is the vector length.
	Dim() int
	// ModelID names the model; indexes record it and queries check it.
	ModelID() string
	// Close releases the model.
	Close() error
}

// Config names a model folder and how to use it.
type Config struct {
	// Dir holds tokenizer.json and the ONNX file.
	Dir string
	// ONNXFile is the model file's path relative to Dir (default model.onnx).
	ONNXFile string
	// ID is the model id recorded in indexes.
	ID string
	// Dim is the expected vector length (checked on the first batch; 0 accepts any).
	Dim int
	// QueryPrefix and PassagePrefix are prepended to inputs (E5: "query: ", "passage: ").
	QueryPrefix, PassagePrefix string
	// MaxTokens is the model's input limit, special tokens included (default 512): longer
	// inputs keep their first MaxTokens-1 tokens and the closing special token, as Hugging
	// Face's truncation does.
	MaxTokens int
	// Pooling is "mean" (default: the average over the attention mask) or "cls" (the first
	// token's vector).
	Pooling string
	// BatchSize is the most texts one model call takes (default DefaultBatchSize).
	BatchSize int
	// BatchTokens is the most padded tokens (texts × longest) one model call takes (default
	// DefaultBatchTokens).
	BatchTokens int
	// Backend is BackendGo, BackendORT or BackendAuto (the default, "").
	Backend string
	// ORTDir is the folder holding libonnxruntime.so (default: DefaultORTDir).
	ORTDir string
	// Threads is ONNX Runtime's intra-op thread count per call (default 1). At most
	// cores/Threads calls run at once (cores: GOMAXPROCS, so a container's CPU limit), and one EmbedPassages call spreads its batches over
	// them, so threads never outnumber cores. On 2 cores, 2 calls × 1 thread embed realtimeqa
	// articles ~15% faster than 1 call × 2 threads (BENCHMARKS.md); more threads per call
	// lower one query's latency instead.
	Threads int
	// Device is "cpu" (default) or "cuda": ONNX Runtime's CUDA provider, from the CUDA build
	// of ONNX Runtime that `make setup-ort-gpu` puts in ORTDir with its CUDA libraries.
	Device string
}

// Backends.
const (
	BackendAuto = "auto"
	BackendGo   = "go"
	BackendORT  = "ort"
)

// Errors.
var (
	// ErrORTNotBuilt means ONNX Runtime was asked for but this binary was built without it.
	ErrORTNotBuilt = errors.New("embed: this binary was built without ONNX Runtime (run `make setup-ort`, then build with -tags ORT)")
	// ErrORTDir means the ONNX Runtime shared library could not be found or loaded.
	ErrORTDir = errors.New("embed: ONNX Runtime library unavailable")
	// ErrQuantizedOnGo means a quantized model (int8 operators) was given to the pure-Go
	// backend, which cannot run them (gomlx v0.26 panics inside its matrix kernels).
	ErrQuantizedOnGo = errors.New("embed: the pure-Go backend cannot run quantized (int8) models")
	// ErrUnigramOnGo means a model with a SentencePiece Unigram vocabulary (XLM-R: the
	// multilingual models) was given to the pure-Go backend, whose tokenizer does not split
	// such a vocabulary as the model was trained (it caps pieces at 20 bytes, keeps runs of
	// spaces, and fails on decomposed accents), so its vectors would be wrong.
	ErrUnigramOnGo = errors.New("embed: the pure-Go backend cannot tokenize SentencePiece Unigram (XLM-R) models correctly")
	// ErrClosed means the embedder was closed: a call made after Close.
	ErrClosed = errors.New("embed: the embedder is closed")
)

// DefaultORTDir is the folder where libonnxruntime.so is looked for when Config.ORTDir is
// empty. `make build` sets it (-ldflags -X) to the folder `make setup-ort` filled.
var DefaultORTDir = "/usr/lib"

// ValidBackend checks a backend name.
func ValidBackend(b string) error {
	switch b {
	case "", BackendAuto, BackendGo, BackendORT:
		return nil
	}
	return fmt.Errorf("embed: unknown backend %q (want auto, go or ort)", b)
}

// Hugot is an Embedder on one of hugot's backends. It is safe for concurrent use. On the
// pure-Go backend calls are serialized (the backend already uses every core); on ONNX Runtime
// up to cores/Config.Threads calls run at once.
type Hugot struct {
	cfg     Config
	backend string
	session *hugot.Session
	release func() error
	pipe    *pipelines.FeatureExtractionPipeline
	name    string
	prep    func(string) string // text preparation shared by both backends (see prepFor)
	slots   chan struct{}       // bounds concurrent model calls
	// life is held shared by every embedding call and exclusively by Close, so the model and
	// its tokenizer are never freed under a call still inside ONNX Runtime (a worker stopped by
	// Ctrl-C closes its embedder while an activity may still be embedding).
	life  sync.RWMutex
	cpuOp string     // on CUDA: a quantized operator the GPU does not run (int8 models)
	tokMu sync.Mutex // the pure-Go tokenizer is not known to be safe for concurrent use
	dimMu sync.Mutex
	dim   int
	stats struct{ texts, tokens, padded, calls atomic.Int64 }
}

// Stats counts an embedder's work since it was made.
type Stats struct {
	// Texts embedded, their Tokens (after truncation), the PaddedTokens the model computed
	// (each call's texts × its longest text) and the model Calls.
	Texts, Tokens, PaddedTokens, Calls int64
}

// Stats reports the work done so far.
func (h *Hugot) Stats() Stats {
	return Stats{Texts: h.stats.texts.Load(), Tokens: h.stats.tokens.Load(), PaddedTokens: h.stats.padded.Load(), Calls: h.stats.calls.Load()}
}

// NewHugot loads the model in cfg.Dir.
func NewHugot(cfg Config) (*Hugot, error) {
	if cfg.ONNXFile == "" {
		cfg.ONNXFile = "model.onnx"
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.BatchTokens <= 0 {
		cfg.BatchTokens = DefaultBatchTokens
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 512
	}
	switch cfg.Pooling {
	case "":
		cfg.Pooling = PoolingMean
	case PoolingMean, PoolingCLS:
	default:
		return nil, fmt.Errorf("embed: unknown pooling %q (want mean or cls)", cfg.Pooling)
	}
	if cfg.ID == "" {
		cfg.ID = filepath.Base(cfg.Dir)
	}
	if cfg.Threads <= 0 {
		cfg.Threads = 1
	}
	if cfg.ORTDir == "" {
		cfg.ORTDir = DefaultORTDir
	}
	if err := ValidBackend(cfg.Backend); err != nil {
		return nil, err
	}
	switch {
	case cfg.Device != "" && cfg.Device != "cpu" && cfg.Device != "cuda":
		return nil, fmt.Errorf("embed: unknown device %q (want cpu or cuda)", cfg.Device)
	case cfg.Device == "cuda" && cfg.Backend == BackendGo:
		return nil, fmt.Errorf("embed: device cuda needs the ONNX Runtime backend, not %q", cfg.Backend)
	}
	backend, err := ResolveBackend(cfg.Backend, cfg.ORTDir)
	if err != nil {
		return nil, err
	}
	prep, err := prepFor(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if backend == BackendGo {
		if kind, err := tokenizerKind(cfg.Dir); err != nil {
			return nil, err
		} else if kind == "Unigram" {
			return nil, fmt.Errorf("%w: %s; build with ONNX Runtime (`make setup-ort`, then `make build`), whose tokenizer is Hugging Face's own, or embed through a server (--embed-backend openai)",
				ErrUnigramOnGo, cfg.ID)
		}
		if op, err := quantizedOp(filepath.Join(cfg.Dir, cfg.ONNXFile)); err != nil {
			return nil, err
		} else if op != "" {
			return nil, fmt.Errorf("%w: %s uses %s; build with ONNX Runtime (`make setup-ort`, then `make build`) or, for English, embed with the float model (--embed-model e5-small-v2)",
				ErrQuantizedOnGo, cfg.ID, op)
		}
	}
	var (
		session *hugot.Session
		release func() error
	)
	switch backend {
	case BackendORT:
		session, release, err = acquireORT(cfg)
	default:
		if cfg.Device == "cuda" {
			return nil, fmt.Errorf("embed: device cuda needs the ONNX Runtime backend: %w", ORTAvailable(cfg.ORTDir))
		}
		session, err = hugot.NewGoSession()
		release = func() error { return session.Destroy() }
	}
	if err != nil {
		return nil, fmt.Errorf("embed: start hugot (%s backend): %w", backend, err)
	}
	name := fmt.Sprintf("asof-embed-%s-%d", cfg.ID, pipelineSeq.Add(1))
	pipe, err := hugot.NewPipeline(session, backends.PipelineConfig[*pipelines.FeatureExtractionPipeline]{
		ModelPath:    cfg.Dir,
		OnnxFilename: filepath.Base(cfg.ONNXFile), // hugot finds it by name anywhere under Dir
		Name:         name,
	})
	if err != nil {
		release()
		if cfg.Device == "cuda" {
			return nil, fmt.Errorf("embed: load %s from %s on the GPU: %w (device cuda needs an NVIDIA GPU and a driver for CUDA 12.8, r570 or newer: does `nvidia-smi` see one?)", cfg.ONNXFile, cfg.Dir, err)
		}
		return nil, fmt.Errorf("embed: load %s from %s: %w", cfg.ONNXFile, cfg.Dir, err)
	}
	// asof tokenizes and truncates itself (once per text, keeping the closing special token):
	// hugot's own cut would drop it.
	pipe.Model.Tokenizer.MaxAllowedTokens = 0
	// Encoders are right-padded. hugot left-pads input_ids when config.json names an
	// eos_token_id (XLM-RoBERTa models such as multilingual-e5 and bge-m3 do) while the
	// attention mask stays right-aligned, which garbles every padded text of a batch.
	pipe.Model.EosTokenIDs = nil
	var cpuOp string
	if cfg.Device == "cuda" {
		// ONNX Runtime's CUDA provider runs no dynamic int8 quantization: those operators fall
		// back to the CPU, and an int8 model embedded 31 passages/s on an H200 against 637 for
		// its fp32 twin (session 16). Describe says so.
		cpuOp, _ = quantizedOp(filepath.Join(cfg.Dir, cfg.ONNXFile))
	}
	slots := 1
	if backend == BackendORT {
		// On a GPU too: on an H200 (session 16) 16 calls at once embedded 637 passages/s and one
		// call at a time 572 (BENCHMARKS.md); the slots are not what keeps asof below Python.
		slots = callSlots(cfg.Threads)
	}
	return &Hugot{cfg: cfg, backend: backend, session: session, release: release, pipe: pipe, name: name,
		prep: prep, slots: make(chan struct{}, slots), dim: cfg.Dim, cpuOp: cpuOp}, nil
}

// callSlots is how many ONNX Runtime calls of threads threads each run at once: the CPUs Go
// may use (GOMAXPROCS, which follows a container's CPU limit since Go 1.25) over threads, at
// least 1. NumCPU would count the node's cores: 64 calls on a 64-core node under a 2-CPU limit.
func callSlots(threads int) int {
	return max(1, runtime.GOMAXPROCS(0)/max(threads, 1))
}

// quantizedOps are ONNX operators of quantized models (dynamic and static int8).
var quantizedOps = []string{"DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul", "ConvInteger", "QLinearConv", "DequantizeLinear"}

// quantizedOp names the first quantized operator the ONNX file at path uses, or "". Operator
// types are plain strings in the file, so a byte search finds them without an ONNX parser.
func quantizedOp(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("embed: %w", err)
	}
	for _, op := range quantizedOps {
		if bytes.Contains(data, []byte(op)) {
			return op, nil
		}
	}
	return "", nil
}

// ResolveBackend says which backend a configured one runs on: BackendORT or BackendGo (auto:
// ONNX Runtime when this binary has it and the library in ortDir loads), or why "ort" cannot.
func ResolveBackend(backend, ortDir string) (string, error) {
	if ortDir == "" {
		ortDir = DefaultORTDir
	}
	switch backend {
	case BackendORT:
		if err := ORTAvailable(ortDir); err != nil {
			return "", err
		}
		return BackendORT, nil
	case "", BackendAuto:
		if ORTAvailable(ortDir) == nil {
			return BackendORT, nil
		}
		return BackendGo, nil
	case BackendGo:
		return BackendGo, nil
	}
	return "", ValidBackend(backend)
}

// pipelineSeq names pipelines uniquely: hugot refuses two pipelines of one name on a session,
// and ONNX Runtime sessions are shared process-wide.
var pipelineSeq atomic.Int64

// Backend reports the backend in use: BackendGo or BackendORT.
func (h *Hugot) Backend() string { return h.backend }

// Describe is a one-line description for logs, e.g. "e5-small-v2 on ONNX Runtime (1 thread per call)".
func (h *Hugot) Describe() string {
	if h.backend == BackendORT {
		dev := ""
		if h.cfg.Device == "cuda" {
			dev = ", CUDA"
			if h.cpuOp != "" {
				dev += "; its int8 operators (" + h.cpuOp + ") run on the CPU: embed with an fp32 model on a GPU"
			}
		}
		return fmt.Sprintf("%s on ONNX Runtime (%d call(s) at once × %d thread(s)%s, %s)", h.cfg.ID, cap(h.slots), h.cfg.Threads, dev, h.cfg.ORTDir)
	}
	return h.cfg.ID + " on the pure-Go backend"
}

// Dim implements Embedder.
func (h *Hugot) Dim() int {
	h.dimMu.Lock()
	defer h.dimMu.Unlock()
	return h.dim
}

// ModelID implements Embedder.
func (h *Hugot) ModelID() string { return h.cfg.ID }

// EmbedQueries implements Embedder.
//
// Each query is a model call of its own, so its vector never depends on the queries embedded
// with it: padding changes the arithmetic, and an int8 model quantizes activations per call.
// `asof eval` embeds questions in batches and `asof ask` one at a time; with per-call batches
// their rankings could differ on near ties (seen: neighbour swaps in the top 50).
func (h *Hugot) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return h.embed(ctx, h.cfg.QueryPrefix, texts, 1)
}

// EmbedPassages implements Embedder.
func (h *Hugot) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return h.embed(ctx, h.cfg.PassagePrefix, texts, h.cfg.BatchSize)
}

// embed embeds texts with prefix, at most perCall texts per model call.
func (h *Hugot) embed(ctx context.Context, prefix string, texts []string, perCall int) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	h.life.RLock()
	defer h.life.RUnlock()
	if h.session == nil {
		return nil, ErrClosed
	}
	prepped := make([]string, len(texts))
	for i, t := range texts {
		prepped[i] = h.prep(prefix + t)
	}
	// Tokenize every text once, outside the model slots, so it overlaps another call's
	// inference; the lengths decide the batches.
	toks := h.tokenize(prepped)
	lengths := make([]int, len(toks))
	for i, t := range toks {
		lengths[i] = len(t.TokenIDs)
	}
	out := make([][]float32, len(texts))
	// The batches run on the model's slots at once (each a single-threaded ONNX Runtime
	// call by default); the first failure stops the rest.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for _, call := range PlanBatches(lengths, perCall, h.cfg.BatchTokens) {
		acquired := false
		select {
		case h.slots <- struct{}{}:
			acquired = true
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			if acquired { // both were ready and select took the slot
				<-h.slots
			}
			break
		}
		wg.Add(1)
		go func(call []int) {
			defer wg.Done()
			defer func() { <-h.slots }()
			in := make([]backends.TokenizedInput, len(call))
			for j, i := range call {
				in[j] = toks[i]
			}
			vecs, err := h.run(in)
			if err != nil {
				cancel(fmt.Errorf("embed: %d texts of up to %d tokens: %w", len(in), lengths[call[0]], err))
				return
			}
			h.stats.calls.Add(1)
			h.stats.padded.Add(int64(len(call) * lengths[call[0]]))
			for j, i := range call {
				h.stats.texts.Add(1)
				h.stats.tokens.Add(int64(lengths[i]))
				if err := h.checkDim(len(vecs[j])); err != nil {
					cancel(err)
					return
				}
				out[i] = vecs[j]
			}
		}(call)
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return out, nil
}

// tokenize encodes texts with the model's tokenizer, cutting each to MaxTokens.
func (h *Hugot) tokenize(texts []string) []backends.TokenizedInput {
	b := backends.NewBatch(len(texts))
	if h.backend == BackendGo {
		h.tokMu.Lock()
		defer h.tokMu.Unlock()
	}
	backends.TokenizeInputs(b, h.pipe.Model.Tokenizer, texts)
	for i := range b.Input {
		b.Input[i] = truncate(b.Input[i], h.cfg.MaxTokens)
	}
	return b.Input
}

// truncate keeps the first max-1 tokens and the last one (the closing special token), which
// is what Hugging Face's tokenizers give for a single text cut to max.
func truncate(t backends.TokenizedInput, max int) backends.TokenizedInput {
	n := len(t.TokenIDs)
	if max < 2 || n <= max {
		return t
	}
	cut := func(s []uint32) []uint32 {
		if len(s) != n {
			return s
		}
		return append(s[:max-1:max-1], s[n-1])
	}
	t.TokenIDs, t.TypeIDs, t.AttentionMask, t.SpecialTokensMask = cut(t.TokenIDs), cut(t.TypeIDs), cut(t.AttentionMask), cut(t.SpecialTokensMask)
	if len(t.Tokens) == n {
		t.Tokens = append(t.Tokens[:max-1:max-1], t.Tokens[n-1])
	}
	if len(t.Offsets) == n {
		t.Offsets = append(t.Offsets[:max-1:max-1], t.Offsets[n-1])
	}
	t.MaxAttentionIndex = 0
	for j, m := range t.AttentionMask {
		if m != 0 {
			t.MaxAttentionIndex = j
		}
	}
	return t
}

// run sends one batch of tokenized texts through the model and pools and normalizes its
// token vectors.
func (h *Hugot) run(in []backends.TokenizedInput) (vecs [][]float32, err error) {
	b := backends.NewBatch(len(in))
	b.Input = in
	for _, t := range in {
		b.MaxSequenceLength = max(b.MaxSequenceLength, len(t.TokenIDs))
	}
	defer func() { err = errors.Join(err, b.Destroy()) }()
	if err := backends.CreateInputTensors(b, h.pipe.Model, h.pipe.Runtime); err != nil {
		return nil, err
	}
	if err := h.pipe.Forward(b); err != nil {
		return nil, err
	}
	if h.pipe.OutputIndex >= len(b.OutputValues) {
		return nil, fmt.Errorf("model gave %d outputs", len(b.OutputValues))
	}
	switch out := b.OutputValues[h.pipe.OutputIndex].(type) {
	case [][]float32: // the model pools itself
		if len(out) < len(in) {
			return nil, fmt.Errorf("%d vectors for %d texts", len(out), len(in))
		}
		vecs = out[:len(in)]
	case [][][]float32:
		if len(out) < len(in) {
			return nil, fmt.Errorf("%d outputs for %d texts", len(out), len(in))
		}
		vecs = make([][]float32, len(in))
		for i := range in {
			if vecs[i] = pool(out[i], in[i].AttentionMask, h.cfg.Pooling); vecs[i] == nil {
				return nil, fmt.Errorf("text %d: no token vectors", i)
			}
		}
	default:
		return nil, fmt.Errorf("model output of type %T", out)
	}
	for i, v := range vecs {
		if why := normalize(v); why != "" {
			return nil, fmt.Errorf("text %d: the model gave %s vector", i, why)
		}
	}
	return vecs, nil
}

// Poolings (Config.Pooling).
const (
	PoolingMean = "mean"
	PoolingCLS  = "cls"
)

// pool turns one text's token vectors (padding already removed) into one vector: their mean
// over the attention mask, or the first token's.
func pool(tokens [][]float32, mask []uint32, how string) []float32 {
	if len(tokens) == 0 {
		return nil
	}
	if how == PoolingCLS {
		return append([]float32(nil), tokens[0]...)
	}
	v := make([]float32, len(tokens[0]))
	n := 0
	for j, tok := range tokens {
		if j < len(mask) && mask[j] == 0 {
			continue
		}
		for k, x := range tok {
			v[k] += x
		}
		n++
	}
	if n == 0 {
		return nil
	}
	for k := range v {
		v[k] /= float32(n)
	}
	return v
}

func (h *Hugot) checkDim(n int) error {
	h.dimMu.Lock()
	defer h.dimMu.Unlock()
	if h.dim == 0 {
		h.dim = n
	}
	if n != h.dim {
		return fmt.Errorf("embed: model %s returned %d values, want %d", h.cfg.ID, n, h.dim)
	}
	return nil
}

// Close implements Embedder. It waits for the calls in flight to finish, then frees the
// model; later calls fail with ErrClosed.
func (h *Hugot) Close() error {
	h.life.Lock() // waits for the calls in flight
	defer h.life.Unlock()
	if h.session == nil {
		return errors.New("embed: closed twice")
	}
	err := errors.Join(hugot.ClosePipeline[*pipelines.FeatureExtractionPipeline](h.session, h.name), h.release())
	h.session = nil
	return err
}
