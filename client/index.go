package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	temporal "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/chunk"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// IndexRun is a started (or followed) build of an index.
type IndexRun struct {
	*Run[workflows.IndexBuildResult]
	// Index is the index it builds; PartSize the chunks it embeds and stores at a time (what
	// WatchIndex counts stored parts in).
	Index    string
	PartSize int
	// Followed is true when the build was already running with the same inputs (StartIndex
	// followed it instead of starting another).
	Followed bool
}

// StartIndexOptions say what StartIndex tells its caller while it waits.
type StartIndexOptions struct {
	// OnRunning, when set, is called when a build of the index is already running: same is
	// true when it has the same inputs (it is followed), false when it is another build (this
	// one starts when it ends).
	OnRunning func(workflowID string, same bool)
	// NoWait returns ErrIndexBusy instead of waiting for another build of the index to end
	// (what a server that must answer now wants).
	NoWait bool
}

// ErrIndexBusy is StartIndex's error, with NoWait, while another build of the index runs.
var ErrIndexBusy = errors.New("another build of the index is running")

// StartIndex starts the IndexBuild workflow of in.Index (id IndexID: one build per index at a
// time). When one is already running with the same inputs (the same command run again, e.g.
// after its client was killed), it is followed instead. When it runs with other inputs (another
// append), this build waits for it to end and then starts: following it would drop this build's
// rows while reporting the other build's result.
func (c *Client) StartIndex(ctx context.Context, in workflows.IndexBuildInput, opts StartIndexOptions) (*IndexRun, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	id := IndexID(in.Index)
	what := "index " + in.Index
	partSize := in.EmbedPartSize
	if partSize <= 0 {
		partSize = workflows.DefaultEmbedPartSize
	}
	for {
		run, err := c.Temporal.ExecuteWorkflow(ctx, temporal.StartWorkflowOptions{
			ID: id, TaskQueue: workflows.TaskQueue, WorkflowExecutionErrorWhenAlreadyStarted: true,
		}, workflows.IndexBuild, in)
		var already *serviceerror.WorkflowExecutionAlreadyStarted
		if !errors.As(err, &already) {
			if err != nil {
				return nil, fmt.Errorf("start index build: %w", err)
			}
			return &IndexRun{Run: &Run[workflows.IndexBuildResult]{c: c, run: run, what: what}, Index: in.Index, PartSize: partSize}, nil
		}
		running, err := c.runningIndexInput(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("read the running build of index %s: %w", in.Index, err)
		}
		same := SameIndexBuild(running, in)
		if opts.OnRunning != nil {
			opts.OnRunning(id, same)
		}
		if !same && opts.NoWait {
			return nil, fmt.Errorf("%w: workflow %s (wait for it to end, or follow it)", ErrIndexBusy, id)
		}
		if same {
			return &IndexRun{Run: &Run[workflows.IndexBuildResult]{c: c, run: c.Temporal.GetWorkflow(ctx, id, ""), what: what},
				Index: in.Index, PartSize: partSize, Followed: true}, nil
		}
		// Its outcome is its own client's to report; this build plans on whatever it published.
		if err := c.Temporal.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// runningIndexInput reads the input of the latest run of workflow id from its first event.
func (c *Client) runningIndexInput(ctx context.Context, id string) (workflows.IndexBuildInput, error) {
	var in workflows.IndexBuildInput
	it := c.Temporal.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return in, errors.New("empty history")
	}
	ev, err := it.Next()
	if err != nil {
		return in, err
	}
	attrs := ev.GetWorkflowExecutionStartedEventAttributes()
	if attrs == nil {
		return in, fmt.Errorf("first event is %s", ev.GetEventType())
	}
	err = converter.GetDefaultDataConverter().FromPayloads(attrs.GetInput(), &in)
	return in, err
}

// SameIndexBuild reports whether two builds index the same rows the same way: the same input
// files, mapping, date range, period, chunking and mode. Tuning (concurrency, part size,
// heartbeat, shards per run) and what a run sets itself (as-of, start, carried tallies) differ
// freely.
func SameIndexBuild(a, b workflows.IndexBuildInput) bool {
	norm := func(in workflows.IndexBuildInput) string {
		in.Concurrency, in.EmbedPartSize, in.EmbedHeartbeat, in.MaxShardsPerRun = 0, 0, 0, 0
		in.AsOf, in.Started, in.Carried = time.Time{}, time.Time{}, nil
		in.From, in.To = in.From.UTC(), in.To.UTC()
		if in.Period == "" {
			in.Period = "month"
		}
		if len(in.Mapping) == 0 {
			in.Mapping = nil
		}
		out, _ := json.Marshal(in)
		return string(out)
	}
	return norm(a) == norm(b)
}

// IndexProgress is what a build reports while it runs: the workflow's progress query, and the
// chunks its in-flight shards have embedded and stored so far (finer than shards done).
type IndexProgress struct {
	workflows.Progress
	Embedded int `json:"embedded"`
}

// WatchOptions say how WatchIndex reports.
type WatchOptions struct {
	// Every is how often the progress query is asked (default 1 s).
	Every time.Duration
	// OnProgress, when set, gets each progress the query answers.
	OnProgress func(IndexProgress)
}

// StoppedWatching is WatchIndex's error when its context ended (Ctrl-C, SIGTERM, a client gone)
// while the build ran: the build itself is not failed, and Last is the last progress seen.
type StoppedWatching struct {
	Last  workflows.Progress
	Cause error
}

func (e *StoppedWatching) Error() string { return "stopped: " + e.Cause.Error() }
func (e *StoppedWatching) Unwrap() error { return e.Cause }

// WatchIndex reports the build's progress until it ends and returns its result, with the
// per-file table read back from the store when the build stored it (FileTable). A context that
// ends first returns a *StoppedWatching.
func (c *Client) WatchIndex(ctx context.Context, run *IndexRun, opts WatchOptions) (workflows.IndexBuildResult, error) {
	every := opts.Every
	if every <= 0 {
		every = time.Second
	}
	done := make(chan error, 1)
	var res workflows.IndexBuildResult
	go func() {
		var err error
		res, err = run.Wait(ctx)
		done <- err
	}()
	var last workflows.Progress
	tick := time.NewTicker(every)
	defer tick.Stop()
	var inFlight *InFlightCounter
	if c.Store != nil {
		inFlight = NewInFlightCounter(c.Store, run.Index, run.PartSize)
	}
	for {
		select {
		case err := <-done:
			if err == nil {
				err = c.FileTable(ctx, &res)
			}
			if err != nil && ctx.Err() != nil {
				return res, &StoppedWatching{Last: last, Cause: ctx.Err()}
			}
			return res, err
		case <-tick.C:
			p, err := c.IndexProgress(ctx, run.ID())
			if err != nil {
				continue
			}
			last = p
			if opts.OnProgress != nil {
				opts.OnProgress(IndexProgress{Progress: p, Embedded: inFlight.Count(ctx, p.InFlight)})
			}
		}
	}
}

// IndexProgress asks a running build (the latest run of workflowID, after continue-as-new too)
// for its progress.
func (c *Client) IndexProgress(ctx context.Context, workflowID string) (workflows.Progress, error) {
	var p workflows.Progress
	v, err := c.Temporal.QueryWorkflow(ctx, workflowID, "", workflows.ProgressQuery)
	if err != nil {
		return p, err
	}
	err = v.Get(&p)
	return p, err
}

// FileTable fills r.Files from the per-file table a build stored (r.FilesKey), so the result a
// user reads is the same whether the build stored it or carried it.
func (c *Client) FileTable(ctx context.Context, r *workflows.IndexBuildResult) error {
	if r.FilesKey == "" || r.Files != nil {
		return nil
	}
	if err := c.checkStore(); err != nil {
		return err
	}
	data, err := blob.ReadAll(ctx, c.Store, r.FilesKey)
	if err != nil {
		return fmt.Errorf("read the build's per-file table: %w", err)
	}
	if err := json.Unmarshal(data, &r.Files); err != nil {
		return fmt.Errorf("read the build's per-file table %s: %w", r.FilesKey, err)
	}
	return nil
}

// InFlightCounter counts the chunks the in-flight shards of a build have embedded, from their
// stored parts. Parts are stored in order and never change: every stored part of a shard but
// its last holds partSize chunks; the last may hold fewer (a shard's final part, or a small
// shard's only one), so its count is read from its header, once. Counting every part as full
// made a batch of small shards look like thousands of chunks (three one-part shards: 3072).
type InFlightCounter struct {
	b        blob.Bucket
	index    string
	partSize int
	counts   map[string]int // a read part's key → its chunks
}

// NewInFlightCounter counts the stored parts of index's shards, partSize chunks a full part.
func NewInFlightCounter(b blob.Bucket, index string, partSize int) *InFlightCounter {
	return &InFlightCounter{b: b, index: index, partSize: partSize, counts: map[string]int{}}
}

// Count is the chunks shards have stored. A part whose header cannot be read counts as full;
// a nil counter (a client without a store) counts none.
func (c *InFlightCounter) Count(ctx context.Context, shards []workflows.InFlightShard) int {
	if c == nil {
		return 0
	}
	n := 0
	for _, s := range shards {
		parts, last := 0, ""
		_ = c.b.Iter(ctx, layout.VectorsPrefix(c.index, s.ShardID)+"/", func(o blob.ObjectInfo) error {
			parts++
			last = max(last, o.Key) // zero-padded part numbers: the greatest key is the last part
			return nil
		})
		if parts > 0 {
			n += (parts-1)*c.partSize + c.partChunks(ctx, last)
		}
	}
	return n
}

func (c *InFlightCounter) partChunks(ctx context.Context, key string) int {
	if n, ok := c.counts[key]; ok {
		return n
	}
	r, err := c.b.Get(ctx, key)
	if err != nil {
		return c.partSize
	}
	defer r.Close()
	n, err := vecindex.ReadCount(r)
	if err != nil {
		return c.partSize
	}
	c.counts[key] = n
	return n
}

// IndexInput is the IndexBuild workflow's input for a checked request (the body of POST
// /v1/indexes/{name}/build) on staged inputs: the defaults of `asof index` (the default
// chunking, two shards at once, 200 shards a run, the default embedding part size).
func IndexInput(ix apispec.Index, inputs []workflows.InputFile) workflows.IndexBuildInput {
	mapping := map[string]string{}
	if ix.Telegram {
		for k, v := range corpus.TelegramMapping {
			mapping[k] = v
		}
	}
	for k, v := range ix.Mapping {
		mapping[k] = v
	}
	def := chunk.DefaultOptions()
	return workflows.IndexBuildInput{
		Index: ix.Name, Inputs: inputs, InputCount: len(inputs), Mapping: mapping, From: ix.From, To: ix.To, Period: ix.Period,
		Chunk:       schemas.ChunkConfig{Size: def.Size, Overlap: def.Overlap, Min: def.Min, MaxChunksPerDoc: def.MaxPieces},
		Concurrency: 2, EmbedPartSize: workflows.DefaultEmbedPartSize, EmbedHeartbeat: time.Minute, MaxShardsPerRun: 200,
		Append: ix.Append, AllowFuture: ix.AllowFuture, Replace: ix.Replace, Kind: ix.Kind,
	}
}

// StartIndexFromStore starts a build of Parquet objects already in the store (a checked
// request): each must exist (a missing one is an *apispec.InvalidError naming it); the input
// list is stored under its hash, as `asof index` stores its uploads'. A build of other inputs
// already running is ErrIndexBusy; one of the same inputs is followed.
func (c *Client) StartIndexFromStore(ctx context.Context, ix apispec.Index) (*IndexRun, error) {
	if err := c.checkStore(); err != nil {
		return nil, err
	}
	inputs := make([]workflows.InputFile, len(ix.Inputs))
	for i, k := range ix.Inputs {
		ok, err := c.Store.Exists(ctx, k)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &apispec.InvalidError{Err: fmt.Errorf("inputs: no object %s in the store", k)}
		}
		inputs[i] = workflows.InputFile{Key: k, Name: path.Base(k)}
	}
	key, err := c.StoreInputList(ctx, inputs)
	if err != nil {
		return nil, err
	}
	in := IndexInput(ix, nil)
	in.InputsKey = key
	return c.StartIndex(ctx, in, StartIndexOptions{NoWait: true})
}

// IndexBuildStatus is the latest build of an index: running (with its progress), completed
// (with its result) or failed (with its error); ErrNoWorkflow when it never had one.
func (c *Client) IndexBuildStatus(ctx context.Context, index string) (apispec.Status, error) {
	st, err := c.WorkflowStatus(ctx, IndexID(index))
	if err != nil || st.Status != apispec.StatusRunning {
		return st, err
	}
	// A build whose first task no worker has taken yet cannot answer a query: the call would
	// wait for the SDK's 10-second limit. Ask briefly, and answer "running" without progress.
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if p, err := c.IndexProgress(qctx, st.WorkflowID); err == nil {
		st.Progress, _ = json.Marshal(p)
	}
	return st, nil
}
