package vecindex

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCPUVendor checks cpuid0's registers and their order against the kernel's own reading of
// CPUID (/proc/cpuinfo's vendor_id, where there is one), and that only an Intel CPU prefetches
// in the float32 AVX-512 scan.
func TestCPUVendor(t *testing.T) {
	v := cpuVendor()
	if !regexp.MustCompile(`^[ -~]{12}$`).MatchString(v) {
		t.Fatalf("cpuVendor() = %q, want 12 printable characters", v)
	}
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		// the whole line: some vendors' strings hold spaces ("  Shanghai  ")
		if m := regexp.MustCompile(`(?m)^vendor_id\s*:(.*)$`).FindSubmatch(info); m != nil && strings.TrimSpace(string(m[1])) != strings.TrimSpace(v) {
			t.Fatalf("cpuVendor() = %q, /proc/cpuinfo says %q", v, m[1])
		}
	}
	if want := v == "GenuineIntel"; (floatAhead > 0) != want {
		t.Fatalf("vendor %q: floatAhead %d", v, floatAhead)
	}
	t.Logf("vendor %s, floatAhead %d", v, floatAhead)
}
