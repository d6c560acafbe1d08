// Package testchrome checks in tests that an HTML page renders: it opens the page in headless
// Chromium, takes a screenshot and counts the sampled pixels that are ink (differ from the
// background) and coloured (not grey). Chromium comes from Debian's apt in CI (.ci/run); the
// tests skip where it is not installed.
package testchrome

import (
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Width and Height are the screenshot's size.
const (
	Width  = 1200
	Height = 1800
)

// Stats counts a screenshot's sampled pixels (every 5th in both directions).
type Stats struct {
	Sampled, Ink, Colour int
}

// binary is the first Chromium found on PATH, or "".
func binary() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Available reports whether a Chromium is installed (Render skips without one).
func Available() bool { return binary() != "" }

// Render opens the HTML file page in headless Chromium and returns what its first screen
// holds. It skips the test when no Chromium is installed and fails it when Chromium fails or
// the screenshot is not Width×Height.
func Render(t testing.TB, page string) Stats {
	t.Helper()
	bin := binary()
	if bin == "" {
		t.Skip("no Chromium on this machine (CI installs it with apt)")
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	shot := filepath.Join(dir, "page.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1200,1800", "--screenshot="+shot, "file://"+abs)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() != Width || b.Dy() != Height {
		t.Fatalf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), Width, Height)
	}
	bg := img.At(0, 0)
	var s Stats
	for y := 0; y < b.Dy(); y += 5 {
		for x := 0; x < b.Dx(); x += 5 {
			s.Sampled++
			c := img.At(x, y)
			if c == bg {
				continue
			}
			s.Ink++
			r, g, bl, _ := c.RGBA()
			if max(r, g, bl)-min(r, g, bl) > 0x3000 {
				s.Colour++
			}
		}
	}
	t.Logf("%s: %d of %d sampled pixels are ink, %d coloured", filepath.Base(page), s.Ink, s.Sampled, s.Colour)
	return s
}

// DumpDOM loads url in headless Chromium, lets its scripts run for up to budget of virtual
// time (which waits while requests are pending), and returns the DOM as HTML. It skips the
// test when no Chromium is installed.
func DumpDOM(t testing.TB, url string, budget time.Duration) string {
	t.Helper()
	bin := binary()
	if bin == "" {
		t.Skip("no Chromium on this machine (CI installs it with apt)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget+60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+filepath.Join(t.TempDir(), "profile"),
		"--virtual-time-budget="+strconv.FormatInt(budget.Milliseconds(), 10), "--dump-dom", url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom %s: %v\n%s", url, err, stderr.String())
	}
	return string(out)
}
