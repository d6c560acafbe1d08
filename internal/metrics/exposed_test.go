package metrics

import "testing"

func TestExposed(t *testing.T) {
	tests := []struct{ name, addr, want string }{
		{"ipv4 loopback", "127.0.0.1:9464", ""},
		{"other loopback", "127.0.0.2:9464", ""},
		{"ipv6 loopback", "[::1]:9464", ""},
		{"localhost", "localhost:9464", ""},
		{"every interface", ":9464", "every network interface"},
		{"ipv4 unspecified", "0.0.0.0:9464", "every network interface"},
		{"ipv6 unspecified", "[::]:9464", "every network interface"},
		{"pod ip", "10.1.2.3:9464", "the address 10.1.2.3, which is not loopback"},
		{"host name", "metrics.internal:9464", "the address metrics.internal, which is not loopback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Exposed(tt.addr); got != tt.want {
				t.Errorf("Exposed(%q) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
}
