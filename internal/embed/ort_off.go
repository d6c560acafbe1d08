//go:build !ORT

package embed

import "github.com/knights-analytics/hugot"

// ORTBuilt reports whether this binary has the ONNX Runtime backend (built with -tags ORT).
const ORTBuilt = false

// ORTAvailable reports why the ONNX Runtime backend cannot be used: always ErrORTNotBuilt here.
func ORTAvailable(string) error { return ErrORTNotBuilt }

func acquireORT(Config) (*hugot.Session, func() error, error) { return nil, nil, ErrORTNotBuilt }
