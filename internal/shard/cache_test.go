package shard

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func TestCache(t *testing.T) {
	ctx := context.Background()
	var closed []string
	loads := map[string]int{}
	loader := func(id string, size int64) func(context.Context) (Loaded[string], error) {
		return func(context.Context) (Loaded[string], error) {
			loads[id]++
			return Loaded[string]{Value: "shard " + id, Size: size, Close: func() error { closed = append(closed, id); return nil }}, nil
		}
	}
	c := NewCache[string](100)
	get := func(id string) func() {
		t.Helper()
		v, release, err := c.Get(ctx, id, loader(id, 40))
		if err != nil || v != "shard "+id {
			t.Fatalf("get %s: %q %v", id, v, err)
		}
		return release
	}
	get("a")()
	get("b")()
	get("a")() // a is now the most recent
	get("c")() // 120 bytes > 100: evicts b, the least recently used
	if len(closed) != 1 || closed[0] != "b" {
		t.Fatalf("closed %v, want [b]", closed)
	}
	if loads["a"] != 1 {
		t.Fatalf("a loaded %d times", loads["a"])
	}
	held := get("a") // held: never evicted
	get("d")()
	get("e")()
	if s := c.Stats(); s.Bytes > 100+40 {
		t.Fatalf("cache holds %d bytes", s.Bytes)
	}
	for _, id := range closed {
		if id == "a" {
			t.Fatal("a held shard was closed")
		}
	}
	held()
	held() // releasing twice is harmless
	s := c.Stats()
	if s.Hits != 2 || s.Misses != 5 || s.Evictions != 3 || s.Bytes > 100 {
		t.Fatalf("stats %+v", s)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCacheLoadsOnceAndRetriesFailures(t *testing.T) {
	ctx := context.Background()
	c := NewCache[int](1 << 20)
	var n atomic.Int32
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, release, err := c.Get(ctx, "x", func(context.Context) (Loaded[int], error) {
				n.Add(1)
				<-gate
				return Loaded[int]{Value: 7, Size: 1}, nil
			})
			if err != nil || v != 7 {
				t.Errorf("got %d %v", v, err)
				return
			}
			release()
		}()
	}
	close(gate)
	wg.Wait()
	if n.Load() != 1 {
		t.Fatalf("loaded %d times, want once", n.Load())
	}
	boom := errors.New("boom")
	if _, _, err := c.Get(ctx, "y", func(context.Context) (Loaded[int], error) { return Loaded[int]{}, boom }); !errors.Is(err, boom) {
		t.Fatalf("failed load: %v", err)
	}
	v, release, err := c.Get(ctx, "y", func(context.Context) (Loaded[int], error) { return Loaded[int]{Value: 9, Size: 1}, nil })
	if err != nil || v != 9 {
		t.Fatalf("retry after a failure: %d %v", v, err)
	}
	release()
}

// TestCacheLoadOutlivesACancelledCaller cancels the caller that started a shared load while
// the load runs: that caller gets its own ctx.Err(), the load goes on, and the caller waiting
// beside it still gets the shard.
func TestCacheLoadOutlivesACancelledCaller(t *testing.T) {
	c := NewCache[int](1 << 20)
	started, gate := make(chan struct{}), make(chan struct{})
	load := func(ctx context.Context) (Loaded[int], error) {
		close(started)
		select {
		case <-gate:
			return Loaded[int]{Value: 7, Size: 1}, nil
		case <-ctx.Done():
			return Loaded[int]{}, ctx.Err()
		}
	}
	first, cancel := context.WithCancel(context.Background())
	firstErr := make(chan error, 1)
	go func() {
		_, _, err := c.Get(first, "x", load)
		firstErr <- err
	}()
	<-started
	type got struct {
		v       int
		release func()
		err     error
	}
	second := make(chan got, 1)
	go func() {
		v, release, err := c.Get(context.Background(), "x", func(context.Context) (Loaded[int], error) {
			t.Error("the second caller loaded the shard again")
			return Loaded[int]{}, errors.New("second load")
		})
		second <- got{v, release, err}
	}()
	for c.Stats().Hits == 0 { // the second caller is waiting on the load
		runtime.Gosched()
	}
	cancel()
	if err := <-firstErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: err = %v, want context.Canceled", err)
	}
	close(gate)
	g := <-second
	if g.err != nil || g.v != 7 {
		t.Fatalf("waiting caller: %d %v, want the shard", g.v, g.err)
	}
	g.release()
	if s := c.Stats(); s.Misses != 1 || s.Entries != 1 {
		t.Fatalf("stats %+v, want one load, cached", s)
	}
}

// TestCacheCloseWaitsForHolders: Close closes the shards nobody holds at once and a held one
// when its holder releases it, never under it (closing unmaps files a search may be reading:
// a stopping worker's abandoned activity once crashed the process this way).
func TestCacheCloseWaitsForHolders(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var closed []string
	loader := func(id string) func(context.Context) (Loaded[string], error) {
		return func(context.Context) (Loaded[string], error) {
			return Loaded[string]{Value: id, Size: 1, Close: func() error { mu.Lock(); closed = append(closed, id); mu.Unlock(); return nil }}, nil
		}
	}
	c := NewCache[string](100)
	_, free, err := c.Get(ctx, "free", loader("free"))
	if err != nil {
		t.Fatal(err)
	}
	free()
	_, held, err := c.Get(ctx, "held", loader("held"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(closed) != 1 || closed[0] != "free" {
		t.Fatalf("after Close: closed %v, want [free] (held is still in use)", closed)
	}
	mu.Unlock()
	held()
	held()
	mu.Lock()
	defer mu.Unlock()
	if len(closed) != 2 || closed[1] != "held" {
		t.Fatalf("after the holder released: closed %v, want [free held], each once", closed)
	}
}
