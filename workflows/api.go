package workflows

// This file is asof's public workflow API: what a client (the CLI, the examples, another
// program) needs to start asof's workflows and read their results: the task queue, the inputs
// and results, the query name and the error types. The workflow ids are the client package's
// (client/ids.go), with a typed call per use case. The workflows themselves
// are in one file each; the activities they call are not part of the API.

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// APIVersion is the major version of asof's public workflow API (docs/api.md): the workflow
// type names Ask, Digest, Eval, IndexBuild and Timeline, the task queue, and the JSON of their inputs and
// results published in schemas/jsonschema/ (each file says it as "x-asof-api-version").
//
// Within one major version changes are additive only: a field may be added (a client that does
// not send it gets the default, a reader that does not know it ignores it), never removed,
// renamed or retyped. Any such change needs the next major version, and the workflow type names
// stay as they are. TestAPIChangesAreAdditive holds the fields of this version in
// schemas/jsonschema/api-v<N>.fields and fails when one disappears without a bump. Changes to
// workflow code that running workflows replay go behind workflow.GetVersion, as before: they
// are not API changes.
const APIVersion = 1

// TaskQueue is where workflows and general activities run.
const TaskQueue = config.QueueDefault

// ProgressQuery answers an IndexBuild's progress.
const ProgressQuery = "progress"

// ErrTypeHealth marks a failed health check; it is not retried.
const ErrTypeHealth = "HealthCheckFailed"

// Names a client passes in inputs or reads in results that are defined where the work is
// done; they are aliases, so there is one definition.

// InputFile is one corpus file in the store (IndexBuildInput.Inputs): its key, which the CLI
// builds with layout.CorpusKey, and its name for reports.
type InputFile = indexplan.InputFile

// FileCounts is one input file's row of a build's per-file table (IndexBuildResult.Files, or
// the table stored at IndexBuildResult.FilesKey).
type FileCounts = indexplan.FileCounts

// Topic is one topic of a digest (DigestInput.Topics): its name and question, and optionally
// its mode and dates.
type Topic = digest.Topic

// ModeAuto is AskInput.Mode's default: the query-intent parser chooses the mode and dates.
const ModeAuto = answer.Auto

// RubricLLM is EvalSummariesInput.Rubric asking the LLM for the study's scores.
const RubricLLM = sumeval.RubricLLM

// DefaultEmbedPartSize is how many chunks an index build embeds and stores at a time when
// IndexBuildInput.EmbedPartSize is zero.
const DefaultEmbedPartSize = activities.DefaultEmbedPartSize

// ErrTypeInvalidInput is the application error type of input no retry can fix.
const ErrTypeInvalidInput = activities.ErrTypeInvalidInput

// IndexBuild

// IndexBuildInput describes a build.
type IndexBuildInput struct {
	Index string `json:"index"`
	// Inputs lists the input files; InputsKey, instead, names that list in the store
	// (layout.InputListKey, a JSON array of InputFile, as the CLI writes it) so the input does
	// not grow with the number of files. InputCount is the list's length, for reports.
	Inputs     []InputFile       `json:"inputs"`
	InputsKey  string            `json:"inputs_key,omitempty"`
	InputCount int               `json:"input_count,omitempty"`
	Mapping    map[string]string `json:"mapping"`
	// From and To keep rows published in that range (inclusive days; zero: unbounded).
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Period is the shard unit: day, week, month (default), quarter or year.
	Period string              `json:"period"`
	Chunk  schemas.ChunkConfig `json:"chunk"`
	// Concurrency bounds the children building shards at once (default 2): batches of
	// consecutive small periods (indexplan.Batches; a period of more than
	// indexplan.BatchMaxDocs documents is a batch of its own), or single shards in runs started
	// before batching.
	Concurrency int `json:"concurrency"`
	// EmbedPartSize is how many chunks are embedded and stored at a time (0: DefaultEmbedPartSize, 128): the
	// unit of progress a crashed embedding worker loses at most.
	EmbedPartSize int `json:"embed_part_size"`
	// EmbedHeartbeat is how long an embedding worker may go silent before it counts as lost
	// and its work is retried elsewhere (default 1 min). EmbedShard heartbeats on a ticker while
	// a part embeds, up to keepalive.PartStall, so it need not exceed one part's time.
	EmbedHeartbeat time.Duration `json:"embed_heartbeat"`
	// AsOf stamps the manifest; zero means the workflow's current time.
	AsOf time.Time `json:"as_of"`
	// MaxShardsPerRun bounds the shards one run builds before it continues as new (default
	// 200), so a build of thousands of periods keeps a short history. The next run plans again
	// and finds the finished shards done.
	MaxShardsPerRun int `json:"max_shards_per_run"`
	// Append adds the inputs to the live index without rebuilding its shards (see
	// activities.PlanIndexInput.Append).
	Append bool `json:"append"`
	// AllowFuture indexes rows published after the day after the build started; by default
	// they are quarantined as future_date.
	AllowFuture bool `json:"allow_future"`
	// Replace publishes the build even when it lacks documents the live index holds; without
	// it (and without Append) such a build is refused (see activities.PlanIndexInput.Replace).
	Replace bool `json:"replace"`
	// Started is when the build started; zero means the workflow's current time, set once and
	// carried across continue-as-new so every run checks dates against the same day.
	Started time.Time `json:"started"`
	// Carried holds the earlier runs' tallies after a continue-as-new.
	Carried *IndexBuildCarry `json:"carried,omitempty"`
	// Kind is how rows without a kind column value are read: "news" (or empty: dated news,
	// fresher preferred, the recency window) or "standing" (texts in force until superseded:
	// regulations, circulars, policies). An append without one keeps the index's.
	Kind string `json:"kind,omitempty"`
}

// IndexBuildCarry is what a build carries across continue-as-new.
type IndexBuildCarry struct {
	Runs          int `json:"runs"`
	ShardsBuilt   int `json:"shards_built"`
	Truncated     int `json:"truncated"`
	PartsEmbedded int `json:"parts_embedded"`
	PartsResumed  int `json:"parts_resumed"`
	// Plan is the stored plan the first run made (its keys and counts); Offset counts the
	// shards to build that the earlier runs built, ChunksBuilt and DocsBuilt their chunks and
	// documents. Runs started before the plan was stored plan again instead.
	Plan        *IndexBuildPlan `json:"plan,omitempty"`
	Offset      int             `json:"offset,omitempty"`
	ChunksBuilt int             `json:"chunks_built,omitempty"`
	DocsBuilt   int             `json:"docs_built,omitempty"`
}

// IndexBuildPlan is what a build's runs keep of its plan: the keys of the stored plan and
// per-file table, and counts; nothing in it grows with the number of files or shards.
type IndexBuildPlan struct {
	PlanKey       string              `json:"plan_key"`
	FilesKey      string              `json:"files_key"`
	FileCount     int                 `json:"file_count"`
	QuarantineKey string              `json:"quarantine_key,omitempty"`
	Counts        schemas.IndexCounts `json:"counts"`
	Base          schemas.IndexCounts `json:"base"`
	BaseSeq       int                 `json:"base_seq,omitempty"`
	Model         schemas.ModelRef    `json:"model"`
	// Kind is the kind the plan read rows without one as (PlanIndexResult.Kind).
	Kind string `json:"kind,omitempty"`
	// Shards counts every period's shard; Done those built before the plan (Chunks their
	// chunks); ToBuild the others, holding DocsToBuild documents.
	Shards      int `json:"shards"`
	Done        int `json:"done"`
	Chunks      int `json:"chunks"`
	ToBuild     int `json:"to_build"`
	DocsToBuild int `json:"docs_to_build"`
}

// IndexBuildResult reports the build.
type IndexBuildResult struct {
	ManifestKey string              `json:"manifest_key"`
	Seq         int                 `json:"seq"`
	Unchanged   bool                `json:"unchanged"`
	Counts      schemas.IndexCounts `json:"counts"`
	Files       []FileCounts        `json:"files"`
	// FilesKey names the per-file table in the store (layout.BuildFilesKey, a JSON array of
	// FileCounts) instead of Files, which a build with a stored plan leaves empty;
	// FileCount is its rows. The CLI reads it back to print the table.
	FilesKey      string `json:"files_key,omitempty"`
	FileCount     int    `json:"file_count,omitempty"`
	QuarantineKey string `json:"quarantine_key,omitempty"`
	ShardsBuilt   int    `json:"shards_built"`
	ShardsReused  int    `json:"shards_reused"`
	// Truncated counts the documents of the shards this build made that were cut at
	// MaxChunksPerDoc chunks (the rest of their text is not indexed).
	Truncated int `json:"truncated"`
	// MaxChunksPerDoc is the build's cap on chunks per document (0: none).
	MaxChunksPerDoc int `json:"max_chunks_per_doc"`
	// PartsEmbedded and PartsResumed count embedding parts computed, and found already stored
	// after a worker was lost or an activity retried.
	PartsEmbedded int `json:"parts_embedded"`
	PartsResumed  int `json:"parts_resumed"`
	// Runs is how many workflow runs the build took (more than 1 after continue-as-new).
	Runs int `json:"runs"`
	// Model is the embedding model the build embedded with (the planning worker's).
	Model schemas.ModelRef `json:"model"`
	// Kind is the kind rows without one were read as; Lifecycle the published lifecycle table
	// (standing texts, versions, supersession), nil when the index needs none.
	Kind      string                `json:"kind,omitempty"`
	Lifecycle *schemas.LifecycleRef `json:"lifecycle,omitempty"`
}

// Progress is what ProgressQuery returns.
type Progress struct {
	Stage       string `json:"stage"`
	ShardsTotal int    `json:"shards_total"`
	ShardsDone  int    `json:"shards_done"`
	ChunksDone  int    `json:"chunks_done"`
	// DocsToBuild counts the documents of shards not built yet.
	DocsToBuild int `json:"docs_to_build"`
	// InFlight lists the shards being built now (every shard of each batch in flight); a
	// client can count their stored embedding parts (layout.VectorsPrefix) for finer progress.
	InFlight []InFlightShard `json:"in_flight,omitempty"`
	// Model and Languages are known once the plan is: the model the shards are embedded with
	// and this build's documents per language, so a client can warn about a model that does
	// not read them before the embedding starts.
	Model     schemas.ModelRef `json:"model"`
	Languages map[string]int64 `json:"languages,omitempty"`
}

// InFlightShard is a shard being built.
type InFlightShard struct {
	Period  string `json:"period"`
	ShardID string `json:"shard_id"`
	Docs    int    `json:"docs"`
	// Workflow is the child workflow building it: "<build>/shard-<shard id>" (one a shard) or
	// "<build>/batch-<first shard id>" (a batch of small periods, shared by its shards).
	Workflow string `json:"workflow,omitempty"`
}

// Ask

// AskInput is one as-of question.
type AskInput struct {
	Index string `json:"index"`
	Query string `json:"query"`
	// AsOf is the anchor day, years 1000 to 9999 (asofday.Check). Zero is "not given": the
	// workflow refuses it unless AsOfToday is set.
	AsOf time.Time `json:"as_of"`
	// AsOfToday, with a zero AsOf, asks as of the workflow's own current day (UTC): the
	// caller's explicit choice of "today" (asof ask without --as-of sets it).
	AsOfToday bool `json:"as_of_today,omitempty"`
	// Mode is auto (default) or one of retrieve's modes.
	Mode string `json:"mode"`
	// From and To are explicit dates (--year, --from/--to).
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Options tune retrieval (zero: retrieve.DefaultOptions); Mode, From and To in it are
	// ignored in favour of the fields above.
	Options *retrieve.Options  `json:"options,omitempty"`
	Dedup   *dedup.Options     `json:"dedup,omitempty"`
	Context *evidence.Options  `json:"context,omitempty"`
	Summary *summarize.Options `json:"summary,omitempty"`
	// Judge shapes the judge fan-out (nil: DefaultJudgeOptions).
	Judge *JudgeOptions `json:"judge,omitempty"`
	// Summarizer is auto (the LLM on asof-llm when its worker has one, else extractive) or
	// extractive.
	Summarizer string `json:"summarizer,omitempty"`
	// Quiet returns only the answer's run id, query, anchor, mode and summary method; the
	// whole answer is in runs/<run-id>/answer.json. Bulk callers that run many Asks as child
	// workflows (the summaries evaluation) keep their own history small with it: a child's
	// result is recorded in its parent's history.
	Quiet bool `json:"quiet,omitempty"`
	// Expand asks the LLM for rephrasings and a hypothetical answer, searched too (nil or
	// zero: off, the default; not measured on a real LLM yet, see docs/retrieval.md).
	Expand *ExpandOptions `json:"expand,omitempty"`
}

// ExpandOptions turn on LLM query expansion (internal/expand).
type ExpandOptions struct {
	// Queries is how many rephrasings to search with (0..5); HyDE adds a hypothetical answer
	// passage, embedded as a passage and searched by the dense branch.
	Queries int  `json:"queries"`
	HyDE    bool `json:"hyde"`
}

// JudgeOptions shape the judge fan-out of one answer.
type JudgeOptions struct {
	// Mode is auto (the LLM when the asof-llm worker has one, else the heuristic), llm,
	// heuristic or off.
	Mode string `json:"mode"`
	// Pool is how many candidates are judged; Batch how many go in one Judge activity.
	Pool  int `json:"pool"`
	Batch int `json:"batch"`
	// Failure is what a batch that failed after every retry does: keep (its candidates stay,
	// unjudged), drop (they go) or fail (the answer fails).
	Failure string `json:"failure"`
	// MaxAttempts bounds the tries of one batch (the first one included).
	MaxAttempts int `json:"max_attempts"`
}

// Judge failure policies (JudgeOptions.Failure): what a batch that failed after every retry does.
const (
	FailureKeep = "keep"
	FailureDrop = "drop"
	FailureFail = "fail"
)

// AskInputFrom is the Ask workflow's input for a checked request: the flags of `asof ask` or
// the body of POST /v1/ask (internal/apispec). A judge mode the request names is checked here,
// as an *apispec.InvalidError.
func AskInputFrom(a apispec.Ask) (AskInput, error) {
	opts := a.Options
	in := AskInput{Index: a.Index, Query: a.Query, Mode: a.Mode, AsOf: a.AsOf, AsOfToday: a.Today, From: a.From, To: a.To, Options: &opts, Summarizer: a.Summarizer}
	if a.Judge != "" {
		j := DefaultJudgeOptions()
		j.Mode = a.Judge
		if err := j.Validate(); err != nil {
			return in, &apispec.InvalidError{Err: fmt.Errorf("judge: %w", err)}
		}
		in.Judge = &j
	}
	return in, nil
}

// DefaultJudgeOptions: auto, a pool of 40 in batches of 8, keep on failure, 4 attempts.
func DefaultJudgeOptions() JudgeOptions {
	return JudgeOptions{Mode: judge.ModeAuto, Pool: answer.DefaultPool, Batch: 8, Failure: FailureKeep, MaxAttempts: 4}
}

// Validate reports options that cannot judge.
func (o JudgeOptions) Validate() error {
	switch o.Mode {
	case judge.ModeAuto, judge.ModeLLM, judge.ModeHeuristic, judge.ModeOff:
	default:
		return fmt.Errorf("judge mode %q: use auto, llm, heuristic or off", o.Mode)
	}
	switch o.Failure {
	case FailureKeep, FailureDrop, FailureFail:
	default:
		return fmt.Errorf("judge failure policy %q: use keep, drop or fail", o.Failure)
	}
	if o.Pool < 1 || o.Batch < 1 || o.MaxAttempts < 1 {
		return fmt.Errorf("judge pool %d, batch %d and max attempts %d must be positive", o.Pool, o.Batch, o.MaxAttempts)
	}
	return nil
}

// Digest

// DigestInput is a set of topics to answer as of one day.
type DigestInput struct {
	// Name names the digest; it is written under digests/<name>/<as-of day>/.
	Name   string         `json:"name"`
	Index  string         `json:"index"`
	Topics []digest.Topic `json:"topics"`
	// AsOf is the anchor day; zero means the workflow's own current day in TimeZone (what a
	// scheduled run wants).
	AsOf time.Time `json:"as_of"`
	// AsOfMode, with a zero AsOf, chooses the anchor day: "" or "today", the workflow's own
	// current day in TimeZone (a schedule's fire day); "latest", the day of the index's newest
	// document (a schedule over an archive no longer fed).
	AsOfMode string `json:"as_of_mode,omitempty"`
	// TimeZone is an IANA name (default UTC).
	TimeZone string `json:"time_zone"`
	// Concurrency is how many topics are answered at once (default 2).
	Concurrency int           `json:"concurrency"`
	Judge       *JudgeOptions `json:"judge,omitempty"`
	Summarizer  string        `json:"summarizer,omitempty"`
	// History, when positive, adds each topic's timeline of that many days as of the digest's
	// day (a child Timeline per topic, as asof timeline builds it) as the topic's history.
	History int `json:"history,omitempty"`
}

// DigestResult names the written digest.
type DigestResult struct {
	AsOf   time.Time                  `json:"as_of"`
	Keys   activities.WriteDigestKeys `json:"keys"`
	Topics int                        `json:"topics"`
	// Failed counts topics whose answer failed (the digest says why for each).
	Failed int `json:"failed"`
}

// DigestInputFrom is the Digest workflow's input for a checked request (the flags of
// `asof digest` or the body of POST /v1/digests); Concurrency is left to the default.
func DigestInputFrom(d apispec.Digest) DigestInput {
	return DigestInput{Name: d.Name, Index: d.Index, Topics: d.Topics, AsOf: d.AsOf, TimeZone: d.TimeZone, History: d.History}
}

// Eval

// EvalInput is one bulk evaluation.
type EvalInput struct {
	// EvalID names the evaluation's folder (evals/<id>/); equal inputs give equal ids, so a
	// rerun finds finished batches and resumes.
	EvalID       string `json:"eval_id"`
	Index        string `json:"index"`
	QuestionsKey string `json:"questions_key"`
	QrelsKey     string `json:"qrels_key"`
	// Unlabelled: QuestionsKey holds queries without judgements (query_id, query,
	// anchor_date); only context freshness is measured.
	Unlabelled bool      `json:"unlabelled"`
	Systems    []string  `json:"systems"`
	Limit      int       `json:"limit"`
	Seed       uint64    `json:"seed"`
	From       time.Time `json:"from"`
	To         time.Time `json:"to"`
	// BatchSize is how many questions one activity answers (default 25); Concurrency how many
	// batches run at once (default 2).
	BatchSize   int `json:"batch_size"`
	Concurrency int `json:"concurrency"`
}

// EvalResult is the evaluation's summary and where its files are.
type EvalResult struct {
	Finish   activities.FinishEvalResult `json:"finish"`
	Batches  int                         `json:"batches"`
	Resumed  int                         `json:"resumed"`
	Unjudged int                         `json:"unjudged"`
}

// EvalSummaries

// EvalSummariesInput is one summaries evaluation: asof's answers to a set of dated queries,
// measured like the Telegram study measured its summaries, beside the study's own answers.
type EvalSummariesInput struct {
	// EvalID names the evaluation (evals/summaries/<id>/ and its Ask runs); equal inputs give
	// equal ids, so a rerun finds the answers already stored and asks only the rest.
	EvalID     string `json:"eval_id"`
	Index      string `json:"index"`
	QueriesKey string `json:"queries_key"`
	// QuestionsKey and QrelsKey, instead of QueriesKey, are judged questions: those with
	// judgements dated within [From, To] are answered, and the summaries are also scored
	// against the judgements (summary lead, support, noise).
	QuestionsKey string    `json:"questions_key,omitempty"`
	QrelsKey     string    `json:"qrels_key,omitempty"`
	From         time.Time `json:"from,omitzero"`
	To           time.Time `json:"to,omitzero"`
	// StudyKey is the study's answers (empty: asof alone).
	StudyKey string `json:"study_key,omitempty"`
	Limit    int    `json:"limit"`
	// Concurrency is how many Asks run at once (default 2).
	Concurrency int `json:"concurrency"`
	// Rubric is sumeval.RubricLLM to have the LLM grade asof's summaries (the study's five
	// scores), else empty: not judged.
	Rubric string `json:"rubric,omitempty"`
	// Summarizer writes the summaries: empty or extractive, or auto (the LLM's brief, checked,
	// where the asof-llm worker has an LLM; the extractive one where its check fails).
	Summarizer string `json:"summarizer,omitempty"`
}

// EvalSummariesResult is the table and where its files are.
type EvalSummariesResult struct {
	Finish activities.FinishSummariesResult `json:"finish"`
	// Asked counts the Asks this run started; Resumed the answers found from an earlier run;
	// Failed the Asks that failed (their rows say why).
	Asked   int `json:"asked"`
	Resumed int `json:"resumed"`
	Failed  int `json:"failed"`
}

// Timeline

// TimelineInput asks for the dated events of a topic as of a day (asof timeline).
type TimelineInput struct {
	Index string `json:"index"`
	// Topic is what the timeline is about: a name, a few words ("Libia", "key rate").
	Topic string `json:"topic"`
	// AsOf is the anchor day (required, years 1000 to 9999): nothing published or dated after
	// it is shown.
	AsOf time.Time `json:"as_of"`
	// From, when set, is the first day the timeline may show and search.
	From time.Time `json:"from,omitzero"`
	// Dates is how many days to show (0: one a week of the span found, 10 to 40); Sentences how
	// many sentences each day shows (0: 1, at most 3); Pool how many passages about the topic
	// are read (0: 300).
	Dates     int `json:"dates,omitempty"`
	Sentences int `json:"sentences,omitempty"`
	Pool      int `json:"pool,omitempty"`
	// BM25Only searches the topic's words alone, without embedding them.
	BM25Only bool `json:"bm25_only,omitempty"`
	// Quiet returns the timeline without its entries (they are in runs/<run-id>/timeline.json):
	// a parent that runs Timelines as children (a digest's histories) keeps its history small.
	Quiet bool `json:"quiet,omitempty"`
}

// TimelineInputFrom is the Timeline workflow's input for a checked request (apispec.Timeline),
// the same from `asof timeline` and POST /v1/timeline.
func TimelineInputFrom(t apispec.Timeline) TimelineInput {
	return TimelineInput{Index: t.Index, Topic: t.Topic, AsOf: t.AsOf, From: t.From, Dates: t.Dates, Sentences: t.Sentences, Pool: t.Pool, BM25Only: t.BM25}
}

// TakeDown

// TakeDownInput names documents to remove from an index, and why (recorded in its manifest).
type TakeDownInput struct {
	Index  string   `json:"index"`
	DocIDs []string `json:"doc_ids"`
	Reason string   `json:"reason"`
	// Purge, once the takedown is recorded, removes the text and vectors of every document
	// taken down from the store as well (asof docs delete --purge): the live shards are
	// written again without their rows, then every other object that holds their text is
	// deleted or written again (schemas.PurgeResult). A takedown with no DocIDs and Purge only
	// purges what earlier takedowns left masked.
	Purge bool `json:"purge,omitempty"`
}

// TakeDownResult is the manifest that records the takedown and what it took down.
type TakeDownResult = activities.TakeDownResult

// HealthCheck

// HealthCheckInput configures a health check.
type HealthCheckInput struct {
	// Prefix is the folder of the probe object in the store (default "health").
	Prefix string `json:"prefix"`
	// Queues to ping; each must have a worker polling it (default: all asof queues).
	Queues []string `json:"queues"`
	// QueueTimeout bounds the wait for a worker on each queue (default 20 s).
	QueueTimeout time.Duration `json:"queue_timeout"`
}

// HealthCheckResult reports each step.
type HealthCheckResult struct {
	Store     string                  `json:"store"`
	Key       string                  `json:"key"`
	Bytes     int64                   `json:"bytes"`
	WrittenAt time.Time               `json:"written_at"`
	Queues    []activities.PingResult `json:"queues"`
}
