package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// chaosIndex is the index both stacks of TestChaosAcrossProcessesWithModel build.
const chaosIndex = "rtqa"

// chaosAsOf anchors the fixed questions: after every row of the slice.
const chaosAsOf = "2023-08-31"

// chaosQuestions are asked of the faulted index and of the reference; the answers must match.
var chaosQuestions = []string{
	"What did the Federal Reserve decide about interest rates?",
	"What happened to Silicon Valley Bank?",
	"What is the latest on the war in Ukraine?",
	"Who won the Super Bowl?",
	"What did the Supreme Court rule?",
}

// chaosSlice is the realtimeqa 2023 slice: seed is built first and sees no faults; build is
// appended under the faults; extra is appended meanwhile and holds rows of both (duplicates)
// and new rows of another month.
type chaosSlice struct {
	seed, build, extra []schemas.Document
	overlap            int // rows of extra the index already holds
}

// realtimeqaChaosSlice takes, from ../shared/data, 40 articles of January 2023 (seed), 50 of
// each month February–July (build: 6 shards of 7 embedding parts at --embed-part-size 8), and
// for extra 20 seed rows, 10 build rows and 40 new articles of August. It skips without the
// data. The build is sized so that shards are still embedding when the third fault strikes.
// Without the data it takes generatedChaosSlice, so CI runs the test either way.
func realtimeqaChaosSlice(t *testing.T) chaosSlice {
	t.Helper()
	path := filepath.Join(realtimeqa, "docs.parquet")
	f, err := os.Open(path)
	if os.Getenv("ASOF_TEST_CHAOS_GENERATED") != "" {
		f, err = nil, errors.New("ASOF_TEST_CHAOS_GENERATED is set")
	}
	if err != nil {
		t.Logf("shared data absent (%v): generated articles instead", err)
		return generatedChaosSlice()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	byMonth := map[time.Month][]schemas.Document{}
	err = corpus.NewLoader(corpus.Options{}).ReadFile(context.Background(), f, st.Size(), "docs.parquet",
		func(d schemas.Document) error {
			if d.PublishedAt.Year() == 2023 && d.PublishedAt.Month() <= time.August {
				byMonth[d.PublishedAt.Month()] = append(byMonth[d.PublishedAt.Month()], d)
			}
			return nil
		}, func(schemas.QuarantineRow) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	take := func(m time.Month, n int) []schemas.Document {
		docs := byMonth[m]
		sort.Slice(docs, func(i, j int) bool { return docs[i].DocID < docs[j].DocID })
		if len(docs) < n {
			t.Fatalf("realtimeqa has %d articles in %s 2023, want %d", len(docs), m, n)
		}
		return docs[:n]
	}
	return chaosLayout(take)
}

// chaosLayout lays out the slice from take(month, n), n documents of that 2023 month: 40 of
// January (seed), 50 of each month February–July (build), and extra = 20 seed rows, 10 build
// rows and 40 of August.
func chaosLayout(take func(m time.Month, n int) []schemas.Document) chaosSlice {
	var s chaosSlice
	s.seed = take(time.January, 40)
	for m := time.February; m <= time.July; m++ {
		s.build = append(s.build, take(m, 50)...)
	}
	s.extra = append(append(slices.Clone(s.seed[:20]), s.build[:10]...), take(time.August, 40)...)
	s.overlap = 30
	return s
}

// generatedChaosSlice is realtimeqaChaosSlice's layout (40 January seed articles, 50 a month
// February–July, extra = 20 seed + 10 build + 40 August rows) with articles generated from a
// fixed seed: news-like paragraphs of about 150 words (about realtimeqa's embedding cost per
// chunk) on the topics of chaosQuestions, so every question finds results.
func generatedChaosSlice() chaosSlice {
	rng := rand.New(rand.NewPCG(2023, 15))
	subjects := []string{"The Federal Reserve", "Silicon Valley Bank", "Ukraine", "The Super Bowl", "The Supreme Court",
		"The European Central Bank", "Regulators", "The Kansas City Chiefs", "Kyiv", "Congress"}
	verbs := []string{"raised interest rates", "announced a decision", "reported losses", "ruled on the case",
		"won the championship", "faced a bank run", "launched a counteroffensive", "held talks", "cut its forecast", "warned investors"}
	details := []string{"analysts said the move was expected", "markets fell sharply after the news",
		"officials promised further steps next month", "the vote was five to four", "deposits were guaranteed by the government",
		"the fighting continued near the front line", "fans celebrated late into the night", "inflation remained above target",
		"the statement surprised many economists", "lawmakers called for an investigation"}
	article := func(id string, day time.Time) schemas.Document {
		var b strings.Builder
		for n := 0; n < 7; n++ {
			fmt.Fprintf(&b, "%s %s on %s, and %s; %s, according to %d sources. ",
				subjects[rng.IntN(len(subjects))], verbs[rng.IntN(len(verbs))], day.Format("January 2"),
				details[rng.IntN(len(details))], details[rng.IntN(len(details))], 2+rng.IntN(9))
		}
		return schemas.Document{DocID: id, PublishedAt: day.Add(time.Duration(rng.IntN(20)) * time.Hour),
			Title: subjects[rng.IntN(len(subjects))] + " " + verbs[rng.IntN(len(verbs))],
			Text:  b.String(), Source: "generated", URL: "https://example.org/" + id}
	}
	month := func(m time.Month, n int) []schemas.Document {
		docs := make([]schemas.Document, n)
		for i := range docs {
			docs[i] = article(fmt.Sprintf("gen-2023-%02d-%03d", int(m), i), time.Date(2023, m, 1+i%28, 0, 0, 0, 0, time.UTC))
		}
		return docs
	}
	return chaosLayout(month)
}

// chaosStack is `asof server` on a data dir with fixed ports (so it can be restarted on them)
// and the worker processes polling it.
//
// The same type drives an external cluster (chaos_cluster_test.go): then server is nil, the
// store has an endpoint, and s3Root is the S3 server's folder.
type chaosStack struct {
	dir, modelDir        string
	temporalPort, s3Port string
	server               *proc
	env                  []string
	hostPort, store      string
	namespace, endpoint  string // empty: the defaults (namespace "default", the URL's endpoint)
	s3Root               string // the folder whose subfolders are the store's buckets
	indexName            string // the index built, chaosIndex unless set
	partSize             int    // --embed-part-size of the builds
	workers              map[string]*proc
	// units maps each child workflow of the build seen in flight to the shards it builds.
	units   map[string][]string
	unitsMu sync.Mutex
}

// root is the folder of the stack's index in the S3 server's folder.
func (s *chaosStack) root() string { return filepath.Join(s.s3Root, "asof", "indexes", s.indexName) }

func newChaosStack(t *testing.T, modelDir string) *chaosStack {
	t.Helper()
	s := &chaosStack{dir: t.TempDir(), modelDir: modelDir, workers: map[string]*proc{}, indexName: chaosIndex, partSize: 8}
	s.s3Root = filepath.Join(s.dir, "s3")
	for attempt := 1; ; attempt++ {
		s.temporalPort, s.s3Port = freePort(t), freePort(t)
		err := s.startServer(t)
		if err == nil {
			return s
		}
		if attempt < 3 && strings.Contains(err.Error(), "address already in use") {
			continue
		}
		t.Fatal(err)
	}
}

// startServer starts `asof server` on the stack's dir and ports (again after a kill).
func (s *chaosStack) startServer(t *testing.T) error {
	t.Helper()
	s.server = startProc(t, nil, "server", "--data-dir", s.dir, "--temporal-port", s.temporalPort, "--s3-port", s.s3Port, "--ui-port", "0")
	m, err := s.server.await(attachRe)
	if err != nil {
		return err
	}
	s.env = []string{"ASOF_S3_ACCESS_KEY_ID=" + m[1], "ASOF_S3_SECRET_ACCESS_KEY=" + m[2]}
	s.hostPort, s.store = m[3], m[4]
	return nil
}

func (s *chaosStack) client() []string {
	args := []string{"--temporal", s.hostPort, "--store", s.store, "--model-dir", s.modelDir}
	if s.namespace != "" {
		args = append(args, "--namespace", s.namespace)
	}
	if s.endpoint != "" {
		args = append(args, "--s3-endpoint", s.endpoint)
	}
	return args
}

// nameOf names a worker process of the stack.
func (s *chaosStack) nameOf(p *proc) string {
	for name, w := range s.workers {
		if w == p {
			return name
		}
	}
	return "?"
}

// startWorker starts a worker named name on queues and waits until it polls.
func (s *chaosStack) startWorker(t *testing.T, name, queues string) *proc {
	t.Helper()
	w := startProc(t, s.env, append(append([]string{"worker"}, s.client()...), "--task-queues", queues)...)
	w.waitFor(t, regexp.MustCompile(`asof worker polling`))
	s.workers[name] = w
	return w
}

// stopWorkers interrupts the worker processes still running.
func (s *chaosStack) stopWorkers(t *testing.T) {
	t.Helper()
	for _, w := range s.workers {
		if w.cmd.ProcessState == nil {
			w.interrupt(t)
		}
	}
}

// index starts `asof index` on file (an append unless first) with small embedding parts and a
// short heartbeat, so a lost worker costs little and is noticed in seconds.
func (s *chaosStack) index(t *testing.T, file string, appendRows bool) *proc {
	t.Helper()
	args := append(append([]string{"index"}, s.client()...), "--index", s.indexName, "--corpus", file,
		"--embed-part-size", fmt.Sprint(s.partSize), "--embed-heartbeat", "4s", "--json")
	if appendRows {
		args = append(args, "--append")
	}
	return startProc(t, s.env, args...)
}

// indexResult waits (at most limit) for an `asof index` process and decodes its result.
func indexResult(t *testing.T, p *proc, limit time.Duration) workflows.IndexBuildResult {
	t.Helper()
	select {
	case err := <-p.done:
		<-p.read
		if err != nil {
			t.Fatalf("%v: %v\n%s", p.cmd.Args[1:], err, p.output())
		}
	case <-time.After(limit):
		t.Fatalf("%v did not finish within %s:\n%s", p.cmd.Args[1:], limit, p.output())
	}
	var res workflows.IndexBuildResult
	decodeJSONOutput(t, p.output(), &res)
	return res
}

// decodeJSONOutput decodes the first JSON object of a process's output into v.
func decodeJSONOutput(t *testing.T, out string, v any) {
	t.Helper()
	start := strings.Index(out, "{\n")
	if start < 0 {
		t.Fatalf("no JSON result:\n%s", out)
	}
	if err := json.NewDecoder(strings.NewReader(out[start:])).Decode(v); err != nil {
		t.Fatalf("decode result: %v\n%s", err, out)
	}
}

// ask asks every fixed question and returns the answers as comparable JSON: without the run
// id, the manifest number and timings, which differ between two builds of the same rows.
func (s *chaosStack) ask(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, q := range chaosQuestions {
		p := startProc(t, s.env, append(append([]string{"ask"}, s.client()...), "--index", s.indexName, "--as-of", chaosAsOf,
			"--judge", "heuristic", "--summarizer", "extractive", "--json", q)...)
		select {
		case err := <-p.done:
			<-p.read
			if err != nil {
				t.Fatalf("ask %q: %v\n%s", q, err, p.output())
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("ask %q did not finish within 2 minutes:\n%s", q, p.output())
		}
		var ans map[string]any
		decodeJSONOutput(t, p.output(), &ans)
		if res, _ := ans["results"].([]any); len(res) == 0 {
			t.Fatalf("ask %q: no results:\n%s", q, p.output())
		}
		stripVolatile(ans)
		b, _ := json.MarshalIndent(ans, "", " ")
		out = append(out, string(b))
	}
	return out
}

// stripVolatile deletes, at any depth, the answer fields that differ between runs.
func stripVolatile(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "run_id" || k == "manifest_seq" || strings.HasSuffix(k, "_ms") {
				delete(v, k)
				continue
			}
			stripVolatile(x)
		}
	case []any:
		for _, x := range v {
			stripVolatile(x)
		}
	}
}

// partWatch records when each embedding part and shard meta.json of the index first appears
// on the gateway's disk, polling every 25 ms.
type partWatch struct {
	seen map[string]time.Time // path → first seen
	stop chan struct{}
	done chan struct{}
}

func watchParts(root string) *partWatch {
	w := &partWatch{seen: map[string]time.Time{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			now := time.Now()
			for _, pat := range []string{"staging/*/vectors/*.f32", "shards/*/*/meta.json"} {
				got, _ := filepath.Glob(filepath.Join(root, pat))
				for _, g := range got {
					if _, ok := w.seen[g]; !ok {
						w.seen[g] = now
					}
				}
			}
			select {
			case <-w.stop:
				return
			case <-time.After(25 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *partWatch) finish() map[string]time.Time { close(w.stop); <-w.done; return w.seen }

// partsOf counts the embedding parts stored for shard id in staging of the index at root.
func partsOf(root, id string) int {
	got, _ := filepath.Glob(filepath.Join(root, "staging", id, "vectors", "*.f32"))
	return len(got)
}

// embedding asks Temporal which shards of the build are in flight and, for those whose
// EmbedShard activity runs now, which worker runs it (its client identity, pid@host@).
func (s *chaosStack) embedding() (inFlight []string, worker map[string]string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(client.Options{HostPort: s.hostPort, Namespace: s.namespace, Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	id := asof.IndexID(s.indexName)
	v, err := c.QueryWorkflow(ctx, id, "", workflows.ProgressQuery)
	if err != nil {
		return nil, nil, err
	}
	var p workflows.Progress
	if err := v.Get(&p); err != nil {
		return nil, nil, err
	}
	worker = map[string]string{}
	units := map[string][]string{}
	for _, sh := range p.InFlight {
		wf := sh.Workflow
		if wf == "" { // a build started before InFlightShard named its workflow
			wf = id + "/shard-" + sh.ShardID
		}
		if _, seen := units[wf]; !seen {
			inFlight = append(inFlight, wf)
		}
		units[wf] = append(units[wf], sh.ShardID)
	}
	s.unitsMu.Lock()
	if s.units == nil {
		s.units = map[string][]string{}
	}
	maps.Copy(s.units, units)
	s.unitsMu.Unlock()
	for _, wf := range inFlight {
		d, err := c.DescribeWorkflowExecution(ctx, wf, "")
		if err != nil {
			return nil, nil, err
		}
		for _, a := range d.GetPendingActivities() {
			if a.GetActivityType().GetName() == "EmbedShard" && a.GetState() == enums.PENDING_ACTIVITY_STATE_STARTED {
				worker[wf] = a.GetLastWorkerIdentity()
			}
		}
	}
	return inFlight, worker, nil
}

// unitParts is how many embedding parts the shards of one child workflow (a shard, or a batch
// of small periods) have stored, and whether any of them is written (its meta.json).
func (s *chaosStack) unitParts(wf string) (parts int, written bool) {
	s.unitsMu.Lock()
	shards := s.units[wf]
	s.unitsMu.Unlock()
	root := s.root()
	for _, id := range shards {
		parts += partsOf(root, id)
		if meta, _ := filepath.Glob(filepath.Join(root, "shards", "*", id, "meta.json")); len(meta) > 0 {
			written = true
		}
	}
	return parts, written
}

// awaitEmbedding waits (at most limit) until one of the worker processes runs an EmbedShard
// activity and returns it with the shard it embeds.
func (s *chaosStack) awaitEmbedding(t *testing.T, build *proc, limit time.Duration, candidates ...*proc) (*proc, string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	var last error
	var lastWorker map[string]string
	for time.Now().Before(deadline) {
		_, worker, err := s.embedding()
		last, lastWorker = err, worker
		for shard, identity := range worker {
			for _, w := range candidates {
				if strings.HasPrefix(identity, fmt.Sprintf("%d@", w.cmd.Process.Pid)) { // the SDK's pid@host@
					return w, shard
				}
			}
		}
		select {
		case err := <-build.done:
			build.done <- err
			t.Fatalf("the build ended before the fault (too small for it; last seen %v, %v):\n%s", lastWorker, last, build.output())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("no worker embedding within %s (last seen %v, %v)", limit, lastWorker, last)
	return nil, ""
}

// fault is one injected failure and how long the build took to move again.
type fault struct {
	what string
	at   time.Time
	// watch holds the parts stored, when it struck, of the child workflows it hit (each a shard
	// or a batch of small periods, by workflow id): the one the killed worker embedded for, or
	// every one in flight.
	watch map[string]int
	// stack maps those workflows to their shards.
	stack *chaosStack
	// took is how long the fault itself took (a kill, or a restart until the piece was back).
	took time.Duration
	// next is when the next part (of any shard) was stored after it; recovered, when every
	// watched shard had stored another part or finished. Both count from the fault's start.
	next, recovered time.Time
	// wrote is when Temporal had persisted something new of the build after the fault was
	// done: a history event of the build's or a watched shard's workflow, or a heartbeat or
	// attempt start of a watched shard's pending activity; zero if never. wroteDone is closed
	// once known.
	wrote     time.Time
	wroteDone chan struct{}
}

// temporalState reads what Temporal has persisted of the build's workflow and of the shard
// workflows of ids: their history lengths, summed, and the latest heartbeat or attempt start
// of their pending activities.
func (s *chaosStack) temporalState(ctx context.Context, c client.Client, ids []string) (events int64, latest time.Time, err error) {
	id := asof.IndexID(s.indexName)
	for _, wf := range append([]string{id}, ids...) {
		d, err := c.DescribeWorkflowExecution(ctx, wf, "")
		if err != nil {
			return 0, time.Time{}, err
		}
		events += d.GetWorkflowExecutionInfo().GetHistoryLength()
		for _, a := range d.GetPendingActivities() {
			for _, ts := range []time.Time{a.GetLastHeartbeatTime().AsTime(), a.GetLastStartedTime().AsTime()} {
				if ts.After(latest) {
					latest = ts
				}
			}
		}
	}
	return events, latest, nil
}

// watchTemporal fills f.wrote in the background, polling every 50 ms from now on (the fault
// done): the first time the watched workflows have more history events than before, or a
// pending activity heartbeat or attempt start later than now.
func (s *chaosStack) watchTemporal(f *fault, ids []string, before int64, build *proc) {
	f.wroteDone = make(chan struct{})
	done := time.Now()
	go func() {
		defer close(f.wroteDone)
		c, err := client.NewLazyClient(client.Options{HostPort: s.hostPort, Namespace: s.namespace,
			Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
		if err != nil {
			return
		}
		defer c.Close()
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			n, latest, err := s.temporalState(ctx, c, ids)
			cancel()
			if err == nil && (n > before || latest.After(done)) {
				f.wrote = time.Now()
				return
			}
			if build.cmd.ProcessState != nil {
				return
			}
		}
	}()
}

// awaitRecovery waits (at most limit) until every shard f watches has stored another part or
// its meta.json, or build has ended, and fills f.next and f.recovered.
func awaitRecovery(t *testing.T, root string, f *fault, build *proc, limit time.Duration) {
	t.Helper()
	before := countParts(root)
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		now := time.Now()
		if f.next.IsZero() && countParts(root) > before {
			f.next = now
		}
		moved := true
		for wf, n := range f.watch {
			if parts, written := f.stack.unitParts(wf); !written && parts <= n {
				moved = false
			}
		}
		if moved {
			if f.next.IsZero() {
				f.next = now
			}
			f.recovered = now
			return
		}
		select {
		case err := <-build.done:
			build.done <- err
			return
		case <-time.After(25 * time.Millisecond):
		}
	}
	t.Fatalf("%s: the build did not move within %s", f.what, limit)
}

// awaitParts waits until at least n parts are stored in staging (or the build ends).
func awaitParts(t *testing.T, root string, n int, build *proc, limit time.Duration) {
	t.Helper()
	pat := filepath.Join(root, "staging", "*", "vectors", "*.f32")
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if got, _ := filepath.Glob(pat); len(got) >= n {
			return
		}
		select {
		case err := <-build.done:
			build.done <- err
			t.Fatalf("the build ended before %d parts were stored (too small for the faults):\n%s", n, build.output())
		case <-time.After(25 * time.Millisecond):
		}
	}
	t.Fatalf("%d parts not stored within %s:\n%s", n, limit, build.output())
}

func kill(t *testing.T, p *proc) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	<-p.read
}

// TestChaosAcrossProcessesWithModel builds a realtimeqa 2023 slice on `asof server` with three
// worker processes (asof-default; asof-embed; asof-embed + asof-llm) while it SIGKILLs one
// embed worker mid-part, later the other, starts a fresh one, SIGKILLs and restarts the server
// (Temporal on its SQLite file and the S3 gateway) with shards building, and meanwhile runs a
// second `asof index --append` with duplicate and new rows. It then checks that both builds
// complete and reconcile, that every chunk is in exactly one published shard, that the manifest
// chain is intact, and that a fixed question set gets the same answers as a reference stack that
// built the same rows with no faults. It logs the recovery times.
func TestChaosAcrossProcessesWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers and workers in subprocesses")
	}
	modelDir := testmodel.ModelsDir(t)
	testmodel.Fast(t)
	c := newChaosCase(t, chaosIndex, 8)
	ref := c.reference(t, modelDir)

	// The faulted stack. 1. An embed worker dies mid-part; meanwhile a second append on the
	// same index starts: 30 rows it already holds, 40 new ones. 2. The other embed worker dies
	// mid-part (no embed worker is left); a fresh one starts.
	s := newChaosStack(t, modelDir)
	run := c.start(t, s)
	build := run.build
	run.killEmbedder(t)
	run.replaceEmbedder(t)

	// 3. The server dies with shards building, and comes back on its SQLite file and folder.
	inFlight := run.beforeNextFault(t)
	f3 := run.strike("SIGKILL server, restart it", inFlight, func() {
		kill(t, s.server)
		if err := s.startServer(t); err != nil {
			t.Fatal(err)
		}
	})
	awaitRecovery(t, s.root(), f3, build, 3*time.Minute)

	run.finish(t, ref)
	s.stopWorkers(t)
	s.server.interrupt(t)
}

// chaosCase is one chaos scenario's data: the slice, its three files, the index name and the
// embedding part size the reference and the faulted stack share.
type chaosCase struct {
	slice                          chaosSlice
	seedFile, buildFile, extraFile string
	index                          string
	partSize                       int
	began                          time.Time
}

func newChaosCase(t *testing.T, index string, partSize int) *chaosCase {
	t.Helper()
	c := &chaosCase{slice: realtimeqaChaosSlice(t), index: index, partSize: partSize, began: time.Now()}
	files := t.TempDir()
	c.seedFile = writeParquetFile(t, files, "seed.parquet", c.slice.seed)
	c.buildFile = writeParquetFile(t, files, "build.parquet", c.slice.build)
	c.extraFile = writeParquetFile(t, files, "extra.parquet", c.slice.extra)
	return c
}

// chaosReference is what the fault-free reference built: its answers to chaosQuestions, its
// live shard ids and how long the append that the faulted stack builds under faults took.
type chaosReference struct {
	answers, shards []string
	build           time.Duration
}

// reference builds the three files one after the other, with no faults, on `asof server` and
// one worker on all queues.
func (c *chaosCase) reference(t *testing.T, modelDir string) chaosReference {
	t.Helper()
	ref := newChaosStack(t, modelDir)
	ref.indexName, ref.partSize = c.index, c.partSize
	ref.startWorker(t, "all", "asof-default,asof-embed,asof-llm")
	indexResult(t, ref.index(t, c.seedFile, false), 4*time.Minute)
	refStart := time.Now()
	indexResult(t, ref.index(t, c.buildFile, true), 6*time.Minute)
	var r chaosReference
	r.build = time.Since(refStart)
	indexResult(t, ref.index(t, c.extraFile, true), 4*time.Minute)
	r.answers = ref.ask(t)
	r.shards = checkPublished(t, ref.root(), c.slice)
	ref.stopWorkers(t)
	ref.server.interrupt(t)
	t.Logf("reference built in %s (the faulted append alone: %s)", time.Since(c.began).Round(time.Second), r.build.Round(time.Second))
	return r
}

// chaosRun is the faulted stack's build under way: the seed is built, the build file's append
// runs, and faults strike it.
type chaosRun struct {
	c          *chaosCase
	s          *chaosStack
	build      *proc
	extra      *proc
	embed      [2]*proc // the embed workers; after killEmbedder, [0] is the one it spared
	buildStart time.Time
	watch      *partWatch
	faults     []*fault
}

// start starts three workers on s (asof-default; asof-embed; asof-embed + asof-llm), builds
// the seed (checking its counts), then starts the append of the build file.
func (c *chaosCase) start(t *testing.T, s *chaosStack) *chaosRun {
	t.Helper()
	s.indexName, s.partSize = c.index, c.partSize
	s.startWorker(t, "default", "asof-default")
	embed := [2]*proc{s.startWorker(t, "embed", "asof-embed"), s.startWorker(t, "embed+llm", "asof-embed,asof-llm")}
	seed := indexResult(t, s.index(t, c.seedFile, false), 4*time.Minute)
	checkCounts(t, "seed", seed, len(c.slice.seed), len(c.slice.seed), 0)
	r := &chaosRun{c: c, s: s, embed: embed, watch: watchParts(s.root()), buildStart: time.Now()}
	r.build = s.index(t, c.buildFile, true)
	return r
}

// killEmbedder is the first fault: once a part is stored, the embed worker that embeds a
// shard dies mid-part (SIGKILL); then the second append (30 rows the index holds, 40 new)
// starts, and it waits for the build to recover.
func (r *chaosRun) killEmbedder(t *testing.T) {
	t.Helper()
	s := r.s
	awaitParts(t, s.root(), 1, r.build, 3*time.Minute)
	victim, shard := s.awaitEmbedding(t, r.build, time.Minute, r.embed[0], r.embed[1])
	if victim == r.embed[0] {
		r.embed[0], r.embed[1] = r.embed[1], r.embed[0]
	}
	f := r.strike("SIGKILL worker "+s.nameOf(victim)+" mid-part", []string{shard}, func() { kill(t, victim) })
	r.extra = s.index(t, r.c.extraFile, true)
	awaitRecovery(t, s.root(), f, r.build, 2*time.Minute)
}

// replaceEmbedder is the fault after killEmbedder: the other embed worker dies mid-part (none
// is left) and a fresh one starts; it waits for the build to recover.
func (r *chaosRun) replaceEmbedder(t *testing.T) {
	t.Helper()
	s, other := r.s, r.embed[0]
	_, shard := s.awaitEmbedding(t, r.build, time.Minute, other)
	f := r.strike("SIGKILL worker "+s.nameOf(other)+", start a fresh one", []string{shard}, func() {
		kill(t, other)
		s.startWorker(t, "embed+llm 3", "asof-embed,asof-llm")
	})
	awaitRecovery(t, s.root(), f, r.build, 2*time.Minute)
}

// strike records a fault on the shards it watches, then does it. The fault's took is how
// long do took (a restart: down and up again).
func (r *chaosRun) strike(what string, watch []string, do func()) *fault {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var before int64
	c, err := client.Dial(client.Options{HostPort: r.s.hostPort, Namespace: r.s.namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err == nil {
		before, _, err = r.s.temporalState(ctx, c, watch)
		c.Close()
	}
	f := &fault{what: what, watch: map[string]int{}, at: time.Now(), stack: r.s}
	for _, wf := range watch {
		f.watch[wf], _ = r.s.unitParts(wf)
	}
	do()
	f.took = time.Since(f.at)
	if err == nil {
		r.s.watchTemporal(f, watch, before, r.build)
	}
	r.faults = append(r.faults, f)
	return f
}

// beforeNextFault waits for another stored part and returns the shards in flight then.
func (r *chaosRun) beforeNextFault(t *testing.T) []string {
	t.Helper()
	awaitParts(t, r.s.root(), countParts(r.s.root())+1, r.build, 2*time.Minute)
	inFlight, _, err := r.s.embedding()
	if err != nil || len(inFlight) == 0 {
		t.Fatalf("no shard in flight before the next fault (%v)", err)
	}
	return inFlight
}

// finish waits for both appends and checks them against the reference: counts that reconcile,
// every part embedded once or resumed, the published index (checkPublished) with the
// reference's shard ids, and the reference's answers. It logs the recovery times.
func (r *chaosRun) finish(t *testing.T, ref chaosReference) {
	t.Helper()
	c, s := r.c, r.s
	res := indexResult(t, r.build, 6*time.Minute)
	buildTook := time.Since(r.buildStart)
	extraRes := indexResult(t, r.extra, 6*time.Minute)
	seen := r.watch.finish()
	checkCounts(t, "faulted append", res, len(c.slice.build), len(c.slice.build), 0)
	checkCounts(t, "second append", extraRes, len(c.slice.extra), len(c.slice.extra)-c.slice.overlap, c.slice.overlap)
	// Each shard's last attempt finds the parts stored before it (resumed) and embeds the rest:
	// ceil(50/part size) parts per shard of 50 chunks in all, at least one resumed after a kill.
	perShard := (50 + c.partSize - 1) / c.partSize
	if wantParts := res.ShardsBuilt * perShard; res.ShardsBuilt != 6 || res.PartsResumed < 1 || res.PartsEmbedded+res.PartsResumed != wantParts {
		t.Errorf("faulted append: %d shards, %d parts embedded + %d resumed, want 6 shards and %d parts with at least one resumed",
			res.ShardsBuilt, res.PartsEmbedded, res.PartsResumed, wantParts)
	}
	got := s.ask(t)
	gotShards := checkPublished(t, s.root(), c.slice)
	if !slices.Equal(gotShards, ref.shards) {
		t.Errorf("published shards differ from the reference's:\n got %v\nwant %v", gotShards, ref.shards)
	}
	for i := range chaosQuestions {
		if got[i] != ref.answers[i] {
			t.Errorf("answer to %q differs from the reference's: %s", chaosQuestions[i], firstDiff(got[i], ref.answers[i]))
		}
	}

	parts := 0
	for p := range seen {
		if strings.HasSuffix(p, ".f32") {
			parts++
		}
	}
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "recovery times (%d parts stored; faulted append %s, %s in the reference):\n",
		parts, buildTook.Round(time.Second), ref.build.Round(time.Second))
	fmt.Fprintf(&tbl, "  %-54s %7s %10s %10s %13s %15s\n", "fault", "watched", "fault took", "next part", "watched moved", "Temporal wrote")
	for _, f := range r.faults {
		d := func(at time.Time) string {
			if at.IsZero() {
				return "build done"
			}
			return at.Sub(f.at).Round(10 * time.Millisecond).String()
		}
		hist := "not watched"
		if f.wroteDone != nil {
			<-f.wroteDone
			hist = d(f.wrote)
		}
		fmt.Fprintf(&tbl, "  %-54s %7d %10s %10s %13s %15s\n", f.what, len(f.watch), f.took.Round(10*time.Millisecond), d(f.next), d(f.recovered), hist)
	}
	t.Log(tbl.String())
}

func countParts(root string) int {
	got, _ := filepath.Glob(filepath.Join(root, "staging", "*", "vectors", "*.f32"))
	return len(got)
}

// checkCounts checks that a build read every row of its file and accounts for each one.
func checkCounts(t *testing.T, name string, res workflows.IndexBuildResult, read, indexed, duplicates int) {
	t.Helper()
	c := res.Counts
	if !c.Reconciles() || c.Read != int64(read) || c.Indexed != int64(indexed) || c.Quarantined[string(schemas.ReasonDuplicateID)] != int64(duplicates) || c.QuarantinedTotal() != int64(duplicates) {
		t.Errorf("%s: counts %+v, want %d read = %d indexed + %d duplicate_id", name, c, read, indexed, duplicates)
	}
}

// checkPublished reads the index from the gateway's folder and checks the manifest chain and
// the published shards: every manifest numbered as its file, CURRENT on the newest, each one
// keeping its predecessor's shards (appends only add), chunk counts that add up, every object
// of the live shards present with its recorded size and hash; and every chunk of the slice in
// exactly one live shard, nothing else, and no shard on disk outside it. It returns the live shard ids, sorted.
func checkPublished(t *testing.T, root string, slice chaosSlice) []string {
	t.Helper()
	var cur struct {
		Manifest string `json:"manifest"`
		Seq      int    `json:"seq"`
	}
	readJSON(t, filepath.Join(root, "CURRENT"), &cur)
	names, _ := filepath.Glob(filepath.Join(root, "manifests", "*.json"))
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("no manifest")
	}
	var prev *schemas.Manifest
	var live schemas.Manifest
	for _, n := range names {
		var m schemas.Manifest
		readJSON(t, n, &m)
		if want := fmt.Sprintf("%06d.json", m.Seq); filepath.Base(n) != want {
			t.Errorf("manifest %s holds seq %d", n, m.Seq)
		}
		var chunks int64
		for _, s := range m.Shards {
			chunks += int64(s.Chunks)
		}
		if chunks != m.Counts.Chunks || !m.Counts.Reconciles() {
			t.Errorf("manifest %d: counts %+v, shards hold %d chunks", m.Seq, m.Counts, chunks)
		}
		if prev != nil {
			if m.Model != prev.Model || m.Period != prev.Period || m.Chunk != prev.Chunk {
				t.Errorf("manifest %d changes the model, period or chunking of %d", m.Seq, prev.Seq)
			}
			ids := map[string]bool{}
			for _, s := range m.Shards {
				ids[s.ID] = true
			}
			for _, s := range prev.Shards {
				if !ids[s.ID] {
					t.Errorf("manifest %d drops shard %s of manifest %d", m.Seq, s.ID, prev.Seq)
				}
			}
		}
		prev = &m
		if "manifests/"+filepath.Base(n) == cur.Manifest {
			live = m
		}
	}
	if cur.Seq != prev.Seq || live.Seq != cur.Seq {
		t.Errorf("CURRENT %+v, newest manifest %d", cur, prev.Seq)
	}
	t.Logf("%s: %d manifests, CURRENT at %d, %d live shards", root, len(names), cur.Seq, len(live.Shards))

	where := map[string][]string{} // chunk id → live shards holding it
	docs := map[string]bool{}
	var ids []string
	for _, s := range live.Shards {
		ids = append(ids, s.ID)
		for _, o := range s.Objects {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(o.Key)))
			if sum := sha256.Sum256(b); err != nil || int64(len(b)) != o.Size || hex.EncodeToString(sum[:]) != o.SHA256 {
				t.Errorf("shard %s: object %s: %v, %d bytes (want %d and its recorded sha256)", s.ID, o.Key, err, len(b), o.Size)
			}
		}
		chunks, err := parquet.ReadFile[schemas.Chunk](filepath.Join(root, "shards", s.Period, s.ID, "chunks.parquet"))
		if err != nil {
			t.Fatalf("shard %s: %v", s.ID, err)
		}
		if len(chunks) != s.Chunks {
			t.Errorf("shard %s: %d chunks, meta says %d", s.ID, len(chunks), s.Chunks)
		}
		for _, c := range chunks {
			where[c.ChunkID] = append(where[c.ChunkID], s.ID)
			docs[c.DocID] = true
		}
	}
	for id, in := range where {
		if len(in) != 1 {
			t.Errorf("chunk %s is in %d live shards: %v", id, len(in), in)
		}
	}
	wantDocs := map[string]bool{}
	for _, part := range [][]schemas.Document{slice.seed, slice.build, slice.extra} {
		for _, d := range part {
			wantDocs[d.DocID] = true
		}
	}
	if !maps.Equal(docs, wantDocs) {
		var lost, extra []string
		for d := range wantDocs {
			if !docs[d] {
				lost = append(lost, d)
			}
		}
		for d := range docs {
			if !wantDocs[d] {
				extra = append(extra, d)
			}
		}
		t.Errorf("live shards hold %d documents, want %d: lost %v, unexpected %v", len(docs), len(wantDocs), lost, extra)
	}
	if int64(len(where)) != live.Counts.Chunks || live.Counts.Indexed != int64(len(wantDocs)) {
		t.Errorf("live manifest counts %+v; shards hold %d chunks of %d documents", live.Counts, len(where), len(docs))
	}
	onDisk, _ := filepath.Glob(filepath.Join(root, "shards", "*", "*"))
	if len(onDisk) != len(live.Shards) {
		t.Errorf("%d shard folders on disk, the live manifest lists %d: %v", len(onDisk), len(live.Shards), onDisk)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "staging", "*")); len(left) > 0 {
		t.Errorf("staging left behind: %v", left)
	}
	sort.Strings(ids)
	return ids
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// firstDiff shows the first line where two multi-line texts differ, with the line before it.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end)"
		}
		if line(g) != line(w) {
			before := ""
			if i > 0 {
				before = g[i-1]
			}
			return fmt.Sprintf("line %d, after %q:\n got %s\nwant %s", i+1, strings.TrimSpace(before), line(g), line(w))
		}
	}
	return "no difference"
}
