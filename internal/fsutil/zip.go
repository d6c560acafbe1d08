package fsutil

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrChecksum is returned (wrapped) by ExtractFile when an entry's sha256 is not the one
// asked for.
var ErrChecksum = errors.New("checksum mismatch")

// ErrBadEntry is returned (wrapped) by Unzip for an entry it refuses to write: a name that
// is not local to the folder (absolute, or climbing out with ".."), or a directory entry.
var ErrBadEntry = errors.New("bad entry")

// ExtractFile copies the zip entry e to dst (creating dst's folder), through dst+".part"
// renamed into place at the end, so dst is either the whole entry or absent. When
// wantSHA256 is not empty, an entry whose sha256 differs is not renamed into place and the
// error wraps ErrChecksum. It returns the entry's hex sha256.
func ExtractFile(e *zip.File, dst, wantSHA256 string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	rc, err := e.Open()
	if err != nil {
		return "", fmt.Errorf("extract %s: %w", e.Name, err)
	}
	defer rc.Close()
	tmp := dst + ".part"
	out, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), rc)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("extract %s: %w", e.Name, err)
	}
	got := hex.EncodeToString(h.Sum(nil))
	if wantSHA256 != "" && got != wantSHA256 {
		os.Remove(tmp)
		return "", fmt.Errorf("%s: %w (got %s, want %s)", e.Name, ErrChecksum, got, wantSHA256)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return got, nil
}

// Unzip extracts every entry of the zip at zipPath into dir, under the entry's own name. It
// refuses, before writing anything, an archive holding an entry whose name is not local to
// dir or that is a directory (ErrBadEntry).
func Unzip(zipPath, dir string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, e := range zr.File {
		if !filepath.IsLocal(filepath.FromSlash(e.Name)) || strings.HasSuffix(e.Name, "/") {
			return fmt.Errorf("unzip %s: %w %q", zipPath, ErrBadEntry, e.Name)
		}
	}
	for _, e := range zr.File {
		if _, err := ExtractFile(e, filepath.Join(dir, filepath.FromSlash(e.Name)), ""); err != nil {
			return fmt.Errorf("unzip %s: %w", zipPath, err)
		}
	}
	return nil
}
