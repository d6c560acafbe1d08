package metrics

import (
	"net"
	"strings"
)

// Exposed says where beyond this machine a listen address (host:port) can be reached: "" for
// a loopback address (127.0.0.0/8, ::1, localhost), else a phrase for a warning: "every
// network interface" for an empty host, 0.0.0.0 or ::, "the address H, which is not
// loopback" for anything else (an interface's IP, or a name that may resolve to one).
func Exposed(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return ""
	}
	ip := net.ParseIP(host)
	switch {
	case host == "" || (ip != nil && ip.IsUnspecified()):
		return "every network interface"
	case ip != nil && ip.IsLoopback():
		return ""
	}
	return "the address " + host + ", which is not loopback"
}
