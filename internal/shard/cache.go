package shard

import (
	"container/list"
	"context"
	"fmt"
	"os"
	"sync"
	"time"
)

// Loaded is a shard in memory: whatever the loader built, its size in bytes (for the budget)
// and how to release it (close files, remove its folder).
type Loaded[T any] struct {
	Value T
	Size  int64
	Close func() error
}

// Cache keeps loaded shards, keyed by shard id (ids are content hashes, so an entry never goes
// stale), within a byte budget: the least recently used entries that nobody holds are closed
// first. Concurrent requests for one shard load it once. The zero value is not usable; use
// NewCache.
type Cache[T any] struct {
	// LoadTimeout bounds one load (zero: DefaultLoadTimeout). Set it before the first Get.
	LoadTimeout time.Duration

	budget int64

	mu      sync.Mutex
	closed  bool // Close ran: a shard is closed as soon as nobody holds it
	entries map[string]*entry[T]
	lru     *list.List // front: most recent; holds *entry
	used    int64
	stats   CacheStats
}

type entry[T any] struct {
	id    string
	val   Loaded[T]
	refs  int
	elem  *list.Element
	ready chan struct{} // closed when loading finished
	err   error
}

// CacheStats count what the cache did.
type CacheStats struct {
	Hits, Misses, Evictions int64
	// Bytes is the size of the shards held now; Entries how many.
	Bytes   int64
	Entries int
}

// NewCache returns a cache that holds up to budget bytes of shards no caller is using (shards
// in use are never evicted, so the total can exceed the budget while they are held).
func NewCache[T any](budget int64) *Cache[T] {
	return &Cache[T]{budget: budget, entries: map[string]*entry[T]{}, lru: list.New()}
}

// DefaultLoadTimeout bounds one shard load when Cache.LoadTimeout is zero.
const DefaultLoadTimeout = 15 * time.Minute

// Get returns shard id, loading it with load on a miss; call release when done with it.
//
// A load is shared by every caller that asks for the shard while it runs, so it does not run
// on any one caller's context: it gets ctx's values without its cancellation, bounded by
// LoadTimeout. A caller whose ctx ends first returns ctx.Err() and leaves the load running
// for the others (the shard then stays cached, unheld).
func (c *Cache[T]) Get(ctx context.Context, id string, load func(context.Context) (Loaded[T], error)) (T, func(), error) {
	var zero T
	c.mu.Lock()
	e, ok := c.entries[id]
	if ok {
		c.stats.Hits++
	} else {
		e = &entry[T]{id: id, ready: make(chan struct{})}
		e.elem = c.lru.PushFront(e)
		c.entries[id] = e
		c.stats.Misses++
		go c.load(context.WithoutCancel(ctx), e, load)
	}
	e.refs++
	c.mu.Unlock()
	select {
	case <-e.ready:
	case <-ctx.Done():
		c.release(e)
		c.evict()
		return zero, nil, ctx.Err()
	}
	if e.err != nil {
		c.release(e)
		return zero, nil, e.err
	}
	c.mu.Lock()
	c.lru.MoveToFront(e.elem)
	c.mu.Unlock()
	c.evict() // e is held, so it stays
	return e.val.Value, c.releaser(e), nil
}

// load runs a shared load for entry e and publishes its outcome to the waiters.
func (c *Cache[T]) load(ctx context.Context, e *entry[T], load func(context.Context) (Loaded[T], error)) {
	timeout := c.LoadTimeout
	if timeout <= 0 {
		timeout = DefaultLoadTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	val, err := func() (val Loaded[T], err error) {
		defer func() { // a panic here would end the process: no caller's goroutine runs the load
			if r := recover(); r != nil {
				err = fmt.Errorf("load shard %s: panic: %v", e.id, r)
			}
		}()
		return load(ctx)
	}()
	c.mu.Lock()
	e.val, e.err = val, err
	if err == nil && c.closed && e.refs == 0 { // loaded after Close, for nobody: close it now
		close(e.ready)
		c.mu.Unlock()
		closeEntry(e)
		return
	}
	if err != nil {
		// Forget a failed load so the next caller tries again.
		if c.entries[e.id] == e {
			delete(c.entries, e.id)
		}
		c.lru.Remove(e.elem)
	} else {
		c.used += val.Size
	}
	close(e.ready)
	c.mu.Unlock()
	// No eviction here: it runs in the callers' goroutines (Get, release), so a caller sees the
	// cache within its budget when Get returns. A load every caller abandoned is evicted by the
	// next Get or release.
}

func (c *Cache[T]) releaser(e *entry[T]) func() {
	var once sync.Once
	return func() { once.Do(func() { c.release(e); c.evict() }) }
}

func (c *Cache[T]) release(e *entry[T]) {
	c.mu.Lock()
	e.refs--
	last := c.closed && e.refs == 0 && e.loaded()
	c.mu.Unlock()
	if last { // Close left it open for its holder
		closeEntry(e)
	}
}

// loaded reports whether e finished loading without error.
func (e *entry[T]) loaded() bool {
	select {
	case <-e.ready:
		return e.err == nil
	default:
		return false
	}
}

// closeEntry closes e's shard, reporting a failure on stderr (nobody is left to return it to).
func closeEntry[T any](e *entry[T]) {
	if e.val.Close != nil {
		if err := e.val.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "asof: closing cached shard %s: %v\n", e.id, err)
		}
	}
}

// evict closes least recently used, unheld shards until the cache fits its budget.
func (c *Cache[T]) evict() {
	var victims []*entry[T]
	c.mu.Lock()
	for el := c.lru.Back(); el != nil && c.used > c.budget; {
		e := el.Value.(*entry[T])
		prev := el.Prev()
		select {
		case <-e.ready:
			if e.refs == 0 && e.err == nil {
				c.lru.Remove(el)
				delete(c.entries, e.id)
				c.used -= e.val.Size
				c.stats.Evictions++
				victims = append(victims, e)
			}
		default: // still loading
		}
		el = prev
	}
	c.mu.Unlock()
	for _, e := range victims {
		if e.val.Close != nil {
			if err := e.val.Close(); err != nil {
				fmt.Fprintf(os.Stderr, "asof: closing cached shard %s: %v\n", e.id, err)
			}
		}
	}
}

// Stats reports the cache's counters.
func (c *Cache[T]) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Bytes, s.Entries = c.used, len(c.entries)
	return s
}

// Close releases every shard; the cache must not be used afterwards. A shard that a caller
// still holds (an activity a stopping worker abandoned, still searching) is closed when that
// caller releases it, never under it: closing unmaps the shard's files.
func (c *Cache[T]) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var first error
	for id, e := range c.entries {
		if !e.loaded() || e.refs > 0 {
			continue // a load in flight or a holder closes it (load, release)
		}
		if e.val.Close != nil {
			if err := e.val.Close(); err != nil && first == nil {
				first = err
			}
		}
		delete(c.entries, id)
	}
	c.lru.Init()
	c.used = 0
	return first
}
