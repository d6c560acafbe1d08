package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// storedDigest is one day's digest as the Digest workflow writes it: its three files.
type storedDigest struct{ json, markdown, html []byte }

// putDigest writes d under digests/<name>/<day>/ as the Digest workflow does (JSON, the
// Markdown and the HTML page of internal/digest) and returns what it wrote.
func putDigest(t *testing.T, b blob.Bucket, d schemas.Digest) storedDigest {
	t.Helper()
	js, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := digest.WriteHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	s := storedDigest{json: js, markdown: []byte(digest.Markdown(d)), html: page.Bytes()}
	for key, data := range map[string][]byte{
		layout.DigestJSONKey(d.Name, d.AsOf): s.json, layout.DigestMarkdownKey(d.Name, d.AsOf): s.markdown, layout.DigestHTMLKey(d.Name, d.AsOf): s.html,
	} {
		if _, err := b.Put(context.Background(), key, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestDigestListAndGet stores digests in a real (local-folder) store, as the Digest workflow
// writes them, and reads them back through `asof digest list` and `asof digest get`.
func TestDigestListAndGet(t *testing.T) {
	dir, _, b, common := tempStore(t)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	topics := []schemas.DigestTopic{{Name: "Key rate", Query: "central bank key rate decision", Mode: "recency"}, {Name: "Grain", Query: "grain harvest", Error: "index news: no model"}}
	putDigest(t, b, schemas.Digest{Version: schemas.DigestVersion, Name: "morning", Index: "news", AsOf: day("2026-03-29"), TimeZone: "UTC", Topics: topics[:1]})
	latest := putDigest(t, b, schemas.Digest{Version: schemas.DigestVersion, Name: "morning", Index: "news", AsOf: day("2026-03-31"), TimeZone: "UTC", Topics: topics})
	putDigest(t, b, schemas.Digest{Version: schemas.DigestVersion, Name: "evening", Index: "tg", AsOf: day("2026-03-30"), TimeZone: "UTC", Topics: topics[:1]})
	// The archive page next to the days is not a day; a damaged digest.json is listed with why.
	for key, data := range map[string]string{layout.DigestArchiveKey("morning"): "<html>", layout.DigestJSONKey("evening", day("2026-04-01")): "{not json"} {
		if _, err := b.Put(context.Background(), key, strings.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	html := filepath.Join(dir, "page.html")

	tests := []storeCase{
		{name: "list names", args: []string{"digest", "list"}, wantOut: []string{"NAME     DAYS  FIRST       LAST\n", "evening  2     2026-03-30  2026-04-01\n", "morning  2     2026-03-29  2026-03-31\n"}},
		{name: "list days", args: []string{"digest", "list", "morning"}, wantOut: []string{"2026-03-29  news   1       0", "2026-03-31  news   2       1"}},
		{name: "list a damaged day", args: []string{"digest", "list", "evening"}, wantOut: []string{"2026-04-01  -      0       0       ", "digest.json does not parse"}},
		{name: "get the latest", args: []string{"digest", "get", "morning"}, wantOut: []string{"=" + string(latest.markdown)}, wantErr: "digest morning of 2026-03-31, the latest of 2 days"},
		{name: "get a day as JSON", args: []string{"digest", "get", "morning", "2026-03-31", "--json"}, wantOut: []string{"=" + string(latest.json)}},
		{name: "get HTML to stdout", args: []string{"digest", "get", "morning", "--html", "-"}, wantOut: []string{"=" + string(latest.html)}},
		{name: "get HTML to a file", args: []string{"digest", "get", "morning", "--html", html}, wantOut: []string{"="}, wantErr: "wrote " + html},
		{name: "missing day", args: []string{"digest", "get", "morning", "2026-03-30"}, wantErr: "digest morning has no day 2026-03-30; its days: 2026-03-29, 2026-03-31"},
		{name: "missing name", args: []string{"digest", "get", "noon"}, wantErr: "; digests: evening, morning\n"},
		{name: "list missing name", args: []string{"digest", "list", "noon"}, wantErr: "; digests: evening, morning\n"},
		{name: "bad name", args: []string{"digest", "get", "Bad/Name"}, wantErr: `digest name "Bad/Name"`},
		{name: "zero day", args: []string{"digest", "get", "morning", "0001-01-01"}, wantErr: "0001-01-01"},
	}
	runStoreCases(t, common, tests)
	got, err := os.ReadFile(html)
	if err != nil || !bytes.Equal(got, latest.html) {
		t.Errorf("--html wrote %d bytes (%v), want the stored page (%d bytes)", len(got), err, len(latest.html))
	}

	code, out, errOut := runCLI(t, nil, append([]string{"digest", "list", "morning", "--json"}, common...)...)
	var days []catalog.DigestDay
	if code != 0 || json.Unmarshal([]byte(out), &days) != nil {
		t.Fatalf("list --json: exit %d\n%s\n%s", code, out, errOut)
	}
	want := []catalog.DigestDay{
		{Name: "morning", Day: "2026-03-29", Index: "news", Topics: 1, Files: []string{"digest.html", "digest.json", "digest.md"}},
		{Name: "morning", Day: "2026-03-31", Index: "news", Topics: 2, Failed: 1, Files: []string{"digest.html", "digest.json", "digest.md"}},
	}
	for i := range days {
		days[i].Bytes = 0
	}
	if len(days) != len(want) || days[0].Day != want[0].Day || days[1].Failed != 1 || days[1].Topics != 2 || strings.Join(days[1].Files, ",") != strings.Join(want[1].Files, ",") {
		t.Errorf("list --json = %+v, want %+v", days, want)
	}
}

// TestDigestGetNoDigests: asking for a name in a store with no digest at all says how to
// write one (the name a digest made without --name is stored under is "digest").
func TestDigestGetNoDigests(t *testing.T) {
	_, _, _, common := tempStore(t)
	runStoreCases(t, common, []storeCase{
		{name: "get", args: []string{"digest", "get", "tg"}, wantErr: "; there are no digests yet (write one with `asof digest --topics FILE --name tg` or `asof schedule`)\n"},
		{name: "list", args: []string{"digest", "list", "tg"}, wantErr: "no digest named tg in "},
	})
}

// TestDigestGetOpen: --open writes the stored page to a temporary file and opens it with
// $BROWSER (here a script that records what it was given); with no browser at all it says
// how to choose one.
func TestDigestGetOpen(t *testing.T) {
	dir, _, b, common := tempStore(t)
	day, _ := time.Parse(time.DateOnly, "2026-03-31")
	stored := putDigest(t, b, schemas.Digest{Version: schemas.DigestVersion, Name: "morning", Index: "news", AsOf: day, TimeZone: "UTC",
		Topics: []schemas.DigestTopic{{Name: "Key rate", Query: "key rate", Mode: "recency"}}})
	opened := filepath.Join(dir, "opened")
	browser := filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+opened+".tmp && mv "+opened+".tmp "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, map[string]string{"BROWSER": browser}, append([]string{"digest", "get", "morning", "--open"}, common...)...)
	if code != 0 || out != "" || !strings.Contains(errOut, "opened ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var page string
	for i := 0; i < 200 && page == ""; i++ {
		if data, err := os.ReadFile(opened); err == nil {
			page = string(data)
		} else {
			time.Sleep(25 * time.Millisecond)
		}
	}
	got, err := os.ReadFile(page)
	if page == "" || !strings.HasSuffix(page, ".html") || err != nil || !bytes.Equal(got, stored.html) {
		t.Fatalf("the browser was given %q (%v), want a temporary copy of the stored page", page, err)
	}
	os.Remove(page)

	code, _, errOut = runCLI(t, map[string]string{"BROWSER": "", "PATH": dir}, append([]string{"digest", "get", "morning", "--open"}, common...)...)
	if code == 0 || !strings.Contains(errOut, "--open: no browser found: set $BROWSER") {
		t.Errorf("without a browser: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, nil, append([]string{"digest", "get", "morning", "--open", "--json"}, common...)...)
	if code == 0 || !strings.Contains(errOut, "give one") {
		t.Errorf("--open --json: exit %d, stderr %q", code, errOut)
	}
}
