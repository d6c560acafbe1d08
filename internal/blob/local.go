package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Local is a Bucket over a folder on the local file system. Objects are plain files, so the
// store can be inspected with ls. Writes go to a temporary file in the same folder and are
// renamed into place; conditional writes hold an exclusive flock on the bucket's lock file,
// so they are atomic across processes on one machine.
type Local struct {
	root string
	mu   sync.Mutex // serializes conditional writes inside this process (flock is per open file)
}

const (
	localLockFile  = ".asof-bucket.lock"
	localTmpPrefix = ".tmp-"
)

// NewLocal opens (creating if needed) a bucket rooted at dir.
func NewLocal(dir string) (*Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("blob: local bucket %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("blob: local bucket %s: %w", dir, err)
	}
	return &Local{root: abs}, nil
}

// Root is the bucket's folder.
func (l *Local) Root() string { return l.root }

// String implements Bucket.
func (l *Local) String() string { return "file://" + l.root }

func (l *Local) path(key string) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Get implements Bucket.
func (l *Local) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, l.mapErr(key, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("get %s: %w", key, ErrNotFound)
	}
	return f, nil
}

// Stat implements Bucket.
func (l *Local) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	p, err := l.path(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return ObjectInfo{}, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return ObjectInfo{}, l.mapErr(key, err)
	}
	if st.IsDir() {
		return ObjectInfo{}, fmt.Errorf("stat %s: %w", key, ErrNotFound)
	}
	return infoOf(key, st), nil
}

// Exists implements Bucket.
func (l *Local) Exists(ctx context.Context, key string) (bool, error) {
	_, err := l.Stat(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Put implements Bucket.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) (ObjectInfo, error) {
	return l.write(ctx, key, r, func(string) error { return nil })
}

// PutIfAbsent implements Bucket.
func (l *Local) PutIfAbsent(ctx context.Context, key string, r io.Reader) (ObjectInfo, error) {
	return l.write(ctx, key, r, func(p string) error {
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("put-if-absent %s: %w", key, ErrPreconditionFailed)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}

// CompareAndSwap implements Bucket.
func (l *Local) CompareAndSwap(ctx context.Context, key, etag string, r io.Reader) (ObjectInfo, error) {
	return l.write(ctx, key, r, func(p string) error {
		st, err := os.Stat(p)
		if err != nil {
			return l.mapErr(key, err)
		}
		if cur := infoOf(key, st).ETag; cur != etag {
			return fmt.Errorf("compare-and-swap %s: etag %s is not current (%s): %w", key, etag, cur, ErrPreconditionFailed)
		}
		return nil
	})
}

// write copies r into a temporary file, then, holding the bucket lock when check is
// conditional, runs check and renames the file into place.
func (l *Local) write(ctx context.Context, key string, r io.Reader, check func(path string) error) (ObjectInfo, error) {
	p, err := l.path(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(dir, localTmpPrefix+"*")
	if err != nil {
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := io.Copy(tmp, ctxReader{ctx, r}); err != nil {
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	if err := tmp.Sync(); err != nil {
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	unlock, err := l.lock()
	if err != nil {
		return ObjectInfo{}, err
	}
	defer unlock()
	if err := check(p); err != nil {
		return ObjectInfo{}, err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	committed = true
	st, err := os.Stat(p)
	if err != nil {
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	return infoOf(key, st), nil
}

// lock takes the bucket-wide write lock (in-process mutex plus flock across processes).
func (l *Local) lock() (func(), error) {
	l.mu.Lock()
	f, err := os.OpenFile(filepath.Join(l.root, localLockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		l.mu.Unlock()
		return nil, fmt.Errorf("blob: lock %s: %w", l.root, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		l.mu.Unlock()
		return nil, fmt.Errorf("blob: lock %s: %w", l.root, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
		l.mu.Unlock()
	}, nil
}

// Iter implements Bucket.
func (l *Local) Iter(ctx context.Context, prefix string, fn func(ObjectInfo) error) error {
	// Walk only the deepest folder the prefix names, then filter by the full prefix.
	start := l.root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		start = filepath.Join(l.root, filepath.FromSlash(prefix[:i]))
	}
	var infos []ObjectInfo
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || name == localLockFile || strings.HasPrefix(name, localTmpPrefix) {
			return nil
		}
		rel, err := filepath.Rel(l.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		st, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) { // deleted while walking
				return nil
			}
			return err
		}
		infos = append(infos, infoOf(key, st))
		return nil
	})
	if err != nil {
		return fmt.Errorf("list %q in %s: %w", prefix, l, err)
	}
	sortInfos(infos)
	for _, o := range infos {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// Delete implements Bucket. Empty parent folders are removed too.
func (l *Local) Delete(ctx context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	for dir := filepath.Dir(p); dir != l.root && strings.HasPrefix(dir, l.root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil { // not empty, or gone
			break
		}
	}
	return nil
}

func (l *Local) mapErr(key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%s in %s: %w", key, l, ErrNotFound)
	}
	return fmt.Errorf("%s in %s: %w", key, l, err)
}

// infoOf derives a cheap ETag that changes on every write: writes rename a new file into
// place, so the inode changes even when size and modification time do not.
func infoOf(key string, st fs.FileInfo) ObjectInfo {
	var ino uint64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = sys.Ino
	}
	etag := fmt.Sprintf("%x-%x-%x", ino, st.ModTime().UnixNano(), st.Size())
	return ObjectInfo{Key: key, Size: st.Size(), ETag: etag, LastModified: st.ModTime().UTC()}
}

// ctxReader stops a copy when the context is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
