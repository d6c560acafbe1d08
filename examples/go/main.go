// Command asof-client asks asof a question as of a day and makes a digest, from Go, through
// nothing but Temporal's client and the JSON documented in docs/api.md: it imports no asof
// package. It starts the Ask and Digest workflows on the asof-default task queue with inputs
// built as map[string]any (schemas/jsonschema/ask-input.json, digest-input.json) and decodes
// their results into the small JSON-tagged structs below (answer.json, digest-result.json).
//
//	go run ./examples/go --address 127.0.0.1:7233 --index demo --as-of 2026-03-31 \
//	    --topic "Bridge=Lindholm bridge delay" "central bank key rate"
//
// --json prints one JSON object: {"api_version", "answer", "digest", "topics"}.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// apiVersion is the API version this client was written for (x-asof-api-version).
const apiVersion = 1

// taskQueue is where asof's workflows run.
const taskQueue = "asof-default"

// asofErrors are asof's error types (docs/api.md, "Errors"): none of them is worth a retry.
var asofErrors = []string{"InvalidInput", "BadConfiguration", "Mismatch"}

// answer is the part of an Ask result (answer.json) this client reads; a reader ignores the
// rest, and fields added within the API version. Summary is the answer written for a reader,
// in Markdown: its sections, then the dated sources it cites; the client prints it as it is,
// so it shows what `asof ask` and the digests show.
type answer struct {
	RunID   string    `json:"run_id"`
	Query   string    `json:"query"`
	AsOf    time.Time `json:"as_of"`
	Mode    string    `json:"mode"`
	Message string    `json:"message,omitempty"`
	Summary string    `json:"summary"`
}

// digestResult is a Digest result (digest-result.json).
type digestResult struct {
	AsOf   time.Time         `json:"as_of"`
	Keys   map[string]string `json:"keys"`
	Topics int               `json:"topics"`
	Failed int               `json:"failed"`
}

type topicFlags []string

func (t *topicFlags) String() string     { return strings.Join(*t, ", ") }
func (t *topicFlags) Set(v string) error { *t = append(*t, v); return nil }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "asof-client:", err)
		os.Exit(1)
	}
}

func run() error {
	address := flag.String("address", envOr("ASOF_TEMPORAL", "127.0.0.1:7233"), "Temporal frontend host:port (asof dev prints it)")
	namespace := flag.String("namespace", envOr("ASOF_NAMESPACE", "default"), "Temporal namespace")
	index := flag.String("index", "", "index to ask (required)")
	asOf := flag.String("as-of", "", "anchor day YYYY-MM-DD (required): nothing published later is used")
	name := flag.String("digest-name", "goclient", "the digest's name (digests/<name>/<day>/)")
	asJSON := flag.Bool("json", false, "print one JSON object instead of text")
	var topics topicFlags
	flag.Var(&topics, "topic", "a digest topic NAME=QUERY (repeatable; default: the question itself)")
	flag.Parse()
	if flag.NArg() != 1 || *index == "" || *asOf == "" {
		return errors.New("usage: asof-client --index NAME --as-of YYYY-MM-DD [--topic NAME=QUERY]... QUESTION")
	}
	day, err := time.Parse(time.DateOnly, *asOf)
	if err != nil {
		return fmt.Errorf("--as-of: %w", err)
	}
	c, err := client.Dial(client.Options{HostPort: *address, Namespace: *namespace})
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s: %w", *address, err)
	}
	defer c.Close()
	ctx := context.Background()

	// One workflow id per request (see docs/api.md, "Workflow ids").
	askID := fmt.Sprintf("goclient-ask-%s-%s", *index, suffix())
	var raw json.RawMessage
	if err := execute(ctx, c, askID, "Ask", map[string]any{"index": *index, "query": flag.Arg(0), "as_of": day}, 10*time.Minute, &raw); err != nil {
		return err
	}
	var ans answer
	if err := json.Unmarshal(raw, &ans); err != nil {
		return fmt.Errorf("decode the answer: %w", err)
	}

	var ts []map[string]string
	if len(topics) == 0 {
		topics = topicFlags{flag.Arg(0)}
	}
	for _, t := range topics {
		n, q, ok := strings.Cut(t, "=")
		if !ok {
			n, q = t, t
		}
		ts = append(ts, map[string]string{"name": n, "query": q})
	}
	digestID := fmt.Sprintf("goclient-digest-%s-%s", *name, suffix())
	var dig digestResult
	if err := execute(ctx, c, digestID, "Digest", map[string]any{"name": *name, "index": *index, "topics": ts, "as_of": day}, 20*time.Minute, &dig); err != nil {
		return err
	}
	// Topic i (1-based, in input order) was answered by the child Ask <digest id>-t<ii>.
	answers := make([]json.RawMessage, len(ts))
	for i := range ts {
		if err := c.GetWorkflow(ctx, fmt.Sprintf("%s-t%02d", digestID, i+1), "").Get(ctx, &answers[i]); err != nil {
			answers[i], _ = json.Marshal(map[string]string{"error": err.Error()})
		}
	}

	if *asJSON {
		return json.NewEncoder(os.Stdout).Encode(map[string]any{"api_version": apiVersion, "answer": raw, "digest": dig, "topics": answers})
	}
	fmt.Printf("# %s (as of %s, %s)\n\n%s", ans.Query, ans.AsOf.Format(time.DateOnly), ans.Mode, written(ans))
	fmt.Printf("\n# Digest %s as of %s: %d topics, %d failed\n", *name, dig.AsOf.Format(time.DateOnly), dig.Topics, dig.Failed)
	for _, k := range []string{"json", "markdown", "html"} {
		fmt.Printf("  %-9s %s\n", k, dig.Keys[k])
	}
	for i, t := range ts {
		var a answer
		_ = json.Unmarshal(answers[i], &a)
		fmt.Printf("\n## %s\n\n%s", t["name"], firstOf(written(a), string(answers[i])+"\n"))
	}
	return nil
}

// execute starts a workflow and waits for its result; a failure is reported by its root cause
// and, for asof's own errors, their type (InvalidInput, BadConfiguration, …).
func execute(ctx context.Context, c client.Client, id, workflowType string, in any, timeout time.Duration, out any) error {
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue, WorkflowExecutionTimeout: timeout}, workflowType, in)
	if err != nil {
		return fmt.Errorf("start %s %s: %w", workflowType, id, err)
	}
	if err := run.Get(ctx, out); err != nil {
		// The workflow wraps what failed in its own words; asof's error type is further down
		// the cause chain (docs/api.md, "Errors").
		for e := err; e != nil; e = errors.Unwrap(e) {
			if app, ok := e.(*temporal.ApplicationError); ok && slices.Contains(asofErrors, app.Type()) {
				return fmt.Errorf("%s %s failed: %s: %s", workflowType, id, app.Type(), app.Message())
			}
		}
		return fmt.Errorf("%s %s failed: %w", workflowType, id, err)
	}
	return nil
}

func suffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// written is what an answer says to its reader: the message of an empty answer, if any, and
// the summary, each ending with a line break.
func written(a answer) string {
	var parts []string
	for _, s := range []string{a.Message, a.Summary} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s+"\n")
		}
	}
	return strings.Join(parts, "\n")
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
