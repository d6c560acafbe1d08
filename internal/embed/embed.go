// Package embed turns text into vectors. Embedder is the interface the pipeline uses; Hugot
// implements it with knights-analytics/hugot for E5-style models: "query: " / "passage: "
// prefixes, mean pooling over the attention mask, L2 normalization, fixed-size batches.
//
// Two backends run the same ONNX file: the pure-Go one (always built, no cgo) and ONNX Runtime
// (binaries built with `-tags ORT` after `make setup-ort`; about 25× faster on CPU). Backend
// "auto" picks ONNX Runtime when the binary has it and its library loads, else pure Go.
package embed

import (
	"context"
	"errors"
	"fmt"
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
	// BatchSize is how many texts go through the model at once (default 16).
	BatchSize int
	// Backend is BackendGo, BackendORT or BackendAuto (the default, "").
	Backend string
	// ORTDir is the folder holding libonnxruntime.so (default: DefaultORTDir).
	ORTDir string
	// Threads is ONNX Runtime's intra-op thread count per call (default: every core). At most
	// cores/Threads calls run at once, so threads never outnumber cores: oversubscribing 2 cores
	// collapses throughput (measured: 2 calls × 2 threads 15 passages/s, 1 × 2 21/s, 2 × 1 18/s).
	Threads int
	// Device is "cpu" (default) or "cuda" (ONNX Runtime's CUDA provider; untested here).
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
	dimMu   sync.Mutex
	dim     int
}

// NewHugot loads the model in cfg.Dir.
func NewHugot(cfg Config) (*Hugot, error) {
	if cfg.ONNXFile == "" {
		cfg.ONNXFile = "model.onnx"
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 16
	}
	if cfg.ID == "" {
		cfg.ID = filepath.Base(cfg.Dir)
	}
	if cfg.Threads <= 0 {
		cfg.Threads = runtime.NumCPU()
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
	backend := cfg.Backend
	switch {
	case backend == BackendORT:
		if err := ORTAvailable(cfg.ORTDir); err != nil {
			return nil, err
		}
	case backend == "" || backend == BackendAuto:
		backend = BackendGo
		if ORTAvailable(cfg.ORTDir) == nil {
			backend = BackendORT
		}
	}
	prep, err := prepFor(cfg.Dir)
	if err != nil {
		return nil, err
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
		OnnxFilename: cfg.ONNXFile,
		Name:         name,
		Options:      []backends.PipelineOption[*pipelines.FeatureExtractionPipeline]{pipelines.WithNormalization()},
	})
	if err != nil {
		release()
		return nil, fmt.Errorf("embed: load %s from %s: %w", cfg.ONNXFile, cfg.Dir, err)
	}
	slots := 1
	if backend == BackendORT {
		slots = max(1, runtime.NumCPU()/cfg.Threads)
	}
	return &Hugot{cfg: cfg, backend: backend, session: session, release: release, pipe: pipe, name: name,
		prep: prep, slots: make(chan struct{}, slots), dim: cfg.Dim}, nil
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
func (h *Hugot) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return h.embed(ctx, h.cfg.QueryPrefix, texts)
}

// EmbedPassages implements Embedder.
func (h *Hugot) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return h.embed(ctx, h.cfg.PassagePrefix, texts)
}

func (h *Hugot) embed(ctx context.Context, prefix string, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += h.cfg.BatchSize {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+h.cfg.BatchSize, len(texts))
		batch := make([]string, end-start)
		for i, t := range texts[start:end] {
			batch[i] = h.prep(prefix + t)
		}
		select {
		case h.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		res, err := h.pipe.RunPipeline(batch)
		<-h.slots
		if err != nil {
			return nil, fmt.Errorf("embed: batch at %d: %w", start, err)
		}
		if len(res.Embeddings) != len(batch) {
			return nil, fmt.Errorf("embed: %d vectors for %d texts", len(res.Embeddings), len(batch))
		}
		for _, v := range res.Embeddings {
			if err := h.checkDim(len(v)); err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
	return out, nil
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

// Close implements Embedder.
func (h *Hugot) Close() error {
	if h.session == nil {
		return errors.New("embed: closed twice")
	}
	err := errors.Join(hugot.ClosePipeline[*pipelines.FeatureExtractionPipeline](h.session, h.name), h.release())
	h.session = nil
	return err
}
