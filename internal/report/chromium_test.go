package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/asofrag/asof/internal/testchrome"
)

// TestRendersInHeadlessChromium opens the fixture report in headless Chromium: not blank (the
// page draws text, tables and coloured bars).
func TestRendersInHeadlessChromium(t *testing.T) {
	page := filepath.Join(t.TempDir(), "report.html")
	var buf bytes.Buffer
	if err := WriteEval(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := testchrome.Render(t, page); s.Ink < 2000 || s.Colour < 100 {
		t.Fatalf("%+v: the page rendered blank or without its charts", s)
	}
}
