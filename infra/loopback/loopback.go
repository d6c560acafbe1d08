// Package loopback has the small network helpers every embedded server of asof shares: they
// all listen on 127.0.0.1 only, pick or check ports the same way, and wait for readiness the
// same way.
package loopback

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Host is the only interface asof's embedded servers bind to.
const Host = "127.0.0.1"

// FreePort asks the kernel for a free TCP port on Host.
func FreePort() (int, error) {
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
