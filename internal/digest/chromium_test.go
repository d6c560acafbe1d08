package digest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/asofrag/asof/internal/testchrome"
)

// TestRendersInHeadlessChromium opens the fixture digest in headless Chromium: not blank (the
// page draws text, cards and charts), and coloured (the bars, the dots, the anchor line and
// the links).
func TestRendersInHeadlessChromium(t *testing.T) {
	page := filepath.Join(t.TempDir(), "digest.html")
	var buf bytes.Buffer
	if err := WriteHTML(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := testchrome.Render(t, page)
	if s.Ink < 2000 {
		t.Fatalf("only %d sampled pixels differ from the background: the page rendered blank", s.Ink)
	}
	if s.Colour < 100 {
		t.Errorf("only %d sampled pixels are coloured: the charts did not render", s.Colour)
	}
}
