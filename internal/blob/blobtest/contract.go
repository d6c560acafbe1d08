// Package blobtest is the contract every blob.Bucket implementation must pass. The same suite
// runs against the local folder and against S3 on a real in-process versitygw.
package blobtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
)

// Run exercises b, which must be empty, through the whole Bucket contract.
func Run(t *testing.T, b blob.Bucket) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("PutGetStat", func(t *testing.T) {
		info := mustPut(t)(b.Put(ctx, "rt/a.txt", strings.NewReader("hello")))
		if info.Size != 5 || info.ETag == "" {
			t.Fatalf("Put info = %+v, want size 5 and an etag", info)
		}
		if got := mustRead(t, ctx, b, "rt/a.txt"); got != "hello" {
			t.Fatalf("Get = %q, want hello", got)
		}
		st, err := b.Stat(ctx, "rt/a.txt")
		if err != nil || st.Size != 5 || st.ETag != info.ETag {
			t.Fatalf("Stat = %+v, %v; want size 5 etag %s", st, err, info.ETag)
		}
		info2 := mustPut(t)(b.Put(ctx, "rt/a.txt", strings.NewReader("hello, world")))
		if info2.ETag == info.ETag {
			t.Fatalf("overwrite kept etag %s", info.ETag)
		}
		if got := mustRead(t, ctx, b, "rt/a.txt"); got != "hello, world" {
			t.Fatalf("Get after overwrite = %q", got)
		}
		empty := mustPut(t)(b.Put(ctx, "rt/empty", strings.NewReader("")))
		if empty.Size != 0 || mustRead(t, ctx, b, "rt/empty") != "" {
			t.Fatalf("empty object: %+v", empty)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		if _, err := b.Get(ctx, "missing/key"); !errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("Get missing: err = %v, want ErrNotFound", err)
		}
		if _, err := b.Stat(ctx, "missing/key"); !errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("Stat missing: err = %v, want ErrNotFound", err)
		}
		if ok, err := b.Exists(ctx, "missing/key"); ok || err != nil {
			t.Fatalf("Exists missing = %v, %v", ok, err)
		}
		if err := b.Delete(ctx, "missing/key"); err != nil {
			t.Fatalf("Delete missing: %v", err)
		}
	})

	t.Run("InvalidKeys", func(t *testing.T) {
		for _, k := range []string{"", "/abs", "a//b", "a/../b", "./a", "dir/"} {
			if _, err := b.Put(ctx, k, strings.NewReader("x")); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Put(%q): err = %v, want ErrInvalidKey", k, err)
			}
		}
	})

	t.Run("Delete", func(t *testing.T) {
		mustPut(t)(b.Put(ctx, "del/x/y", strings.NewReader("1")))
		if ok, err := b.Exists(ctx, "del/x/y"); !ok || err != nil {
			t.Fatalf("Exists = %v, %v", ok, err)
		}
		if err := b.Delete(ctx, "del/x/y"); err != nil {
			t.Fatal(err)
		}
		if ok, _ := b.Exists(ctx, "del/x/y"); ok {
			t.Fatal("object still exists after Delete")
		}
		if objs, err := blob.List(ctx, b, "del/"); err != nil || len(objs) != 0 {
			t.Fatalf("List after delete = %v, %v", objs, err)
		}
	})

	t.Run("PutIfAbsent", func(t *testing.T) {
		mustPut(t)(b.PutIfAbsent(ctx, "cond/once", strings.NewReader("first")))
		if _, err := b.PutIfAbsent(ctx, "cond/once", strings.NewReader("second")); !errors.Is(err, blob.ErrPreconditionFailed) {
			t.Fatalf("second PutIfAbsent: err = %v, want ErrPreconditionFailed", err)
		}
		if got := mustRead(t, ctx, b, "cond/once"); got != "first" {
			t.Fatalf("object = %q after a lost PutIfAbsent, want first", got)
		}
	})

	t.Run("CompareAndSwap", func(t *testing.T) {
		v1 := mustPut(t)(b.Put(ctx, "cond/ptr", strings.NewReader("v1")))
		v2 := mustPut(t)(b.CompareAndSwap(ctx, "cond/ptr", v1.ETag, strings.NewReader("v2")))
		if v2.ETag == v1.ETag {
			t.Fatal("CompareAndSwap kept the etag")
		}
		if _, err := b.CompareAndSwap(ctx, "cond/ptr", v1.ETag, strings.NewReader("v3")); !errors.Is(err, blob.ErrPreconditionFailed) {
			t.Fatalf("stale CompareAndSwap: err = %v, want ErrPreconditionFailed", err)
		}
		if got := mustRead(t, ctx, b, "cond/ptr"); got != "v2" {
			t.Fatalf("object = %q, want v2", got)
		}
		_, err := b.CompareAndSwap(ctx, "cond/absent", v1.ETag, strings.NewReader("x"))
		if !errors.Is(err, blob.ErrNotFound) && !errors.Is(err, blob.ErrPreconditionFailed) {
			t.Fatalf("CompareAndSwap on a missing key: err = %v, want ErrNotFound or ErrPreconditionFailed", err)
		}
		if ok, _ := b.Exists(ctx, "cond/absent"); ok {
			t.Fatal("CompareAndSwap on a missing key created it")
		}
	})

	t.Run("ConcurrentConditionalWrites", func(t *testing.T) {
		const n = 8
		base := mustPut(t)(b.Put(ctx, "race/ptr", strings.NewReader("base")))
		var wg sync.WaitGroup
		var mu sync.Mutex
		absentWins, casWins := 0, 0
		var unexpected []error
		for i := range n {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, err := b.PutIfAbsent(ctx, "race/once", strings.NewReader(fmt.Sprint(i)))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					absentWins++
				case !errors.Is(err, blob.ErrPreconditionFailed):
					unexpected = append(unexpected, err)
				}
			}()
			go func() {
				defer wg.Done()
				_, err := b.CompareAndSwap(ctx, "race/ptr", base.ETag, strings.NewReader(fmt.Sprint(i)))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					casWins++
				case !errors.Is(err, blob.ErrPreconditionFailed):
					unexpected = append(unexpected, err)
				}
			}()
		}
		wg.Wait()
		if len(unexpected) > 0 {
			t.Fatalf("unexpected errors: %v", unexpected)
		}
		if absentWins != 1 || casWins != 1 {
			t.Fatalf("winners: PutIfAbsent %d, CompareAndSwap %d; want exactly 1 each of %d", absentWins, casWins, n)
		}
	})

	t.Run("ListOrder", func(t *testing.T) {
		keys := []string{"ls/b", "ls/a/c/d", "ls/a.b", "ls/a/b", "ls/a-b", "ls/a/a", "ls/ab", "lsx"}
		for _, k := range keys {
			mustPut(t)(b.Put(ctx, k, strings.NewReader(k)))
		}
		got := listKeys(t, ctx, b, "ls/")
		want := []string{"ls/a-b", "ls/a.b", "ls/a/a", "ls/a/b", "ls/a/c/d", "ls/ab", "ls/b"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("List(ls/) = %v\nwant %v", got, want)
		}
		if got := listKeys(t, ctx, b, "ls/a/"); strings.Join(got, " ") != "ls/a/a ls/a/b ls/a/c/d" {
			t.Fatalf("List(ls/a/) = %v", got)
		}
		if got := listKeys(t, ctx, b, "ls/a/c"); strings.Join(got, " ") != "ls/a/c/d" {
			t.Fatalf("List(ls/a/c) = %v", got)
		}
		if got := listKeys(t, ctx, b, "nothing-here/"); len(got) != 0 {
			t.Fatalf("List(nothing-here/) = %v", got)
		}
		stop := errors.New("stop")
		seen := 0
		err := b.Iter(ctx, "ls/", func(blob.ObjectInfo) error { seen++; return stop })
		if !errors.Is(err, stop) || seen != 1 {
			t.Fatalf("Iter did not stop on the callback's error: seen %d, err %v", seen, err)
		}
	})

	t.Run("Multipart20MiB", func(t *testing.T) {
		const size = 20<<20 + 3 // not a multiple of any part size
		data := make([]byte, size)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		want := sha256.Sum256(data)
		// A plain io.Reader (not a bytes.Reader), as a streamed upload would pass.
		info := mustPut(t)(b.Put(ctx, "big/blob.bin", io.MultiReader(bytes.NewReader(data[:1<<20]), bytes.NewReader(data[1<<20:]))))
		if info.Size != size {
			t.Fatalf("Put size = %d, want %d", info.Size, size)
		}
		r, err := b.Get(ctx, "big/blob.bin")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		h := sha256.New()
		n, err := io.Copy(h, r)
		if err != nil || n != size {
			t.Fatalf("read back %d bytes, err %v", n, err)
		}
		if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatal("20 MiB object came back different")
		}
		if _, err := b.PutIfAbsent(ctx, "big/blob.bin", bytes.NewReader(data)); !errors.Is(err, blob.ErrPreconditionFailed) {
			t.Fatalf("multipart PutIfAbsent over an existing key: err = %v, want ErrPreconditionFailed", err)
		}
		if err := b.Delete(ctx, "big/blob.bin"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("CancelledContext", func(t *testing.T) {
		cctx, ccancel := context.WithCancel(ctx)
		ccancel()
		if _, err := b.Put(cctx, "cancel/x", strings.NewReader("x")); err == nil {
			t.Fatal("Put with a cancelled context succeeded")
		}
	})
}

func mustPut(t *testing.T) func(blob.ObjectInfo, error) blob.ObjectInfo {
	return func(info blob.ObjectInfo, err error) blob.ObjectInfo {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
}

func mustRead(t *testing.T, ctx context.Context, b blob.Bucket, key string) string {
	t.Helper()
	data, err := blob.ReadAll(ctx, b, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func listKeys(t *testing.T, ctx context.Context, b blob.Bucket, prefix string) []string {
	t.Helper()
	objs, err := blob.List(ctx, b, prefix)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Key
	}
	return keys
}
