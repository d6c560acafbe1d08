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
