package rerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/asofrag/asof/internal/embed"
)

// DefaultLocalBatch is how many (query, document) pairs one model call of a [Local] takes.
const DefaultLocalBatch = 8

// ErrModelFolder reports a model folder that does not hold a cross-encoder hugot can run.
var ErrModelFolder = errors.New("rerank: not a cross-encoder model folder")

// LocalConfig configures a [Local] reranker.
type LocalConfig struct {
	// Dir is the model folder: an ONNX cross-encoder (one relevance logit per pair: output
	// [batch, 1], as ms-marco-MiniLM and bge-reranker exports have) with its tokenizer.json,
	// special_tokens_map.json and config.json, as downloaded from a hub.
	Dir string
	// ONNXFile is the model file's name under Dir (default: model.onnx, else the only .onnx
	// file in Dir or Dir/onnx).
	ONNXFile string
	// BatchSize is the most pairs one model call takes (default 8).
	BatchSize int
	// Backend, ORTDir, Threads and Device choose hugot's backend as the embedder's do (on
	// ONNX Runtime the process shares one environment, so they must match the embedder's).
	Backend, ORTDir string
	Threads         int
	Device          string
}

// Local is a [Reranker] that runs a cross-encoder model folder in process through hugot's
// cross-encoder pipeline: each document is read with the query as one pair
// ([CLS] query [SEP] document [SEP], or RoBERTa's </s></s>), and its score is the sigmoid of
// the model's logit. Calls are serialized. Close releases the model.
type Local struct {
	cfg     LocalConfig
	backend string
	session *hugot.Session
	release func() error
	pipe    *pipelines.CrossEncoderPipeline
	name    string
	mu      sync.Mutex
}

var localSeq atomic.Int64

// NewLocal loads the cross-encoder in cfg.Dir. A folder that holds no ONNX file, or a model
// whose output is not one logit per pair (an embedding model, say), is refused with
// [ErrModelFolder].
func NewLocal(cfg LocalConfig) (*Local, error) {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultLocalBatch
	}
	if st, err := os.Stat(cfg.Dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a folder", ErrModelFolder, cfg.Dir)
	}
	onnx, err := onnxFile(cfg.Dir, cfg.ONNXFile)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, "tokenizer.json")); err != nil {
		return nil, fmt.Errorf("%w: %s has no tokenizer.json", ErrModelFolder, cfg.Dir)
	}
	// hugot joins query and document with the model's separator token, which it reads from
	// special_tokens_map.json (sep_token) only.
	if _, err := os.Stat(filepath.Join(cfg.Dir, "special_tokens_map.json")); err != nil {
		return nil, fmt.Errorf("%w: %s has no special_tokens_map.json (the hub's copy names sep_token, which joins query and document)", ErrModelFolder, cfg.Dir)
	}
	cfg.ONNXFile = onnx
	session, backend, release, err := embed.Session(embed.Config{Backend: cfg.Backend, ORTDir: cfg.ORTDir, Threads: cfg.Threads, Device: cfg.Device})
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	name := fmt.Sprintf("asof-rerank-%d", localSeq.Add(1))
	pipe, err := hugot.NewPipeline(session, hugot.CrossEncoderConfig{
		ModelPath:    cfg.Dir,
		OnnxFilename: filepath.Base(onnx),
		Name:         name,
		Options:      []hugot.CrossEncoderOption{pipelines.WithBatchSize(cfg.BatchSize), pipelines.WithSortResults(false)},
	})
	if err != nil {
		release()
		return nil, fmt.Errorf("%w: load %s from %s: %w", ErrModelFolder, onnx, cfg.Dir, err)
	}
	return &Local{cfg: cfg, backend: backend, session: session, release: release, pipe: pipe, name: name}, nil
}

// onnxFile picks the model file: name when given, else model.onnx, else the only .onnx file
// in dir or dir/onnx.
func onnxFile(dir, name string) (string, error) {
	if name != "" {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("%w: %s has no %s", ErrModelFolder, dir, name)
		}
		return name, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err == nil {
		return "model.onnx", nil
	}
	var found []string
	for _, sub := range []string{"", "onnx"} {
		m, _ := filepath.Glob(filepath.Join(dir, sub, "*.onnx"))
		for _, f := range m {
			rel, _ := filepath.Rel(dir, f)
			found = append(found, rel)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w: %s holds no .onnx file", ErrModelFolder, dir)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%w: %s holds %d .onnx files (%v): name one in rerank.onnx_file", ErrModelFolder, dir, len(found), found)
}

// Describe is a one-line description, e.g. "cross-encoder /models/ms-marco-MiniLM-L-6-v2 (model.onnx) on go, batches of 8".
func (l *Local) Describe() string {
	return fmt.Sprintf("cross-encoder %s (%s) on %s, batches of %d", l.cfg.Dir, l.cfg.ONNXFile, l.backend, l.cfg.BatchSize)
}

// Rerank implements [Reranker]: one score in (0, 1) per document, in the documents' order.
func (l *Local) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if len(docs) == 0 {
		return []float64{}, nil
	}
	out := make([]float64, len(docs))
	l.mu.Lock()
	defer l.mu.Unlock()
	for start := 0; start < len(docs); start += l.cfg.BatchSize {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("rerank: %w", err)
		}
		end := min(start+l.cfg.BatchSize, len(docs))
		res, err := l.pipe.RunPipeline(query, docs[start:end])
		if err != nil {
			return nil, fmt.Errorf("rerank: cross-encoder %s: %w", l.cfg.Dir, err)
		}
		if len(res.Results) != end-start {
			return nil, fmt.Errorf("rerank: cross-encoder %s: %d scores for %d documents", l.cfg.Dir, len(res.Results), end-start)
		}
		seen := make([]bool, end-start)
		for _, r := range res.Results {
			if r.Index < 0 || r.Index >= end-start || seen[r.Index] {
				return nil, fmt.Errorf("rerank: cross-encoder %s: bad result index %d", l.cfg.Dir, r.Index)
			}
			s := float64(r.Score)
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return nil, fmt.Errorf("rerank: cross-encoder %s: score %v for document %d", l.cfg.Dir, s, start+r.Index)
			}
			seen[r.Index], out[start+r.Index] = true, s
		}
	}
	return out, nil
}

// Close releases the model and, when it was the last user, the session.
func (l *Local) Close() error {
	return errors.Join(hugot.ClosePipeline[*pipelines.CrossEncoderPipeline](l.session, l.name), l.release())
}
