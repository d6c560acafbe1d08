package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHashFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		data     []byte
		wantSize int64
		wantSum  string
	}{
		{name: "empty", data: []byte{}, wantSize: 0, wantSum: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{name: "abc", data: []byte("abc"), wantSize: 3, wantSum: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			if err := os.WriteFile(p, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			size, sum, err := HashFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if size != tt.wantSize || sum != tt.wantSum {
				t.Errorf("HashFile = %d, %s; want %d, %s", size, sum, tt.wantSize, tt.wantSum)
			}
		})
	}
	if _, _, err := HashFile(filepath.Join(dir, "absent")); !os.IsNotExist(err) {
		t.Errorf("HashFile(absent): err = %v, want not-exist", err)
	}
}
