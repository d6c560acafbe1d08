package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/demo"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/testchrome"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

var claimLine = regexp.MustCompile(`(?m)^- (\d{4}-\d{2}-\d{2}) — .*\[\d+\]$`)

// TestDemoAndScheduleWithModel runs `asof demo` on the embedded default, checks that every
// claim of its digest is dated no later than the anchor and cited, that no topic's answer has
// a defect a reader must never see (render.Defects), that nothing published
// after the anchor (the April rate cut) reaches any output, and that the HTML and JSON are
// written; then drives a daily digest schedule on the same embedded server: create, list,
// trigger (a run as of today), pause, delete.
func TestDemoAndScheduleWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "demo-out")
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	code, stdout, stderr := runCLI(t, nil, append([]string{"demo", "--out", out}, common...)...)
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, stdout, stderr)
	}
	anchor := demo.AnchorTime()
	for _, want := range []string{"# Digest demo", "## 1. Key rate", "## 4. Урожай", "Judge: heuristic", "**Key rate since January**", "### Then", "read as: window 2026-02-01..2026-02-28",
		// Documents that change, each read as of its day.
		"1 standing text in force on 2026-02-25; 1 text not yet in force left out", "1 standing text in force on 2026-03-31; 1 superseded text left out",
		"CBN Circular No. 9/2026: required reserves of banks _(in force from 2026-03-01)_", "_(version 2, edited on 2026-02-14)_"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	// As of 2026-02-25 the old circular is the one in force; as of the anchor the new one, and
	// the old is never served; the krona post is served in its edited version only.
	feb, mar := strings.Index(stdout, "# required reserves of banks"), strings.LastIndex(stdout, "# required reserves of banks")
	if feb < 0 || mar <= feb || !strings.Contains(stdout[feb:mar], "CBN Circular No. 3/2026") || strings.Contains(stdout[feb:mar], "| CBN Circular No. 9/2026") ||
		strings.Contains(stdout[mar:], "| CBN Circular No. 3/2026") {
		t.Errorf("the circulars are not read as of their days:\n%s", stdout[max(feb, 0):])
	}
	if strings.Contains(stdout, "rose 1.2%") && strings.Contains(stdout[strings.LastIndex(stdout, "# krona after the surprise rate hike"):], "rose 1.2%") {
		t.Error("the krona post is served in its first version as of the anchor, after it was edited")
	}
	claims := claimLine.FindAllStringSubmatch(stdout, -1)
	if len(claims) < 10 {
		t.Fatalf("only %d dated, cited claims in the demo output:\n%s", len(claims), stdout)
	}
	for _, c := range claims {
		if d, _ := time.Parse(time.DateOnly, c[1]); d.After(anchor) {
			t.Errorf("claim dated after the anchor: %s", c[0])
		}
	}
	for _, leak := range []string{"7.50%", "7,50%", "2026-04-"} {
		if strings.Contains(stdout, leak) {
			t.Errorf("%q (published after the anchor) reached the demo output", leak)
		}
	}
	var d schemas.Digest
	data, err := os.ReadFile(filepath.Join(out, "digest.json"))
	if err != nil || json.Unmarshal(data, &d) != nil || len(d.Topics) != 4 {
		t.Fatalf("digest.json: %v (%d topics)", err, len(d.Topics))
	}
	for _, tp := range d.Topics {
		if tp.Error != "" || len(tp.Sources) == 0 || tp.Judge.Method != "heuristic" {
			t.Errorf("topic %s: error %q, %d sources, judge %q", tp.Name, tp.Error, len(tp.Sources), tp.Judge.Method)
		}
		for _, d := range render.Defects(tp.Brief, tp.Sources) { // what a reader must never see
			t.Errorf("topic %s: %s", tp.Name, d)
		}
		for _, list := range [][]schemas.Claim{tp.Brief.New, tp.Brief.Timeline, tp.Brief.Then, tp.Brief.Now} {
			for _, c := range list {
				if len(c.Cites) == 0 || c.Date.After(anchor.Add(24*time.Hour-time.Nanosecond)) {
					t.Errorf("topic %s: claim %+v", tp.Name, c)
				}
			}
		}
	}
	if html, err := os.ReadFile(filepath.Join(out, "digest.html")); err != nil || !strings.Contains(string(html), "Lindholm") {
		t.Fatalf("digest.html: %v", err)
	}
	if testchrome.Available() {
		if s := testchrome.Render(t, filepath.Join(out, "digest.html")); s.Ink < 2000 || s.Colour < 100 {
			t.Fatalf("the demo's digest.html renders blank or without its charts: %+v", s)
		}
	}

	// A daily digest on a Temporal Schedule, on the same embedded server.
	cli := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, append(args, common...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
		return stdout
	}
	topics := filepath.Join(out, "topics.yaml")
	cli("schedule", "create", "--name", "morning", "--cron", "0 7 * * *", "--index", "demo", "--topics", topics, "--time-zone", "Europe/Moscow")
	listed := ""
	for range 50 { // the schedule list is eventually consistent
		if listed = cli("schedule", "list"); strings.Contains(listed, "morning") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(listed, "| morning | 0 7 * * * (Europe/Moscow) | active |") {
		t.Fatalf("schedule list:\n%s", listed)
	}
	if code, _, errOut := runCLI(t, nil, append([]string{"schedule", "create", "--name", "morning", "--cron", "0 7 * * *", "--index", "demo", "--topics", topics}, common...)...); code == 0 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("a second create: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, nil, append([]string{"schedule", "create", "--name", "Morning!", "--cron", "0 7 * * *", "--index", "demo", "--topics", topics}, common...)...); code == 0 || !strings.Contains(errOut, "--name") {
		t.Fatalf("a bad name: exit %d %s", code, errOut)
	}
	trig := filepath.Join(dir, "triggered")
	digestMD := cli("schedule", "trigger", "morning", "--out", trig)
	if !strings.Contains(digestMD, "# Digest morning — index demo, as of 20") {
		t.Fatalf("triggered digest:\n%s", digestMD)
	}
	if _, err := os.Stat(filepath.Join(trig, "digest.html")); err != nil {
		t.Fatal(err)
	}
	cli("schedule", "pause", "morning", "--note", "holiday")
	if l := cli("schedule", "list"); !strings.Contains(l, "| paused |") || !strings.Contains(l, "holiday") || strings.Contains(l, "| never |") {
		t.Fatalf("after pause and a triggered run:\n%s", l)
	}
	cli("schedule", "delete", "morning")
	if code, _, errOut := runCLI(t, nil, append([]string{"schedule", "trigger", "morning"}, common...)...); code == 0 || !strings.Contains(errOut, `no schedule named "morning"`) {
		t.Fatalf("trigger after delete: exit %d %s", code, errOut)
	}
}
