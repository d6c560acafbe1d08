package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOutputPathsCheckedFirst: a folder or file a command could never write is refused before
// anything starts. Temporal at 127.0.0.1:1 answers nobody: a command that went on to start
// its work would fail on that instead, and slowly.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	topics := filepath.Join(dir, "topics.yaml")
	if err := os.WriteFile(topics, []byte("topics:\n  - name: Key rate\n    query: key rate decision\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(dir, "a-file")
	if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	remote := []string{"--data-dir", filepath.Join(dir, "data"), "--temporal", "127.0.0.1:1", "--store", "file://" + filepath.Join(dir, "store")}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"digest --out under /proc", []string{"digest", "--index", "news", "--topics", topics, "--as-of", "2024-01-02", "--out", "/proc/nope"},
			"--out /proc/nope: cannot make the folder (mkdir /proc/nope"},
		{"digest --out under a file", []string{"digest", "--index", "news", "--topics", topics, "--as-of", "2024-01-02", "--out", filepath.Join(aFile, "sub")},
			"--out " + filepath.Join(aFile, "sub") + ": cannot make the folder"},
		{"digest --out a file", []string{"digest", "--index", "news", "--topics", topics, "--as-of", "2024-01-02", "--out", aFile},
			"--out " + aFile + " is a file, not a folder"},
		{"schedule trigger --out", []string{"schedule", "trigger", "morning", "--out", "/proc/nope"},
			"--out /proc/nope: cannot make the folder"},
		{"digest get --html", []string{"digest", "get", "morning", "--html", "/proc/nope/d.html"},
			"--html /proc/nope/d.html: its folder /proc/nope does not exist"},
		{"answers get --html a folder", []string{"answers", "get", "0123456789abcdef0123456789abcdef", "--html", dir},
			"--html " + dir + " is a folder: name a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			began := time.Now()
			code, out, errOut := runCLI(t, nil, append(tt.args, remote...)...)
			if code == 0 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, want an error with %q\nstdout:\n%s\nstderr:\n%s", code, tt.want, out, errOut)
			}
			if took := time.Since(began); took > time.Second {
				t.Errorf("refused after %s: the check should come before any connection", took)
			}
		})
	}
}

// TestCheckOutFile covers the cases a test of the commands does not reach.
func TestCheckOutFile(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "page.html")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{"", "-", existing, filepath.Join(dir, "new.html")} {
		if err := checkOutFile("--html", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if data, _ := os.ReadFile(existing); string(data) != "old" {
		t.Errorf("the check changed the file: %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the check left files behind: %v", entries)
	}
	if _, err := checkOutDir("--out", filepath.Join(dir, "made", "here")); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "made", "here")); len(entries) != 0 {
		t.Errorf("the probe file stayed: %v", entries)
	}
}
