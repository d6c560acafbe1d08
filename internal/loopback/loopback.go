// Package loopback has the small network helpers every embedded server of asof shares: they
// all listen on 127.0.0.1 only, pick or check ports the same way, and wait for readiness the
// same way.
package loopback

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Host is the only interface asof's embedded servers bind to.
const Host = "127.0.0.1"

// FreePort picks a TCP port on Host that nothing listens on now, for a server that binds it
// later (the embedded Temporal server's services take port numbers, not listeners).
//
// It picks below the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range),
// never from it. A port the kernel hands to a port-0 listener is one of the ports every
// outgoing connection draws from, so between our check and the server's bind any connection on
// the machine may take it, and the embedded Temporal server then ends the process ("bind:
// address already in use", seen under load). Below the range only another listener that names
// the port can. Each process walks the window from its own start (derived from its pid), so
// servers started at once by parallel test processes do not try the same ports. When the window
// is too small (an ephemeral range starting below 21000) it falls back to the kernel's choice.
func FreePort() (int, error) {
	picker.Lock()
	defer picker.Unlock()
	if picker.lo == 0 {
		picker.lo, picker.hi = portWindow(ephemeralLow())
		if picker.hi > picker.lo {
			picker.next = picker.lo + (os.Getpid()*7919)%(picker.hi-picker.lo)
		}
	}
	for range min(picker.hi-picker.lo, 2000) {
		p := picker.next
		if picker.next++; picker.next >= picker.hi {
			picker.next = picker.lo
		}
		if l, err := net.Listen("tcp", Addr(p)); err == nil {
			return p, l.Close()
		}
	}
	return kernelPort()
}

// picker is FreePort's walk over its window [lo, hi).
var picker struct {
	sync.Mutex
	lo, hi, next int
}

// Below the window's top (32768, or the ephemeral range's start when lower) FreePort uses the
// ports from windowBottom up; a window smaller than windowMin is not used. 32767 is also the
// largest port Temporal's SQL schemas store (membership ports are smallint).
const (
	windowBottom = 20000
	windowTop    = 32768
	windowMin    = 1000
)

// portWindow is the range FreePort picks from when the kernel's ephemeral ports start at
// ephLow: [windowBottom, min(ephLow, windowTop)), or lo == hi (empty) when that is too small.
func portWindow(ephLow int) (lo, hi int) {
	hi = min(ephLow, windowTop)
	if hi-windowBottom < windowMin {
		return windowBottom, windowBottom
	}
	return windowBottom, hi
}

// ephemeralLow is the first port of the kernel's ephemeral range, or windowTop where it cannot
// be read (not Linux): the other systems' ranges start above it (macOS and Windows: 49152).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return windowTop
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return windowTop
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return windowTop
	}
	return n
}

// kernelPort asks the kernel for a free port (from its ephemeral range).
func kernelPort() (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(Host, "0"))
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Resolve turns a configured port into a concrete one: 0 means def, a negative value a free
// port. It then checks that nothing listens there yet.
func Resolve(port, def int) (int, error) {
	switch {
	case port == 0:
		port = def
	case port < 0:
		p, err := FreePort()
		if err != nil {
			return 0, err
		}
		port = p
	}
	l, err := net.Listen("tcp", Addr(port))
	if err != nil {
		return 0, err
	}
	return port, l.Close()
}

// Addr is Host:port.
func Addr(port int) string { return net.JoinHostPort(Host, strconv.Itoa(port)) }

// WaitHTTP polls url until it answers 200 OK, ctx ends, timeout passes, or stopped yields a
// value (the server gave up starting).
func WaitHTTP(ctx context.Context, url string, timeout time.Duration, stopped <-chan error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer within %s", url, timeout)
		case err := <-stopped:
			return fmt.Errorf("server stopped while starting: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
