package embed

import (
	"fmt"

	"github.com/knights-analytics/hugot"
)

// Session starts a hugot session on the backend cfg names (its Backend, ORTDir, Threads and
// Device; the other fields are ignored) for a pipeline other than an embedder's, such as the
// local reranker, and says which backend it runs on. On ONNX Runtime it shares the process's
// one environment with the embedders, so it must ask for the same library, threads and device.
// release frees it (on ONNX Runtime, once the last user has released it).
func Session(cfg Config) (s *hugot.Session, backend string, release func() error, err error) {
	if cfg.Threads <= 0 {
		cfg.Threads = 1
	}
	if cfg.ORTDir == "" {
		cfg.ORTDir = DefaultORTDir
	}
	if backend, err = ResolveBackend(cfg.Backend, cfg.ORTDir); err != nil {
		return nil, "", nil, err
	}
	if backend == BackendORT {
		s, release, err = acquireORT(cfg)
	} else {
		if cfg.Device == "cuda" {
			return nil, "", nil, fmt.Errorf("embed: device cuda needs the ONNX Runtime backend: %w", ORTAvailable(cfg.ORTDir))
		}
		if s, err = hugot.NewGoSession(); err == nil {
			release = s.Destroy
		}
	}
	if err != nil {
		return nil, "", nil, fmt.Errorf("embed: start hugot (%s backend): %w", backend, err)
	}
	return s, backend, release, nil
}
