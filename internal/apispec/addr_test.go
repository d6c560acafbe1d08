package apispec

import "testing"

func TestLoopback(t *testing.T) {
	tests := []struct {
		name, addr string
		want, err  bool
	}{
		{name: "ipv4 loopback", addr: "127.0.0.1:8080", want: true},
		{name: "another 127 address", addr: "127.0.0.2:0", want: true},
		{name: "ipv6 loopback", addr: "[::1]:8080", want: true},
		{name: "localhost", addr: "localhost:8080", want: true},
		{name: "every interface", addr: ":8080"},
		{name: "every ipv4 interface", addr: "0.0.0.0:8080"},
		{name: "every ipv6 interface", addr: "[::]:8080"},
		{name: "a LAN address", addr: "192.168.1.5:8080"},
		{name: "a host name", addr: "example.org:8080"},
		{name: "no port", addr: "127.0.0.1", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Loopback(tc.addr)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("Loopback(%q) = %v, %v; want %v, error %v", tc.addr, got, err, tc.want, tc.err)
			}
		})
	}
}
