package fsutil

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

type entry struct{ name, body string }

func writeZip(t *testing.T, entries []entry) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "a.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func hexSum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestUnzip(t *testing.T) {
	tests := []struct {
		name    string
		entries []entry
		wantErr error
	}{
		{name: "files and subfolders", entries: []entry{{"a.txt", "alpha"}, {"sub/b.txt", "beta"}, {"sub/deep/c", ""}}},
		{name: "parent escape", entries: []entry{{"ok.txt", "fine"}, {"../evil.txt", "x"}}, wantErr: ErrBadEntry},
		{name: "nested escape", entries: []entry{{"sub/../../evil.txt", "x"}}, wantErr: ErrBadEntry},
		{name: "absolute", entries: []entry{{"/tmp/evil.txt", "x"}}, wantErr: ErrBadEntry},
		{name: "directory entry", entries: []entry{{"sub/", ""}}, wantErr: ErrBadEntry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zp := writeZip(t, tt.entries)
			root := t.TempDir()
			dir := filepath.Join(root, "out")
			err := Unzip(zp, dir)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Unzip: err = %v, want %v", err, tt.wantErr)
				}
				// Nothing is written, not even the good entries before the bad one.
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("Unzip wrote %s for a refused archive", dir)
				}
				if _, err := os.Stat(filepath.Join(root, "evil.txt")); !os.IsNotExist(err) {
					t.Errorf("Unzip wrote outside its folder")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tt.entries {
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.name)))
				if err != nil || string(got) != e.body {
					t.Errorf("%s = %q, %v; want %q", e.name, got, err, e.body)
				}
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(e.name)) + ".part"); !os.IsNotExist(err) {
					t.Errorf("%s.part left behind", e.name)
				}
			}
		})
	}
}

func TestExtractFile(t *testing.T) {
	zp := writeZip(t, []entry{{"model.onnx", "weights"}})
	zr, err := zip.OpenReader(zp)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	tests := []struct {
		name    string
		want    string
		wantErr error
	}{
		{name: "pinned sum matches", want: hexSum("weights")},
		{name: "no pinned sum", want: ""},
		{name: "pinned sum differs", want: hexSum("other"), wantErr: ErrChecksum},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "m", "model.onnx")
			got, err := ExtractFile(zr.File[0], dst, tt.want)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ExtractFile: err = %v, want %v", err, tt.wantErr)
				}
				for _, p := range []string{dst, dst + ".part"} {
					if _, err := os.Stat(p); !os.IsNotExist(err) {
						t.Errorf("%s left behind after a checksum mismatch", p)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != hexSum("weights") {
				t.Errorf("ExtractFile returned sum %s, want %s", got, hexSum("weights"))
			}
			if b, err := os.ReadFile(dst); err != nil || string(b) != "weights" {
				t.Errorf("dst = %q, %v", b, err)
			}
		})
	}
}
