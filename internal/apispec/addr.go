package apispec

import (
	"fmt"
	"net"
)

// Loopback reports whether the listen address addr (host:port) binds only the loopback
// interface: 127.0.0.0/8, ::1 or localhost. An empty host, 0.0.0.0, :: and every other name
// bind further (asof serve then requires a token).
func Loopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("listen address %q: %w (use host:port, e.g. 127.0.0.1:8080)", addr, err)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}
