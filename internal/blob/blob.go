// Package blob is asof's object storage: a small Bucket interface with a local-folder and an
// S3 (aws-sdk-go-v2) implementation.
//
// Every artifact asof writes (shards, manifests, run outputs, quarantine tables) goes through a
// Bucket. Keys are slash-separated paths relative to the bucket's root (an S3 prefix or a
// folder). Writes are whole-object and atomic: a reader sees the old object or the new one,
// never half of one. Conditional writes (PutIfAbsent, CompareAndSwap) let several processes
// publish a manifest pointer safely.
//
// A key may not also be the folder of another key ("a/b" and "a/b/c"): S3 allows it, but
// file-system stores (the local folder, versitygw's posix backend) cannot hold both, and asof's
// layouts never need it.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/redact"
)

// ErrNotFound is returned (wrapped) when a key does not exist. Test with errors.Is.
var ErrNotFound = errors.New("blob: object not found")

// ErrPreconditionFailed is returned (wrapped) when a conditional write loses: PutIfAbsent on an
// existing key, or CompareAndSwap with an ETag that is no longer current.
var ErrPreconditionFailed = errors.New("blob: precondition failed")

// ErrInvalidKey is returned (wrapped) for an empty key, an absolute key, or one with "." or
// ".." segments.
var ErrInvalidKey = errors.New("blob: invalid key")

// ObjectInfo describes one stored object.
type ObjectInfo struct {
	Key          string    `json:"key"`
	Size         int64     `json:"size"`
	ETag         string    `json:"etag"`
	LastModified time.Time `json:"last_modified"`
}

// Bucket stores objects under string keys. Implementations are safe for concurrent use.
type Bucket interface {
	// Get opens the object for reading. The caller closes the reader.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Stat returns the object's size and ETag.
	Stat(ctx context.Context, key string) (ObjectInfo, error)
	// Exists reports whether the key exists.
	Exists(ctx context.Context, key string) (bool, error)
	// Put writes (or replaces) the object and returns its new ETag.
	Put(ctx context.Context, key string, r io.Reader) (ObjectInfo, error)
	// PutIfAbsent writes the object only if the key does not exist yet; otherwise it returns
	// ErrPreconditionFailed and leaves the existing object untouched.
	PutIfAbsent(ctx context.Context, key string, r io.Reader) (ObjectInfo, error)
	// CompareAndSwap replaces the object only if its current ETag equals etag; otherwise it
	// returns ErrPreconditionFailed (ErrNotFound if the key is gone).
	CompareAndSwap(ctx context.Context, key, etag string, r io.Reader) (ObjectInfo, error)
	// Iter calls fn for every object whose key starts with prefix, in ascending key order,
	// at any depth. An error from fn stops the iteration and is returned.
	Iter(ctx context.Context, prefix string, fn func(ObjectInfo) error) error
	// Delete removes the object. Deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// String names the bucket for logs and errors (no credentials).
	String() string
}

// List returns every object under prefix in ascending key order.
func List(ctx context.Context, b Bucket, prefix string) ([]ObjectInfo, error) {
	var out []ObjectInfo
	err := b.Iter(ctx, prefix, func(o ObjectInfo) error {
		out = append(out, o)
		return nil
	})
	return out, err
}

// ReadAll reads a whole object into memory; use it only for small objects (manifests, JSON).
func ReadAll(ctx context.Context, b Bucket, key string) ([]byte, error) {
	r, err := b.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return data, nil
}

// ValidateKey checks that key is a clean relative slash path.
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	if strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") || strings.Contains(key, "\\") || strings.ContainsRune(key, 0) {
		return fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w: %q", ErrInvalidKey, key)
		}
	}
	return nil
}

// Location is a parsed store URL.
type Location struct {
	// Scheme is "file" or "s3".
	Scheme string
	// Bucket is the S3 bucket (s3 only).
	Bucket string
	// Prefix is the key prefix inside the S3 bucket (s3 only), without a trailing slash.
	Prefix string
	// Path is the local folder (file only).
	Path string
	// Query holds optional S3 settings: endpoint, region, path_style.
	Query url.Values
}

// ParseLocation reads "s3://bucket/prefix?endpoint=http://host:port&region=r",
// "file:///abs/path" or a plain local path.
func ParseLocation(raw string) (Location, error) {
	if raw == "" {
		return Location{}, errors.New("blob: empty store URL")
	}
	if !strings.Contains(raw, "://") {
		return Location{Scheme: "file", Path: raw}, nil
	}
	shown := redact.URL(raw) // what errors print: never a secret written into the URL
	u, err := url.Parse(raw)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // *url.Error repeats the URL, secret and all
		}
		return Location{}, fmt.Errorf("blob: store URL %q: %w", shown, err)
	}
	if u.User != nil {
		return Location{}, fmt.Errorf("blob: store URL %q holds credentials, which are not read from a URL: give them as ASOF_S3_ACCESS_KEY_ID and ASOF_S3_SECRET_ACCESS_KEY", shown)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return Location{}, fmt.Errorf("blob: store URL %q: file URLs take a path (file:///abs/path)", shown)
		}
		if u.Path == "" {
			return Location{}, fmt.Errorf("blob: store URL %q has no path", shown)
		}
		return Location{Scheme: "file", Path: u.Path}, nil
	case "s3":
		if u.Host == "" {
			return Location{}, fmt.Errorf("blob: store URL %q has no bucket (s3://bucket/prefix)", shown)
		}
		return Location{Scheme: "s3", Bucket: u.Host, Prefix: strings.Trim(path.Clean("/"+u.Path), "/"), Query: u.Query()}, nil
	default:
		return Location{}, fmt.Errorf("blob: store URL %q: unsupported scheme %q (use s3:// or file://)", shown, u.Scheme)
	}
}

// String renders the location back as a URL.
func (l Location) String() string {
	switch l.Scheme {
	case "s3":
		s := "s3://" + l.Bucket
		if l.Prefix != "" {
			s += "/" + l.Prefix
		}
		if len(l.Query) > 0 {
			s += "?" + l.Query.Encode()
		}
		return s
	default:
		return "file://" + l.Path
	}
}

func sortInfos(infos []ObjectInfo) {
	sort.Slice(infos, func(i, j int) bool { return infos[i].Key < infos[j].Key })
}
