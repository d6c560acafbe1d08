package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/fsutil"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/workflows"
)

// Staged is a local file put in the store for workers anywhere to read.
type Staged struct {
	workflows.InputFile
	// Path is the local file; Uploaded is false when its content was in the store already.
	Path     string `json:"path"`
	Uploaded bool   `json:"uploaded"`
}

// Stage puts each local file in the store under a content-addressed key (layout.CorpusKey;
// skipped when that key is there already), so a build, an evaluation or a rerun on another
// machine reads the same bytes. Each is named by corpus.UniqueNames: two files of one base
// name stay two rows of a build's table.
func (c *Client) Stage(ctx context.Context, files []string) ([]Staged, error) {
	if err := c.checkStore(); err != nil {
		return nil, err
	}
	out := make([]Staged, 0, len(files))
	names := corpus.UniqueNames(files)
	for i, p := range files {
		_, sum, err := fsutil.HashFile(p)
		if err != nil {
			return nil, err
		}
		s := Staged{InputFile: workflows.InputFile{Key: layout.CorpusKey(sum, filepath.Base(p)), Name: names[i]}, Path: p}
		if ok, err := c.Store.Exists(ctx, s.Key); err != nil {
			return nil, err
		} else if !ok {
			fh, err := os.Open(p)
			if err != nil {
				return nil, err
			}
			_, err = c.Store.Put(ctx, s.Key, fh)
			fh.Close()
			if err != nil {
				return nil, fmt.Errorf("upload %s: %w", p, err)
			}
			s.Uploaded = true
		}
		out = append(out, s)
	}
	return out, nil
}

// InputFiles is what a build or an evaluation reads of staged files.
func InputFiles(s []Staged) []workflows.InputFile {
	out := make([]workflows.InputFile, len(s))
	for i := range s {
		out[i] = s[i].InputFile
	}
	return out
}

// StoreInputList writes a build's input file list to the store under its content's hash
// (layout.InputListKey), so the build's input carries one key however many files it reads,
// and the same files give the same key (a rerun is the same build).
func (c *Client) StoreInputList(ctx context.Context, inputs []workflows.InputFile) (string, error) {
	if err := c.checkStore(); err != nil {
		return "", err
	}
	data, err := json.Marshal(inputs)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	key := layout.InputListKey(hex.EncodeToString(sum[:]))
	if ok, err := c.Store.Exists(ctx, key); err != nil {
		return "", err
	} else if !ok {
		if _, err := c.Store.Put(ctx, key, bytes.NewReader(data)); err != nil {
			return "", fmt.Errorf("store the input file list: %w", err)
		}
	}
	return key, nil
}

// FetchCorpora copies the Parquet objects named by s3:// or file:// URLs (the last path element
// may be a glob, e.g. s3://bucket/exports/2024-*.parquet) into the folder dir, keeping their
// names, so they go through the same checks and Stage as local files. opts are the S3 settings
// for s3:// URLs.
func FetchCorpora(ctx context.Context, dir string, urls []string, opts blob.S3Options) ([]string, error) {
	var files []string
	for i, raw := range urls {
		loc, err := blob.ParseLocation(raw)
		if err != nil {
			return nil, fmt.Errorf("--corpus: %w", err)
		}
		var base, key string
		switch loc.Scheme {
		case "s3":
			d, file := path.Split(loc.Prefix)
			q := ""
			if len(loc.Query) > 0 {
				q = "?" + loc.Query.Encode()
			}
			base, key = "s3://"+loc.Bucket+"/"+strings.TrimSuffix(d, "/")+q, file
		default:
			d, file := filepath.Split(loc.Path)
			base, key = "file://"+d, file
		}
		if key == "" {
			return nil, fmt.Errorf("--corpus %q: name a file (or a glob of files), not a folder", raw)
		}
		src, err := blob.Open(ctx, base, opts)
		if err != nil {
			return nil, fmt.Errorf("--corpus %q: %w", raw, err)
		}
		var keys []string
		err = src.Iter(ctx, "", func(o blob.ObjectInfo) error {
			if ok, _ := path.Match(key, o.Key); ok && !strings.Contains(o.Key, "/") {
				keys = append(keys, o.Key)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("--corpus %q: %w", raw, err)
		}
		if len(keys) == 0 {
			return nil, fmt.Errorf("--corpus %q: no such object", raw)
		}
		for _, k := range keys {
			dst := filepath.Join(dir, fmt.Sprint(i), k)
			if err := copyObject(ctx, src, k, dst); err != nil {
				return nil, fmt.Errorf("--corpus %q: fetch %s: %w", raw, k, err)
			}
			files = append(files, dst)
		}
	}
	return files, nil
}

// copyObject writes the object key of b to the local file dst (its folder made).
func copyObject(ctx context.Context, b blob.Bucket, key, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	r, err := b.Get(ctx, key)
	if err != nil {
		return err
	}
	defer r.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
