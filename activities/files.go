package activities

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/asofrag/asof/internal/blob"
)

// download copies an object to a temporary file (Parquet needs random access) and returns its
// path; the caller removes it.
func (a *Activities) download(ctx context.Context, key string) (string, error) {
	r, err := a.Bucket.Get(ctx, key)
	if err != nil {
		return "", err
	}
	defer r.Close()
	f, err := os.CreateTemp("", "asof-*")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("download %s: %w", key, err)
	}
	return f.Name(), f.Close()
}

// upload writes a local file to key.
func (a *Activities) upload(ctx context.Context, key, path string) (blob.ObjectInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return blob.ObjectInfo{}, err
	}
	defer f.Close()
	info, err := a.Bucket.Put(ctx, key, f)
	if err != nil {
		return blob.ObjectInfo{}, fmt.Errorf("upload %s: %w", key, err)
	}
	return info, nil
}
