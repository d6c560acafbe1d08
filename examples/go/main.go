// Command asof-client asks asof a question as of a day and makes a digest, from Go, through
// asof's typed client (package client, the one the asof command line and HTTP API call): a
// Temporal client dialled to asof's server is all it needs. The inputs and results are the
// workflows' own types (workflows.AskInput, schemas.Answer, workflows.DigestResult), published
// as JSON Schemas in schemas/jsonschema/; examples/python speaks the same JSON without an asof
// import.
//
//	go run ./examples/go --address 127.0.0.1:7233 --index demo --as-of 2026-03-31 \
//	    --topic "Bridge=Lindholm bridge delay" "central bank key rate"
//
// --json prints one JSON object: {"api_version", "answer", "digest", "topics"}.
package main

import (
	"context"
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

	asof "github.com/asofrag/asof/client"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// apiVersion is the API version this client was written for (x-asof-api-version).
const apiVersion = workflows.APIVersion

// asofErrors are asof's error types (docs/api.md, "Errors"): none of them is worth a retry.
var asofErrors = []string{"InvalidInput", "BadConfiguration", "Mismatch"}

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
	tc, err := client.Dial(client.Options{HostPort: *address, Namespace: *namespace})
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s: %w", *address, err)
	}
	defer tc.Close()
	// No store: the workflows read it; the client only starts them and reads their results.
	c := asof.New(tc, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()

	ans, err := c.Ask(ctx, workflows.AskInput{Index: *index, Query: flag.Arg(0), AsOf: day})
	if err != nil {
		return explain("Ask", err)
	}

	var ts []workflows.Topic
	if len(topics) == 0 {
		topics = topicFlags{flag.Arg(0)}
	}
	for _, t := range topics {
		n, q, ok := strings.Cut(t, "=")
		if !ok {
			n, q = t, t
		}
		ts = append(ts, workflows.Topic{Name: n, Query: q})
	}
	run, err := c.StartDigest(ctx, workflows.DigestInput{Name: *name, Index: *index, Topics: ts, AsOf: day})
	if err != nil {
		return explain("Digest", err)
	}
	dig, err := run.Wait(ctx)
	if err != nil {
		return explain("Digest", err)
	}
	// Topic i (in input order) was answered by the child Ask asof.DigestTopicID(digest id, i).
	answers := make([]json.RawMessage, len(ts))
	for i := range ts {
		if err := tc.GetWorkflow(ctx, asof.DigestTopicID(run.ID(), i), "").Get(ctx, &answers[i]); err != nil {
			answers[i], _ = json.Marshal(map[string]string{"error": err.Error()})
		}
	}

	if *asJSON {
		return json.NewEncoder(os.Stdout).Encode(map[string]any{"api_version": apiVersion, "answer": ans, "digest": dig, "topics": answers})
	}
	fmt.Printf("# %s (as of %s, %s)\n\n%s", ans.Query, ans.AsOf.Format(time.DateOnly), ans.Mode, written(ans))
	fmt.Printf("\n# Digest %s as of %s: %d topics, %d failed\n", *name, dig.AsOf.Format(time.DateOnly), dig.Topics, dig.Failed)
	fmt.Printf("  %-9s %s\n  %-9s %s\n  %-9s %s\n", "json", dig.Keys.JSON, "markdown", dig.Keys.Markdown, "html", dig.Keys.HTML)
	for i, t := range ts {
		var a schemas.Answer
		_ = json.Unmarshal(answers[i], &a)
		fmt.Printf("\n## %s\n\n%s", t.Name, firstOf(written(a), string(answers[i])+"\n"))
	}
	return nil
}

// explain reports a failed workflow by its root cause (the client's error says it once, with
// the workflow id) and, for asof's own errors, their type (InvalidInput, BadConfiguration, …),
// further down the cause chain (docs/api.md, "Errors").
func explain(workflowType string, err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if app, ok := e.(*temporal.ApplicationError); ok && slices.Contains(asofErrors, app.Type()) {
			return fmt.Errorf("%s failed: %s: %s", workflowType, app.Type(), app.Message())
		}
	}
	return fmt.Errorf("%s failed: %w", workflowType, err)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// written is what an answer says to its reader: the message of an empty answer, if any, and
// the summary, each ending with a line break.
func written(a schemas.Answer) string {
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
