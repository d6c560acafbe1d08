package modelcache_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/modelcache"
	"github.com/asofrag/asof/schemas"
)

// fake is an embedder that counts its Close calls and refuses work once closed, as
// embed.Hugot does (ErrClosed).
type fake struct {
	id     string
	closes atomic.Int32
}

func (f *fake) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	if f.closes.Load() > 0 {
		return nil, embed.ErrClosed
	}
	return make([][]float32, len(texts)), nil
}
func (f *fake) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return f.EmbedQueries(ctx, texts)
}
func (f *fake) Dim() int         { return 384 }
func (f *fake) ModelID() string  { return f.id }
func (f *fake) Close() error     { f.closes.Add(1); return nil }
func (f *fake) closedTimes() int { return int(f.closes.Load()) }
func (f *fake) usable() bool {
	_, err := f.EmbedQueries(context.Background(), []string{"q"})
	return err == nil
}
func ref(id string) schemas.ModelRef { return schemas.ModelRef{ID: id, SHA256: "sha-" + id, Dim: 384} }

// loader loads fakes and remembers each one it made, in order.
type loader struct {
	mu    sync.Mutex
	made  []*fake
	loads map[string]int
	gate  chan struct{} // when set, every load waits for it to close
	fail  map[string]error
}

func newLoader() *loader { return &loader{loads: map[string]int{}, fail: map[string]error{}} }

func (l *loader) load(id string) (embed.Embedder, schemas.ModelRef, error) {
	if l.gate != nil {
		<-l.gate
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loads[id]++
	if err := l.fail[id]; err != nil {
		delete(l.fail, id) // fails once
		return nil, schemas.ModelRef{}, err
	}
	f := &fake{id: id}
	l.made = append(l.made, f)
	return f, ref(id), nil
}

func (l *loader) count(id string) int { l.mu.Lock(); defer l.mu.Unlock(); return l.loads[id] }

// acquire takes model id from c or fails t.
func acquire(t *testing.T, c *modelcache.Cache, id string) (*fake, func()) {
	t.Helper()
	e, r, release, err := c.Acquire(context.Background(), id)
	if err != nil {
		t.Fatalf("acquire %s: %v", id, err)
	}
	if r != ref(id) || e.ModelID() != id {
		t.Fatalf("acquire %s: got %s, ref %+v", id, e.ModelID(), r)
	}
	return e.(*fake), release
}

// TestLoadsOnceUnderConcurrency: callers that ask for a model while it loads share that one
// load and get the same embedder.
func TestLoadsOnceUnderConcurrency(t *testing.T) {
	l := newLoader()
	l.gate = make(chan struct{})
	c := modelcache.New(2, l.load)
	defer c.Close()
	const callers = 16
	got := make([]embed.Embedder, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, _, release, err := c.Acquire(context.Background(), "m")
			got[i], errs[i] = e, err
			if err == nil {
				release()
			}
		}()
	}
	// Every caller is inside Acquire (a hit waits for the load in flight) before it finishes.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if s := c.Stats(); s.Hits+s.Misses == callers {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("callers did not all arrive: %+v", c.Stats())
		}
		time.Sleep(time.Millisecond)
	}
	close(l.gate)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || got[i] != got[0] {
			t.Fatalf("caller %d: %v, %p against %p", i, errs[i], got[i], got[0])
		}
	}
	if n := l.count("m"); n != 1 {
		t.Fatalf("m loaded %d times, want once", n)
	}
	if s := c.Stats(); s.Misses != 1 || s.Hits != callers-1 || s.Entries != 1 {
		t.Fatalf("stats %+v", s)
	}
}

// TestKeepsAtMostKeep: with keep 2, a third model closes the least recently used one nobody
// uses, which loads again when asked for; a model in use is never closed, however many others
// load meanwhile.
func TestKeepsAtMostKeep(t *testing.T) {
	l := newLoader()
	c := modelcache.New(2, l.load)
	defer c.Close()
	a, release := acquire(t, c, "a")
	release()
	_, release = acquire(t, c, "b")
	release()
	_, release = acquire(t, c, "a") // a is the most recent now
	release()
	_, release = acquire(t, c, "c") // a third: b goes
	release()
	b := l.made[1]
	if b.closedTimes() != 1 || a.closedTimes() != 0 || c.Stats().Entries != 2 {
		t.Fatalf("after c: b closed %d, a closed %d, %+v; want b closed, 2 kept", b.closedTimes(), a.closedTimes(), c.Stats())
	}
	if l.count("a") != 1 {
		t.Fatalf("a loaded %d times while kept", l.count("a"))
	}
	held, releaseHeld := acquire(t, c, "b") // loads again
	if l.count("b") != 2 || held == b {
		t.Fatalf("b loaded %d times, want 2 (a new embedder)", l.count("b"))
	}
	for _, id := range []string{"d", "e", "f"} {
		_, release := acquire(t, c, id)
		release()
	}
	if held.closedTimes() != 0 || !held.usable() {
		t.Fatal("a model in use was closed")
	}
	if s := c.Stats(); s.Entries > 3 { // the 2 kept and the one in use
		t.Fatalf("%d models loaded, want at most 3: %+v", s.Entries, s)
	}
	releaseHeld()
	releaseHeld() // twice is harmless
	if s := c.Stats(); s.Entries != 2 {
		t.Fatalf("%d models loaded once nothing is in use, want 2: %+v", s.Entries, s)
	}
	for _, f := range l.made {
		if f.closedTimes() > 1 {
			t.Fatalf("%s closed %d times", f.id, f.closedTimes())
		}
	}
}

// TestFailedLoadIsTriedAgain: a load that fails (a model not pulled yet) is not remembered.
func TestFailedLoadIsTriedAgain(t *testing.T) {
	l := newLoader()
	notPulled := errors.New("model not pulled: x")
	l.fail["x"] = notPulled
	c := modelcache.New(1, l.load)
	defer c.Close()
	if _, _, _, err := c.Acquire(context.Background(), "x"); !errors.Is(err, notPulled) {
		t.Fatalf("first acquire: %v, want the load's error", err)
	}
	_, release := acquire(t, c, "x")
	release()
	if l.count("x") != 2 {
		t.Fatalf("x loaded %d times, want 2", l.count("x"))
	}
}

// TestCloseFreesEveryModel: Close closes the models nobody uses at once and one in use when its
// caller releases it (embed.Hugot.Close would wait for its calls anyway), each once; Acquire
// fails afterwards.
func TestCloseFreesEveryModel(t *testing.T) {
	l := newLoader()
	c := modelcache.New(2, l.load)
	idle, release := acquire(t, c, "idle")
	release()
	busy, releaseBusy := acquire(t, c, "busy")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if idle.closedTimes() != 1 || busy.closedTimes() != 0 || !busy.usable() {
		t.Fatalf("after Close: idle closed %d, busy closed %d; want 1 and 0 (busy in use)", idle.closedTimes(), busy.closedTimes())
	}
	releaseBusy()
	if busy.closedTimes() != 1 {
		t.Fatalf("busy closed %d times after its release, want once", busy.closedTimes())
	}
	if _, _, _, err := c.Acquire(context.Background(), "idle"); !errors.Is(err, modelcache.ErrClosed) {
		t.Fatalf("acquire after Close: %v, want ErrClosed", err)
	}
}
