package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/render"
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
				days, err := catalog.Digests(ctx, b, name)
				if err != nil {
					return err
				}
				if len(days) == 0 {
					if name != "" {
						return catalog.NoDigest(ctx, b, name)
					}
					if asJSON {
						return writeJSON(a.stdout, []catalog.DigestName{})
					}
					printf(a.stdout, "no digests in %s (write one with `asof digest` or `asof schedule`)\n", b)
					return nil
				}
				if name == "" {
					names := catalog.DigestNames(days)
					if asJSON {
						return writeJSON(a.stdout, names)
					}
					tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "NAME\tDAYS\tFIRST\tLAST")
					for _, n := range names {
						fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", render.OneLine(n.Name), n.Days, n.First, n.Last)
					}
					return tw.Flush()
				}
				for i := range days {
					if err := days[i].Fill(ctx, b); err != nil {
						return err
					}
				}
				if asJSON {
					return writeJSON(a.stdout, days)
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "DAY\tINDEX\tTOPICS\tFAILED\tSIZE\tNOTE")
				for _, d := range days {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", d.Day, orDash(render.OneLine(d.Index)), d.Topics, d.Failed, sizeLabel(d.Bytes), render.OneLine(d.Problem))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func newDigestGetCmd(a *app) *cobra.Command {
	var out fetchFlags
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
			if err := out.check(); err != nil {
				return err
			}
			ctx := cmd.Context()
			return withStore(ctx, a, func(b blob.Bucket) error {
				wantDay := ""
				if !want.IsZero() {
					wantDay = want.UTC().Format(time.DateOnly)
				}
				day, days, err := catalog.Pick(ctx, b, name, wantDay)
				if err != nil {
					return err
				}
				data, err := catalog.DigestFile(ctx, b, name, day, digestFiles[out.format()])
				if err != nil {
					return err
				}
				toStdout, err := out.write(a, data, "asof-report-digest-"+name+"-"+day+"-*.html", fmt.Sprintf("digest %s of %s", name, day))
				if err == nil && toStdout && len(args) == 1 && out.format() == catalog.FormatMarkdown {
					printf(a.stderr, "\ndigest %s of %s, the latest of %d days (asof digest list %s)\n", name, day, len(days), name)
				}
				return err
			})
		},
	}
	out.register(cmd, "print digest.json instead of Markdown")
	return cmd
}

// digestFiles are the files of a digest day by format.
var digestFiles = map[string]string{
	catalog.FormatMarkdown: layout.DigestMarkdownFile, catalog.FormatJSON: layout.DigestJSONFile, catalog.FormatHTML: layout.DigestHTMLFile,
}

// fetchFlags are the output flags of a command that prints a stored document (a digest day,
// an answer, an evaluation's results): Markdown to stdout by default, --json, or the HTML page
// to a file, to stdout (--html -) or to a browser (--open).
type fetchFlags struct {
	asJSON, open bool
	html         string
}

// register adds --json (described by jsonHelp), --html and --open to cmd.
func (f *fetchFlags) register(cmd *cobra.Command, jsonHelp string) {
	cmd.Flags().BoolVar(&f.asJSON, "json", false, jsonHelp)
	cmd.Flags().StringVar(&f.html, "html", "", "write the self-contained HTML page to this file instead (- for stdout)")
	cmd.Flags().BoolVar(&f.open, "open", false, "open the HTML page in a browser ($BROWSER, else xdg-open or open), from a temporary file unless --html FILE is given")
}

// check refuses flags that contradict each other, and an --html file that cannot be written.
func (f fetchFlags) check() error {
	if f.asJSON && (f.html != "" || f.open) {
		return errors.New("--json and --html/--open each choose what is written: give one")
	}
	if f.open && f.html == "-" {
		return errors.New("--open opens a file: give --html FILE, or leave --html out for a temporary file")
	}
	return checkOutFile("--html", f.html)
}

// format is the format the flags ask for (catalog.FormatMarkdown, FormatJSON or FormatHTML).
func (f fetchFlags) format() string {
	switch {
	case f.asJSON:
		return catalog.FormatJSON
	case f.html != "" || f.open:
		return catalog.FormatHTML
	}
	return catalog.FormatMarkdown
}

// write writes data, a document in f.format(): to stdout (toStdout), or, for HTML with a
// file or --open, to the file (a temporary one named by the pattern tmp for --open alone),
// saying so on stderr with label, and opens it when asked.
func (f fetchFlags) write(a *app, data []byte, tmp, label string) (toStdout bool, err error) {
	html := f.html
	if f.open && html == "" {
		fh, err := os.CreateTemp("", tmp)
		if err != nil {
			return false, fmt.Errorf("--open: %w", err)
		}
		html = fh.Name()
		if err := fh.Close(); err != nil {
			return false, fmt.Errorf("--open: %w", err)
		}
	}
	if html != "" && html != "-" {
		if err := os.WriteFile(html, data, 0o644); err != nil {
			return false, fmt.Errorf("--html: %w", err)
		}
		printf(a.stderr, "wrote %s (%s)\n", html, label)
		if f.open {
			return false, openInBrowser(a, html)
		}
		return false, nil
	}
	_, err = a.stdout.Write(data)
	return true, err
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
