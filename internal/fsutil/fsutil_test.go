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

func TestPrivateDir(t *testing.T) {
	tests := []struct {
		name      string
		existing  os.FileMode // 0: the folder does not exist yet
		wantPerm  os.FileMode
		tightened bool
	}{
		{"new folder", 0, 0o700, false},
		{"world-readable folder", 0o755, 0o700, true},
		{"group-writable folder", 0o770, 0o700, true},
		{"already private", 0o700, 0o700, false},
		{"owner read-only kept", 0o500, 0o500, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data", "dir")
			if tt.existing != 0 {
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, tt.existing); err != nil { // past the umask
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(dir, 0o700) })
			}
			tightened, err := PrivateDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != tt.wantPerm || tightened != tt.tightened {
				t.Errorf("mode %v, tightened %v; want %v, %v", st.Mode().Perm(), tightened, tt.wantPerm, tt.tightened)
			}
		})
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	if _, err := PrivateDir(file); err == nil {
		t.Error("a file taken for a folder")
	}
}
