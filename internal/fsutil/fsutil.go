// Package fsutil holds the file helpers that several packages share: the sha256 of a file,
// and extracting zip entries into a folder (each entry through a temporary file, checked
// against a pinned sha256 when one is given, and never outside the folder).
package fsutil

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// HashFile returns the size and the hex sha256 of the file at path.
func HashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("hash %s: %w", path, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// PrivateDir creates dir (and its parents) readable by its owner only (0700), or, when it
// exists and others may read or enter it, takes their permissions away; tightened says it
// did so, for a note to the user. asof keeps its SQLite file, S3 folder and keys in such a
// folder.
func PrivateDir(dir string) (tightened bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return false, err
	}
	if !st.IsDir() {
		return false, fmt.Errorf("%s is not a folder", dir)
	}
	if st.Mode().Perm()&0o077 == 0 {
		return false, nil
	}
	if err := os.Chmod(dir, st.Mode().Perm()&^0o077); err != nil {
		return false, fmt.Errorf("make %s private (chmod 700): %w", dir, err)
	}
	return true, nil
}
