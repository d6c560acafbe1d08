package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// benchResult is one benchmark line of `go test -bench` output: metrics by unit ("ns/op",
// "MB/s", and whatever b.ReportMetric added).
type benchResult struct {
	Iterations int
	Metrics    map[string]float64
}

// benchOutput is what one `go test -bench` run said.
type benchOutput struct {
	// Results by benchmark name without the -GOMAXPROCS suffix, e.g.
	// "BenchmarkSearchThreads/1thread".
	Results map[string]benchResult
	// Skipped and Failed map a benchmark name to its message (the lines logged under it).
	Skipped map[string]string
	Failed  map[string]string
}

var (
	benchLine  = regexp.MustCompile(`^(Benchmark\S+)\s+(\d+)\s+(.*)$`)
	nameLine   = regexp.MustCompile(`^(Benchmark\S+)$`)
	statusLine = regexp.MustCompile(`^\s*--- (SKIP|FAIL|BENCH): (Benchmark\S+)`)
	procSuffix = regexp.MustCompile(`-\d+$`)
)

// parseBench reads `go test -bench -v` output. A benchmark's log lines (indented) follow its
// name line in -v output and its status line without -v; both are attributed to it.
func parseBench(out string) benchOutput {
	res := benchOutput{Results: map[string]benchResult{}, Skipped: map[string]string{}, Failed: map[string]string{}}
	logs := map[string]string{}
	var skipped, failed []string
	cur := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if m := statusLine.FindStringSubmatch(line); m != nil {
			cur = procSuffix.ReplaceAllString(m[2], "")
			switch m[1] {
			case "SKIP":
				skipped = append(skipped, cur)
			case "FAIL":
				failed = append(failed, cur)
			}
			continue
		}
		if m := nameLine.FindStringSubmatch(line); m != nil {
			cur = procSuffix.ReplaceAllString(m[1], "")
			continue
		}
		if cur != "" && strings.HasPrefix(line, "    ") {
			msg := strings.TrimSpace(line)
			// Drop the "file_test.go:12: " prefix testing adds.
			if i := strings.Index(msg, ": "); i > 0 && strings.Contains(msg[:i], ".go:") {
				msg = msg[i+2:]
			}
			logs[cur] = strings.TrimSpace(logs[cur] + " " + msg)
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		r := benchResult{Iterations: n, Metrics: map[string]float64{}}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			r.Metrics[f[i+1]] = v
		}
		cur = procSuffix.ReplaceAllString(m[1], "")
		res.Results[cur] = r
	}
	for _, n := range skipped {
		res.Skipped[n] = logs[n]
	}
	for _, n := range failed {
		res.Failed[n] = logs[n]
	}
	return res
}

// errNoJSON is returned by parsePeer for output without a JSON line.
var errNoJSON = errors.New("no JSON line in the output")

// parsePeer returns the last line of a Python peer's output that is a JSON object.
func parsePeer(out string) (map[string]any, error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			return nil, fmt.Errorf("peer output: %w", err)
		}
		return v, nil
	}
	return nil, errNoJSON
}

// num reads a number at a dotted path of a peer's JSON ("1thread.queries_per_s").
func num(v map[string]any, path string) (float64, bool) {
	var cur any = v
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, false
		}
		cur = m[k]
	}
	f, ok := cur.(float64)
	return f, ok
}

// str reads a string field of a peer's JSON ("" when absent).
func str(v map[string]any, key string) string {
	s, _ := v[key].(string)
	return s
}
