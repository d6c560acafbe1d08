package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// withStore opens the store alone (the data dir's running stack's, or the embedded gateway,
// or --store) for a command that reads what was written and needs no Temporal.
func withStore(ctx context.Context, a *app, fn func(b blob.Bucket) error) error {
	st, err := infra.Start(ctx, a.cfg, infra.StartOptions{NoTemporal: true})
	if err != nil {
		return portClash(err, false)
	}
	defer st.Close()
	return fn(st.Bucket)
}

// digestDay is one stored digest: a name's day folder under digests/.
type digestDay struct {
	Name string `json:"name"`
	Day  string `json:"day"`
	// Index, Topics and Failed come from its digest.json (empty when it does not parse:
	// Problem says why).
	Index   string `json:"index,omitempty"`
	Topics  int    `json:"topics"`
	Failed  int    `json:"failed"`
	Problem string `json:"problem,omitempty"`
	// Files are the day's files (digest.json, digest.md, digest.html) and Bytes their size.
	Files []string `json:"files"`
	Bytes int64    `json:"bytes"`
}

// digestName sums up the stored digests of one name.
type digestName struct {
	Name  string `json:"name"`
	Days  int    `json:"days"`
	First string `json:"first"`
	Last  string `json:"last"`
}

// storedDigests lists the day folders under digests/ (only those of name when it is set), in
// name then day order; the archive page next to the days is not a day.
func storedDigests(ctx context.Context, b blob.Bucket, name string) ([]digestDay, error) {
	root := path.Dir(layout.DigestsPrefix("x")) + "/"
	prefix := root
	if name != "" {
		prefix = layout.DigestsPrefix(name) + "/"
	}
	var days []digestDay
	err := b.Iter(ctx, prefix, func(o blob.ObjectInfo) error {
		parts := strings.Split(strings.TrimPrefix(o.Key, root), "/")
		if len(parts) != 3 {
			return nil
		}
		if _, err := time.Parse(time.DateOnly, parts[1]); err != nil {
			return nil
		}
		if n := len(days); n == 0 || days[n-1].Name != parts[0] || days[n-1].Day != parts[1] {
			days = append(days, digestDay{Name: parts[0], Day: parts[1]})
		}
		d := &days[len(days)-1]
		d.Files = append(d.Files, parts[2])
		d.Bytes += o.Size
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", prefix, b, err)
	}
	return days, nil
}

// fill reads the day's digest.json for its index and topic counts.
func (d *digestDay) fill(ctx context.Context, b blob.Bucket) error {
	day, _ := time.Parse(time.DateOnly, d.Day)
	key := layout.DigestJSONKey(d.Name, day)
	data, err := blob.ReadAll(ctx, b, key)
	if errors.Is(err, blob.ErrNotFound) {
		d.Problem = "no " + layout.DigestJSONFile
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	var dg schemas.Digest
	if err := json.Unmarshal(data, &dg); err != nil {
		d.Problem = fmt.Sprintf("%s does not parse: %v", layout.DigestJSONFile, err)
		return nil
	}
	d.Index, d.Topics = dg.Index, len(dg.Topics)
	for _, t := range dg.Topics {
		if t.Error != "" {
			d.Failed++
		}
	}
	return nil
}

// digestNames sums days up per name (days in storedDigests' order).
func digestNames(days []digestDay) []digestName {
	var out []digestName
	for _, d := range days {
		if n := len(out); n > 0 && out[n-1].Name == d.Name {
			out[n-1].Days++
			out[n-1].Last = d.Day
			continue
		}
		out = append(out, digestName{Name: d.Name, Days: 1, First: d.Day, Last: d.Day})
	}
	return out
}

func newDigestListCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [NAME]",
		Short: "List the stored digests: every name, or the days of one",
		Example: `  asof digest list
  asof digest list morning
  asof digest list morning --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
				if err := layout.ValidateDigestName(name); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			return withStore(ctx, a, func(b blob.Bucket) error {
				days, err := storedDigests(ctx, b, name)
				if err != nil {
					return err
				}
				if len(days) == 0 {
					if name != "" {
						return fmt.Errorf("no digest named %s in %s (asof digest list shows the names)", name, b)
					}
					if asJSON {
						return writeJSON(a.stdout, []digestName{})
					}
					printf(a.stdout, "no digests in %s (write one with `asof digest` or `asof schedule`)\n", b)
					return nil
				}
				if name == "" {
					names := digestNames(days)
					if asJSON {
						return writeJSON(a.stdout, names)
					}
					tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "NAME\tDAYS\tFIRST\tLAST")
					for _, n := range names {
						fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", n.Name, n.Days, n.First, n.Last)
					}
					return tw.Flush()
				}
				for i := range days {
					if err := days[i].fill(ctx, b); err != nil {
						return err
					}
				}
				if asJSON {
					return writeJSON(a.stdout, days)
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "DAY\tINDEX\tTOPICS\tFAILED\tSIZE\tNOTE")
				for _, d := range days {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", d.Day, orDash(d.Index), d.Topics, d.Failed, sizeLabel(d.Bytes), d.Problem)
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func newDigestGetCmd(a *app) *cobra.Command {
	var asJSON, open bool
	var html string
	cmd := &cobra.Command{
		Use:   "get NAME [DAY]",
		Short: "Print a stored digest (the latest day unless DAY is given) as Markdown, JSON or HTML",
		Example: `  asof digest get morning
  asof digest get morning 2026-03-31 --json
  asof digest get morning --html morning.html
  asof digest get morning --open`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := layout.ValidateDigestName(name); err != nil {
				return err
			}
			var want time.Time
			if len(args) == 2 {
				var err error
				if want, err = parseDay("day", args[1]); err != nil {
					return err
				}
			}
			if asJSON && (html != "" || open) {
				return errors.New("--json and --html/--open each choose what is written: give one")
			}
			if open && html == "-" {
				return errors.New("--open opens a file: give --html FILE, or leave --html out for a temporary file")
			}
			ctx := cmd.Context()
			return withStore(ctx, a, func(b blob.Bucket) error {
				days, err := storedDigests(ctx, b, name)
				if err != nil {
					return err
				}
				if len(days) == 0 {
					return fmt.Errorf("no digest named %s in %s (asof digest list shows the names)", name, b)
				}
				day := days[len(days)-1].Day
				if !want.IsZero() {
					day = want.UTC().Format(time.DateOnly)
					if !hasDay(days, day) {
						return fmt.Errorf("digest %s has no day %s; its days: %s", name, day, dayList(days))
					}
				}
				t, _ := time.Parse(time.DateOnly, day)
				key, w := layout.DigestMarkdownKey(name, t), a.stdout
				switch {
				case asJSON:
					key = layout.DigestJSONKey(name, t)
				case html != "" || open:
					key = layout.DigestHTMLKey(name, t)
				}
				data, err := blob.ReadAll(ctx, b, key)
				if errors.Is(err, blob.ErrNotFound) {
					return fmt.Errorf("digest %s of %s lacks %s in %s", name, day, path.Base(key), b)
				}
				if err != nil {
					return fmt.Errorf("read %s: %w", key, err)
				}
				if open && html == "" {
					f, err := os.CreateTemp("", "asof-digest-"+name+"-"+day+"-*.html")
					if err != nil {
						return fmt.Errorf("--open: %w", err)
					}
					html = f.Name()
					if err := f.Close(); err != nil {
						return fmt.Errorf("--open: %w", err)
					}
				}
				if html != "" && html != "-" {
					if err := os.WriteFile(html, data, 0o644); err != nil {
						return fmt.Errorf("--html: %w", err)
					}
					printf(a.stderr, "wrote %s (digest %s of %s)\n", html, name, day)
					if open {
						return openInBrowser(a, html)
					}
					return nil
				}
				_, err = w.Write(data)
				if err == nil && len(args) == 1 && !asJSON && html == "" {
					printf(a.stderr, "\ndigest %s of %s, the latest of %d days (asof digest list %s)\n", name, day, len(days), name)
				}
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print digest.json instead of Markdown")
	cmd.Flags().StringVar(&html, "html", "", "write the self-contained HTML page to this file instead (- for stdout)")
	cmd.Flags().BoolVar(&open, "open", false, "open the HTML page in a browser ($BROWSER, else xdg-open or open), from a temporary file unless --html FILE is given")
	return cmd
}

func hasDay(days []digestDay, day string) bool {
	for _, d := range days {
		if d.Day == day {
			return true
		}
	}
	return false
}

// dayList names the days of a digest, the last few when there are many.
func dayList(days []digestDay) string {
	const most = 10
	var s []string
	for _, d := range days {
		s = append(s, d.Day)
	}
	if len(s) > most {
		return fmt.Sprintf("%d days, the last %s", len(s), strings.Join(s[len(s)-most:], ", "))
	}
	return strings.Join(s, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// openInBrowser opens file in the user's browser: $BROWSER when set (its first entry, as a
// command line the file is appended to), else xdg-open (Linux, BSD) or open (macOS). The
// browser is started, not waited for.
func openInBrowser(a *app, file string) error {
	var argv []string
	if env := strings.TrimSpace(os.Getenv("BROWSER")); env != "" {
		first, _, _ := strings.Cut(env, string(os.PathListSeparator))
		argv = strings.Fields(first)
	} else {
		for _, c := range []string{"xdg-open", "open"} {
			if p, err := exec.LookPath(c); err == nil {
				argv = []string{p}
				break
			}
		}
	}
	if len(argv) == 0 {
		return fmt.Errorf("--open: no browser found: set $BROWSER to one (e.g. BROWSER=firefox) or install xdg-utils; the page is at %s", file)
	}
	c := exec.Command(argv[0], append(argv[1:], file)...)
	if err := c.Start(); err != nil {
		return fmt.Errorf("--open: start %s: %w (the page is at %s; $BROWSER chooses the browser)", argv[0], err, file)
	}
	go func() { _ = c.Wait() }()
	printf(a.stderr, "opened %s with %s\n", file, filepath.Base(argv[0]))
	return nil
}
