package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// python is the peers' virtual environment and which peers can run in it.
type python struct {
	Bin string
	// Missing maps a peer ("faiss", "bm25s", "onnxruntime") to why it cannot run.
	Missing map[string]string
}

// peerModules are the imports each peer needs.
var peerModules = map[string]string{
	"faiss":       "import faiss, numpy",
	"bm25s":       "import bm25s, numpy",
	"onnxruntime": "import onnxruntime, tokenizers, numpy",
}

// setupPython creates the venv when missing and installs bench/requirements.txt into it (pip
// does nothing when everything pinned is there). A failure is recorded per peer, not returned.
func (r *runner) setupPython(ctx context.Context) python {
	done := r.step("Python peers (" + r.o.Venv + ", bench/requirements.txt)")
	defer done()
	py := python{Bin: filepath.Join(r.o.Venv, "bin", "python"), Missing: map[string]string{}}
	fail := func(why string) python {
		for p := range peerModules {
			py.Missing[p] = why
		}
		return py
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	if _, err := os.Stat(py.Bin); err != nil {
		out, err := exec.CommandContext(cctx, "python3", "-m", "venv", r.o.Venv).CombinedOutput()
		r.logTo("venv", string(out))
		if err != nil {
			return fail(fmt.Sprintf("no venv (python3 -m venv: %v)", err))
		}
	}
	out, err := exec.CommandContext(cctx, py.Bin, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", filepath.Join("bench", "requirements.txt")).CombinedOutput()
	r.logTo("pip", string(out))
	pipErr := ""
	if err != nil {
		pipErr = fmt.Sprintf("pip install failed: %s", lastLine(string(out)))
	}
	for p, imports := range peerModules {
		if out, err := exec.CommandContext(cctx, py.Bin, "-c", imports).CombinedOutput(); err != nil {
			why := "not importable: " + lastLine(string(out))
			if pipErr != "" {
				why = pipErr
			}
			py.Missing[p] = why
		}
	}
	return py
}

// peer runs a Python peer script (bench/NAME) and returns its JSON line, or why there is none.
func (r *runner) peer(ctx context.Context, needs, log, script string, args ...string) (map[string]any, string) {
	return r.peerFor(ctx, peerTimeout, needs, log, script, args...)
}

// peerTimeout bounds a peer's run: a hung peer costs its row, not the run.
const peerTimeout = 10 * time.Minute

// peerFor is peer with its own time limit.
func (r *runner) peerFor(ctx context.Context, limit time.Duration, needs, log, script string, args ...string) (map[string]any, string) {
	if why, ok := r.py.Missing[needs]; ok {
		return nil, needs + " " + why
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(cctx, r.py.Bin, append([]string{filepath.Join("bench", script)}, args...)...)
	raw, err := cmd.CombinedOutput()
	out := string(raw)
	r.logTo(log, out)
	v, perr := parsePeer(out)
	if perr != nil {
		if err != nil {
			return nil, fmt.Sprintf("%s failed: %s", script, lastLine(out))
		}
		return nil, fmt.Sprintf("%s: %v", script, perr)
	}
	return v, ""
}

// version formats a peer library's version for the table ("faiss-cpu 1.15.1").
func version(v map[string]any, key, name string) string {
	if s := str(v, key); s != "" {
		return name + " " + s
	}
	return name
}

// trimFloat is a compact number for the table.
func trimFloat(v float64) string {
	a := v
	if a < 0 {
		a = -a
	}
	switch {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}
