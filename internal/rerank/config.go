package rerank

import (
	"fmt"

	"github.com/asofrag/asof/internal/config"
)

// FromConfig builds the reranker c.Rerank configures: a [Client] for a server
// at base_url, else a [Local] on the model folder (on the embedder's backend, so that
// ONNX Runtime's one environment is shared), with its options; nil when none is configured.
// The reranker sends nothing until it is used; close releases a local model.
func FromConfig(c config.Config) (r Reranker, o Options, close func() error, err error) {
	close = func() error { return nil }
	rc := c.Rerank
	if !rc.Enabled() {
		return nil, o, close, nil
	}
	o = Options{TopN: rc.Top, Fuse: Fuse(rc.Fuse), Weight: rc.Weight}
	if rc.Local() {
		l, err := NewLocal(LocalConfig{Dir: rc.Model, ONNXFile: rc.ONNXFile, BatchSize: rc.BatchSize,
			Backend: c.Embed.Backend, ORTDir: c.ORTDir(), Threads: c.Embed.Threads, Device: c.Embed.Device})
		if err != nil {
			return nil, o, close, fmt.Errorf("rerank.model: %w", err)
		}
		return l, o, l.Close, nil
	}
	cl, err := NewClient(ClientConfig{BaseURL: rc.BaseURL, API: rc.API, Model: rc.Model, APIKeyEnv: rc.APIKeyEnv,
		Timeout: rc.Timeout, BatchSize: rc.BatchSize})
	if err != nil {
		return nil, o, close, err
	}
	return cl, o, close, nil
}
