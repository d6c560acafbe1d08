package loopback

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	busy, err := net.Listen("tcp", Addr(0))
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	free, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		port, def int
		want      int // 0: any free port
		wantErr   bool
	}{
		{"default", 0, free, free, false},
		{"explicit", free, 1, free, false},
		{"pick free", -1, busyPort, 0, false},
		{"busy", busyPort, 1, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.port, tt.def)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if (tt.want != 0 && got != tt.want) || got == busyPort || got <= 0 {
				t.Fatalf("port = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestWaitHTTP(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	if err := WaitHTTP(context.Background(), srv.URL, 5*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Fatalf("ready after %d calls, want 3", calls.Load())
	}

	stopped := make(chan error, 1)
	stopped <- errors.New("bind failed")
	err := WaitHTTP(context.Background(), "http://"+Addr(1), 5*time.Second, stopped)
	if err == nil || !strings.Contains(err.Error(), "bind failed") {
		t.Fatalf("err = %v, want the server's own error", err)
	}
	if err := WaitHTTP(context.Background(), "http://"+Addr(1), 200*time.Millisecond, nil); err == nil {
		t.Fatal("no error for a server that never answers")
	}
}

func TestPortWindow(t *testing.T) {
	tests := []struct {
		name   string
		ephLow int
		lo, hi int
	}{
		{"linux default", 32768, 20000, 32768},
		{"range starts higher (macOS, Windows)", 49152, 20000, 32768},
		{"range starts lower, window still large", 28000, 20000, 28000},
		{"range starts too low: no window", 20500, 20000, 20000},
		{"whole port space ephemeral: no window", 1024, 20000, 20000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := portWindow(tt.ephLow)
			if lo != tt.lo || hi != tt.hi {
				t.Fatalf("portWindow(%d) = [%d, %d), want [%d, %d)", tt.ephLow, lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

// FreePort never hands out a port of the ephemeral range where a window below it exists,
// never the same port twice in a row of calls, and skips a port something listens on.
func TestFreePortAvoidsEphemeralAndBusyPorts(t *testing.T) {
	lo, hi := portWindow(ephemeralLow())
	if hi == lo {
		t.Skipf("the ephemeral range starts at %d: no window below it, FreePort asks the kernel", ephemeralLow())
	}
	seen := map[int]bool{}
	for range 200 {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if p < lo || p >= hi {
			t.Fatalf("FreePort() = %d, outside [%d, %d) below the ephemeral range", p, lo, hi)
		}
		if seen[p] {
			t.Fatalf("FreePort() handed out %d twice in 200 calls", p)
		}
		seen[p] = true
	}
	// Hold the next port FreePort would try; it must move past it.
	picker.Lock()
	next := picker.next
	picker.Unlock()
	busy, err := net.Listen("tcp", Addr(next))
	if err != nil {
		t.Skipf("port %d is not free to hold: %v", next, err)
	}
	defer busy.Close()
	p, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if p == next {
		t.Fatalf("FreePort() = %d, which a listener holds", p)
	}
}
