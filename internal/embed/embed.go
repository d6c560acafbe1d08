// Package embed turns text into vectors. Embedder is the interface the pipeline uses; Hugot
// implements it with knights-analytics/hugot, by default on its pure-Go backend (no cgo), for
// E5-style models: "query: " / "passage: " prefixes, mean pooling over the attention mask, L2
// normalization, fixed-size batches.
package embed

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

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
}

// Hugot is an Embedder on hugot's pure-Go backend. It is safe for concurrent use; calls are
// serialized (the backend already uses every core).
type Hugot struct {
	cfg     Config
	session *hugot.Session
	pipe    *pipelines.FeatureExtractionPipeline
	mu      sync.Mutex
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
	session, err := hugot.NewGoSession()
	if err != nil {
		return nil, fmt.Errorf("embed: start hugot: %w", err)
	}
	pipe, err := hugot.NewPipeline(session, backends.PipelineConfig[*pipelines.FeatureExtractionPipeline]{
		ModelPath:    cfg.Dir,
		OnnxFilename: cfg.ONNXFile,
		Name:         "asof-embed-" + cfg.ID,
		Options:      []backends.PipelineOption[*pipelines.FeatureExtractionPipeline]{pipelines.WithNormalization()},
	})
	if err != nil {
		session.Destroy()
		return nil, fmt.Errorf("embed: load %s from %s: %w", cfg.ONNXFile, cfg.Dir, err)
	}
	return &Hugot{cfg: cfg, session: session, pipe: pipe, dim: cfg.Dim}, nil
}

// Dim implements Embedder.
func (h *Hugot) Dim() int { return h.dim }

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
			batch[i] = prefix + t
		}
		h.mu.Lock()
		res, err := h.pipe.RunPipeline(batch)
		h.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("embed: batch at %d: %w", start, err)
		}
		if len(res.Embeddings) != len(batch) {
			return nil, fmt.Errorf("embed: %d vectors for %d texts", len(res.Embeddings), len(batch))
		}
		for _, v := range res.Embeddings {
			if h.dim == 0 {
				h.dim = len(v)
			}
			if len(v) != h.dim {
				return nil, fmt.Errorf("embed: model %s returned %d values, want %d", h.cfg.ID, len(v), h.dim)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// Close implements Embedder.
func (h *Hugot) Close() error {
	if h.session == nil {
		return errors.New("embed: closed twice")
	}
	err := h.session.Destroy()
	h.session = nil
	return err
}
