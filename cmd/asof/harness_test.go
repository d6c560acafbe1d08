package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestBrokenChildNamesItsTest: a test that fails while a process it started is running names
// itself and shows that child's last lines, in go test's quiet output (as make test runs it).
// It runs TestHelperBrokenChild in a second test process and reads what that process printed.
func TestBrokenChildNamesItsTest(t *testing.T) {
	if os.Getenv("ASOF_TEST_BROKEN") == "1" {
		t.Skip("inside the helper run")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperBrokenChild$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "ASOF_TEST_BROKEN=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the helper run passed; it must fail:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestHelperBrokenChild",
		"deliberately broken while its child runs",
		"last lines of child",
		"chatter line 3",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the failing run's output lacks %q:\n%s", want, out)
		}
	}
}

// TestHelperBrokenChild fails on purpose with a child running; it runs only inside
// TestBrokenChildNamesItsTest.
func TestHelperBrokenChild(t *testing.T) {
	if os.Getenv("ASOF_TEST_BROKEN") != "1" {
		t.Skip("run by TestBrokenChildNamesItsTest")
	}
	p := startProc(t, []string{"ASOF_TEST_CHATTER=1"})
	p.waitFor(t, regexp.MustCompile(`chatter line 3`))
	t.Fatal("deliberately broken while its child runs")
}
