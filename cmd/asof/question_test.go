package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuestionOf: a question from the arguments, from stdin ("-", or --query-file -), or from a
// file, its lines joined; an empty or oversized one, or a missing file, is a clear error.
func TestQuestionOf(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "q.txt")
	if err := os.WriteFile(file, []byte("Что с ключевой ставкой\nв августе?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte(" \n\t"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, stdin, want, err string
		args                         []string
	}{
		{name: "one argument", args: []string{"key rate"}, want: "key rate"},
		{name: "words joined", args: []string{"key", "rate"}, want: "key rate"},
		{name: "dash reads stdin", args: []string{"-"}, stdin: "what is\nthe key rate?\n", want: "what is the key rate?"},
		{name: "query-file -", file: "-", stdin: "rate", want: "rate"},
		{name: "a file", file: file, want: "Что с ключевой ставкой в августе?"},
		{name: "an empty file", file: empty, err: "is empty"},
		{name: "empty stdin", args: []string{"-"}, stdin: "", err: "stdin is empty"},
		{name: "no such file", file: filepath.Join(dir, "none.txt"), err: "--query-file"},
		{name: "too long", args: []string{"-"}, stdin: strings.Repeat("a", MaxQuestionBytes+1), err: "over 64 KB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := questionOf(&bytes.Buffer{}, tt.args, tt.file, strings.NewReader(tt.stdin))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
