package digest

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestRendersInHeadlessChromium opens the fixture digest in headless Chromium and checks it
// produced a full-size, non-blank screenshot with colour in it (charts, the error box).
// Chromium comes from Debian's apt in CI (.ci/run); the test skips where it is not
// installed.
func TestRendersInHeadlessChromium(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no Chromium on this machine (CI installs it with apt)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "digest.html")
	var buf bytes.Buffer
	if err := WriteHTML(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "digest.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1200,1800", "--screenshot="+shot, "file://"+page)
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
	if b.Dx() != 1200 || b.Dy() != 1800 {
		t.Fatalf("screenshot is %dx%d", b.Dx(), b.Dy())
	}
	// Not blank: the page draws text, cards and charts, so many pixels differ from the
	// top-left (background) pixel; and some are coloured, not grey: the bars, the dots, the
	// anchor line and the links.
	bg := img.At(0, 0)
	differ, colour := 0, 0
	for y := 0; y < b.Dy(); y += 5 {
		for x := 0; x < b.Dx(); x += 5 {
			c := img.At(x, y)
			if c == bg {
				continue
			}
			differ++
			r, g, bl, _ := c.RGBA()
			if max(r, g, bl)-min(r, g, bl) > 0x3000 {
				colour++
			}
		}
	}
	if differ < 2000 {
		t.Fatalf("only %d sampled pixels differ from the background: the page rendered blank", differ)
	}
	if colour < 100 {
		t.Errorf("only %d sampled pixels are coloured: the charts did not render", colour)
	}
	t.Logf("%d of %d sampled pixels are ink, %d coloured", differ, (b.Dx()/5+1)*(b.Dy()/5+1), colour)
}
