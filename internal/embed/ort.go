//go:build ORT

package embed

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/options"
)

// ORTBuilt reports whether this binary has the ONNX Runtime backend (built with -tags ORT).
const ORTBuilt = true

// ONNX Runtime allows one environment per process, so every Hugot on the ORT backend shares
// one hugot session; the first one fixes its library, threads and device.
var ort struct {
	sync.Mutex
	session *hugot.Session
	cfg     Config
	refs    int
}

// ORTAvailable reports why libonnxruntime.so in dir cannot be used, or nil.
func ORTAvailable(dir string) error {
	if dir == "" {
		dir = DefaultORTDir
	}
	if _, err := os.Stat(filepath.Join(dir, "libonnxruntime.so")); err != nil {
		return fmt.Errorf("%w: %w (run `make setup-ort` or set ASOF_EMBED_ORT_DIR)", ErrORTDir, err)
	}
	return nil
}

func acquireORT(cfg Config) (*hugot.Session, func() error, error) {
	if err := ORTAvailable(cfg.ORTDir); err != nil {
		return nil, nil, err
	}
	ort.Lock()
	defer ort.Unlock()
	if ort.session == nil {
		opts := []options.WithOption{
			options.WithOnnxLibraryPath(cfg.ORTDir),
			options.WithIntraOpNumThreads(cfg.Threads),
			options.WithInterOpNumThreads(1),
			options.WithIntraOpSpinning(false),
			options.WithInterOpSpinning(false),
		}
		if cfg.Device == "cuda" {
			if err := preloadCUDA(cfg.ORTDir); err != nil {
				return nil, nil, err
			}
			// ONNX Runtime's CUDA provider on the first GPU, with its defaults.
			opts = append(opts, options.WithCuda(map[string]string{}))
		}
		s, err := hugot.NewORTSession(opts...)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrORTDir, err)
		}
		ort.session, ort.cfg = s, cfg
	} else if ort.cfg.Threads != cfg.Threads || ort.cfg.Device != cfg.Device || ort.cfg.ORTDir != cfg.ORTDir {
		return nil, nil, fmt.Errorf("embed: ONNX Runtime already started in this process with %d thread(s) on %q from %s",
			ort.cfg.Threads, ort.cfg.Device, ort.cfg.ORTDir)
	}
	ort.refs++
	var once sync.Once
	release := func() error {
		var err error
		once.Do(func() {
			ort.Lock()
			defer ort.Unlock()
			ort.refs--
			if ort.refs == 0 {
				err = ort.session.Destroy()
				ort.session = nil
			}
		})
		return err
	}
	return ort.session, release, nil
}
