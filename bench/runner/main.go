// Command runner is `make bench`: it runs asof's Go benchmarks and, right after each, its peer
// on the same data and machine (FAISS, bm25s and ONNX Runtime from Python, a memcpy, the same
// function called without Temporal), then prints one Markdown table and writes it with the
// raw figures as JSON to .asof/bench/last.json.
//
//	go run ./bench/runner -tags ORT -ldflags '-X ...DefaultORTDir=...'
//
// The Makefile passes the tags and ldflags of the ONNX Runtime build when `make setup-ort` has
// run (and exports CGO_LDFLAGS). The Python peers live in .asof/bench-venv, which the runner
// creates and fills from bench/requirements.txt; a peer that cannot be installed or run is
// named in the table instead of failing the run. Benchmarks that need ../shared/data or the
// E5 model skip without them, and the table says so; the index-throughput rows pull the models
// they compare (multilingual-e5-small and e5-small-v2-q) and name the one that cannot be pulled.
//
// ASOF_BENCH_STORE and ASOF_BENCH_INDEX, when both set, point the answer-latency benchmark at
// an existing index (a store folder and an index name) instead of the small one built here.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// options are the runner's flags.
type options struct {
	Tags, LDFlags string
	Out, Venv     string
	Docs          int
	From          string
	EmbedSeconds  int
	PureGoBatches int
	// MultilingualTexts is how many texts a language the index-throughput rows embed.
	MultilingualTexts int
	// Only lists the steps to run (all when empty).
	Only string
	// DenseRounds is how many times the dense step runs asof's benchmarks and FAISS in turn.
	DenseRounds int
	// The backfill step (opt-in): articles, first day, and the model asof embeds with.
	BackfillDocs  int
	BackfillFrom  string
	BackfillModel string
	// BackfillPeerEvery: the Python peer embeds every k-th chunk text (it is ~2.5× slower).
	BackfillPeerEvery int
}

func main() {
	var o options
	flag.StringVar(&o.Tags, "tags", "", "build tags for the Go benchmarks (the Makefile's GOTAGS)")
	flag.StringVar(&o.LDFlags, "ldflags", "", "linker flags for the Go benchmarks (the Makefile's GOLDFLAGS)")
	flag.StringVar(&o.Out, "out", filepath.Join(".asof", "bench"), "folder for last.json, logs and the peers' data")
	flag.StringVar(&o.Venv, "venv", filepath.Join(".asof", "bench-venv"), "Python virtual environment of the peers")
	flag.IntVar(&o.Docs, "docs", 0, "documents for the index-build benchmark (default 300 on ONNX Runtime, 24 on pure Go)")
	flag.StringVar(&o.From, "from", "2022-09-01", "the index-build benchmark takes the first documents published on or after this day")
	flag.IntVar(&o.EmbedSeconds, "embed-seconds", 20, "seconds of embedding for ONNX Runtime (Go and Python)")
	flag.IntVar(&o.PureGoBatches, "purego-batches", 2, "batches of 8 passages for the pure-Go embedder (~0.8 passages/s)")
	flag.IntVar(&o.MultilingualTexts, "multilingual-texts", 0, "texts a language for the index-throughput rows, multilingual vs English model (default 256 on ONNX Runtime, 24 on pure Go)")
	flag.IntVar(&o.DenseRounds, "dense-rounds", 3, "rounds of the dense step, asof's benchmarks and FAISS in turn (each ratio is the median of the rounds')")
	flag.StringVar(&o.Only, "only", "", "comma-separated steps to run: dense, bm25, embed, index, multilingual, overhead (default all), and backfill (only when named)")
	flag.IntVar(&o.BackfillDocs, "backfill-docs", 9508, "articles for the backfill step (the 9,508 realtimeqa articles of 2023 by default)")
	flag.StringVar(&o.BackfillFrom, "backfill-from", "2023-01-01", "the backfill step takes the articles published on or after this day")
	flag.IntVar(&o.BackfillPeerEvery, "backfill-peer-every", 3, "the backfill step's Python peer embeds every k-th chunk text (1: all; the fp32 peer over all 9,508 takes ~20 min on 2 cores)")
	flag.StringVar(&o.BackfillModel, "backfill-model", "e5-small-v2-q", "the model asof embeds with in the backfill step: the one asof index takes for this English corpus")
	flag.Parse()
	if err := run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// report is what last.json holds.
type report struct {
	Started   time.Time `json:"started"`
	DurationS float64   `json:"duration_s"`
	Machine   machine   `json:"machine"`
	Tags      string    `json:"tags"`
	Rows      []row     `json:"rows"`
	Footnotes []string  `json:"footnotes"`
	Markdown  string    `json:"markdown"`
}

func run(ctx context.Context, o options, stdout io.Writer) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if err := os.Chdir(root); err != nil {
		return err
	}
	ort := strings.Contains(" "+o.Tags+" ", " ORT ") || strings.Contains(","+o.Tags+",", ",ORT,")
	if o.Docs <= 0 {
		o.Docs = 24
		if ort {
			o.Docs = 300
		}
	}
	steps := map[string]bool{"dense": true, "bm25": true, "embed": true, "index": true, "multilingual": true, "overhead": true, "backfill": true}
	var only []string
	if o.Only != "" {
		only = strings.Split(o.Only, ",")
		for _, s := range only {
			if !steps[s] {
				return fmt.Errorf("-only %s: no such step (dense, bm25, embed, index, multilingual, overhead, backfill)", s)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(o.Out, "logs"), 0o755); err != nil {
		return err
	}
	// The test binaries (hundreds of MB with the Temporal server) live only for the run.
	bin, err := os.MkdirTemp(o.Out, "bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	r := &runner{o: o, root: root, ort: ort, out: stdout, bin: bin}
	rep := report{Started: time.Now().UTC(), Tags: o.Tags}
	rep.Machine = describeMachine(ctx)
	fmt.Fprintf(stdout, "bench: %s\n", rep.Machine)
	if !ort {
		fmt.Fprintln(stdout, "bench: no ONNX Runtime build (run `make setup-ort`): embedding rows use pure Go")
	}

	r.py = r.setupPython(ctx)
	var rows []row
	for _, s := range []struct {
		name string
		run  func(context.Context) []row
	}{{"dense", r.dense}, {"bm25", r.bm25}, {"embed", r.embedding}, {"index", r.indexAndAnswer}, {"multilingual", r.multilingual}, {"overhead", r.overhead}, {"backfill", r.backfill}} {
		if (only == nil && s.name != "backfill") || slices.Contains(only, s.name) {
			rows = append(rows, s.run(ctx)...)
		}
	}
	rep.Machine.LoadEnd = loadAverage()
	rep.Rows = rows
	rep.Footnotes = footnotes
	rep.DurationS = time.Since(rep.Started).Seconds()
	rep.Markdown = markdown(rep)
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, rep.Markdown)
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(o.Out, "last.json")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwritten to %s (logs in %s)\n", path, filepath.Join(o.Out, "logs"))
	return nil
}

// repoRoot is the folder holding go.mod, from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if dir == filepath.Dir(dir) {
			return "", errors.New("not inside the asof module (no go.mod found)")
		}
	}
}

// runner runs the steps and keeps what they share.
type runner struct {
	o    options
	root string
	ort  bool
	out  io.Writer
	py   python
	// bin holds the test binaries.
	bin string
}

// step announces a step and times it.
func (r *runner) step(name string) func() {
	began := time.Now()
	fmt.Fprintf(r.out, "bench: %-58s", name+" ...")
	return func() { fmt.Fprintf(r.out, " %s\n", time.Since(began).Round(100*time.Millisecond)) }
}

// logTo writes a command's output to logs/name.log.
func (r *runner) logTo(name, out string) {
	_ = os.WriteFile(filepath.Join(r.o.Out, "logs", name+".log"), []byte(out), 0o644)
}

// testBinary builds pkg's test binary (with the ONNX Runtime tags unless pure) once.
func (r *runner) testBinary(ctx context.Context, pkg string, pure bool) (string, error) {
	name := strings.ReplaceAll(strings.TrimPrefix(pkg, "./"), "/", "-")
	args := []string{"test", "-c"}
	if !pure {
		name += "-tags"
		if r.o.Tags != "" {
			args = append(args, "-tags", r.o.Tags)
		}
		if r.o.LDFlags != "" {
			args = append(args, "-ldflags", r.o.LDFlags)
		}
	}
	bin, err := filepath.Abs(filepath.Join(r.bin, name+".test"))
	if err != nil {
		return "", err
	}
	args = append(args, "-o", bin, pkg)
	cctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, "go", args...)
	out, err := cmd.CombinedOutput()
	r.logTo("build-"+name, string(out))
	if err != nil {
		return "", fmt.Errorf("go test -c %s: %w: %s", pkg, err, lastLine(string(out)))
	}
	return bin, nil
}

// goBench runs benchmarks matching pattern from pkg's test binary, in pkg's folder (tests
// find ../shared/data from there), with extra environment variables.
func (r *runner) goBench(ctx context.Context, log, pkg string, pure bool, pattern, benchtime string, env ...string) (benchOutput, error) {
	bin, err := r.testBinary(ctx, pkg, pure)
	if err != nil {
		return benchOutput{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, "-test.v", "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime, "-test.timeout", "20m")
	cmd.Dir = filepath.Join(r.root, pkg)
	cmd.Env = append(os.Environ(), env...)
	raw, err := cmd.CombinedOutput()
	out := string(raw)
	r.logTo(log, out)
	res := parseBench(out)
	if err != nil && len(res.Results) == 0 {
		return res, fmt.Errorf("%s: %w: %s", filepath.Base(bin), err, lastLine(out))
	}
	return res, nil
}

// lastLine is the last non-empty line of out, shortened.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 160 {
		l = l[:160] + "…"
	}
	return l
}

// metric returns a benchmark's metric, or why there is none.
func metric(res benchOutput, runErr error, name, unit string) (float64, string) {
	if m, ok := res.Results[name].Metrics[unit]; ok {
		return m, ""
	}
	for n, msg := range res.Skipped {
		if n == name || strings.HasPrefix(name, n+"/") {
			return 0, "skipped: " + msg
		}
	}
	for n, msg := range res.Failed {
		if n == name || strings.HasPrefix(name, n+"/") {
			return 0, "failed: " + msg
		}
	}
	if runErr != nil {
		return 0, "failed: " + runErr.Error()
	}
	return 0, "not measured (no " + unit + " in the output)"
}

// machine describes where the run happened.
type machine struct {
	CPUs      int     `json:"cpus"`
	CPUModel  string  `json:"cpu_model"`
	MemGiB    float64 `json:"mem_gib"`
	Go        string  `json:"go"`
	OS        string  `json:"os"`
	LoadStart string  `json:"load_at_start"`
	LoadEnd   string  `json:"load_at_end"`
}

func (m machine) String() string {
	s := fmt.Sprintf("%d CPUs (%s), %.1f GiB RAM, %s %s, load average %s at start", m.CPUs, m.CPUModel, m.MemGiB, m.Go, m.OS, m.LoadStart)
	if m.LoadEnd != "" {
		s += ", " + m.LoadEnd + " at the end"
	}
	return s
}

func describeMachine(ctx context.Context) machine {
	m := machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, CPUModel: "unknown"}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			var kb float64
			if _, err := fmt.Sscanf(l, "MemTotal: %f kB", &kb); err == nil {
				m.MemGiB = kb / (1 << 20)
			}
		}
	}
	m.LoadStart = loadAverage()
	m.Go = runtime.Version()
	if out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output(); err == nil {
		m.Go = strings.TrimSpace(string(out))
	}
	return m
}

// loadAverage is the 1, 5 and 15-minute load average ("" where /proc has none).
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
