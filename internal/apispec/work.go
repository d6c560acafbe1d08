package apispec

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/lifecycle"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/schemas"
)

// MaxInputs is the most store objects one index build or evaluation request names.
const MaxInputs = 10000

// IndexRequest builds or updates an index from Parquet objects already in asof's store: the
// body of POST /v1/indexes/{name}/build, what `asof index` does after it uploads local files
// (the same defaults: monthly shards, the default chunking, news unless Kind says standing).
type IndexRequest struct {
	// Inputs are the keys of the Parquet files in the store (required), e.g. put there with an
	// S3 client, or corpora/… keys an earlier `asof index` uploaded.
	Inputs []string `json:"inputs"`
	// Mapping maps canonical columns to the input's (text=message); Telegram uses the Telegram
	// layout (message_id, message, date, channel_name, …) under it.
	Mapping  map[string]string `json:"mapping,omitempty"`
	Telegram bool              `json:"telegram,omitempty"`
	// From and To (YYYY-MM-DD) keep rows published in that range; others count as skipped.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Period is the shard unit: day, week, month (default), quarter or year.
	Period string `json:"period,omitempty"`
	// Kind is how rows without a kind column are read: news (default) or standing (texts in
	// force until superseded).
	Kind string `json:"kind,omitempty"`
	// Append adds the rows to the live index; Replace publishes the build even when it lacks
	// documents the live index holds (not both). AllowFuture indexes rows dated after tomorrow.
	Append      bool `json:"append,omitempty"`
	Replace     bool `json:"replace,omitempty"`
	AllowFuture bool `json:"allow_future,omitempty"`
}

// Index is a checked IndexRequest.
type Index struct {
	Name        string
	Inputs      []string
	Mapping     map[string]string
	Telegram    bool
	From, To    time.Time
	Period      string
	Kind        string
	Append      bool
	Replace     bool
	AllowFuture bool
}

// Check validates r for the index name, naming the fields with label; every error is an
// *InvalidError.
func (r IndexRequest) Check(name string, label Label) (Index, error) {
	ix, err := r.check(name, label)
	if err != nil {
		return Index{}, &InvalidError{Err: err}
	}
	return ix, nil
}

func (r IndexRequest) check(name string, label Label) (Index, error) {
	ix := Index{Name: name, Mapping: r.Mapping, Telegram: r.Telegram, Period: r.Period, Append: r.Append, Replace: r.Replace, AllowFuture: r.AllowFuture}
	if err := layout.ValidateIndexName(name); err != nil {
		return ix, fmt.Errorf("index name: %w", err)
	}
	var err error
	if ix.Inputs, err = checkKeys(label("inputs"), r.Inputs); err != nil {
		return ix, err
	}
	if ix.Period == "" {
		ix.Period = "month"
	}
	if err := shard.ValidUnit(ix.Period); err != nil {
		return ix, fmt.Errorf("%s: %w", label("period"), err)
	}
	if ix.Kind, err = lifecycle.ParseKind(r.Kind); err != nil {
		return ix, fmt.Errorf("%s: %w", label("kind"), err)
	}
	if r.Append && r.Replace {
		return ix, fmt.Errorf("%s keeps the index's documents and %s drops those these files lack: give one", label("append"), label("replace"))
	}
	if ix.From, ix.To, err = span(label, r.From, r.To); err != nil {
		return ix, err
	}
	for k, v := range r.Mapping {
		if strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			return ix, fmt.Errorf("%s: %q=%q: give canonical=input, both named", label("mapping"), k, v)
		}
	}
	return ix, nil
}

// checkKeys checks store keys a request names: at least one, at most MaxInputs, each a
// relative path without "." or ".." elements.
func checkKeys(label string, keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: name at least one Parquet object in the store", label)
	}
	if len(keys) > MaxInputs {
		return nil, fmt.Errorf("%s: %d objects, at most %d", label, len(keys), MaxInputs)
	}
	for _, k := range keys {
		if err := checkKey(label, k); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

func checkKey(label, k string) error {
	if k == "" || strings.HasPrefix(k, "/") || strings.Contains(k, "\\") {
		return fmt.Errorf("%s: %q is not a key in the store (a relative path like corpora/2025-10.parquet)", label, k)
	}
	for _, el := range strings.Split(k, "/") {
		if el == "" || el == "." || el == ".." {
			return fmt.Errorf("%s: %q is not a key in the store (empty, . or .. element)", label, k)
		}
	}
	return nil
}

// span reads an optional from..to pair of days.
func span(label Label, from, to string) (f, t time.Time, err error) {
	if from != "" {
		if f, err = ParseDay(label("from"), from); err != nil {
			return f, t, err
		}
	}
	if to != "" {
		if t, err = ParseDay(label("to"), to); err != nil {
			return f, t, err
		}
	}
	if !f.IsZero() && !t.IsZero() && t.Before(f) {
		return f, t, fmt.Errorf("%s %s is before %s %s", label("to"), to, label("from"), from)
	}
	return f, t, nil
}

// EvalRequest starts a retrieval evaluation: the body of POST /v1/evals, what `asof eval`
// does after it uploads the question files (the same systems, limits and batches by default).
// Judged questions (Questions with Qrels) or unlabelled queries (Queries) are store keys.
type EvalRequest struct {
	// Index is the index to evaluate (required).
	Index string `json:"index"`
	// Questions and Qrels are judged questions and their graded judgements (Parquet in the
	// store); Queries, instead, are unlabelled queries with anchor dates.
	Questions string `json:"questions,omitempty"`
	Qrels     string `json:"qrels,omitempty"`
	Queries   string `json:"queries,omitempty"`
	// Systems are the systems compared (default evalrun.DefaultSystems).
	Systems []string `json:"systems,omitempty"`
	// Limit evaluates at most this many questions, sampled with Seed (0: all).
	Limit int    `json:"limit,omitempty"`
	Seed  uint64 `json:"seed,omitempty"`
	// From and To keep questions whose anchor is in that range.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// BatchSize is questions per activity (default 25); Concurrency batches at once (default 2).
	BatchSize   int `json:"batch_size,omitempty"`
	Concurrency int `json:"concurrency,omitempty"`
}

// Eval is a checked EvalRequest.
type Eval struct {
	Index                     string
	Questions, Qrels, Queries string
	Systems                   []string
	Limit                     int
	Seed                      uint64
	From, To                  time.Time
	BatchSize, Concurrency    int
	Unlabelled                bool
}

// Check validates r, naming the fields with label; every error is an *InvalidError.
func (r EvalRequest) Check(label Label) (Eval, error) {
	e, err := r.check(label)
	if err != nil {
		return Eval{}, &InvalidError{Err: err}
	}
	return e, nil
}

func (r EvalRequest) check(label Label) (Eval, error) {
	e := Eval{Index: r.Index, Questions: r.Questions, Qrels: r.Qrels, Queries: r.Queries, Systems: r.Systems, Limit: r.Limit, Seed: r.Seed,
		BatchSize: r.BatchSize, Concurrency: r.Concurrency, Unlabelled: r.Queries != ""}
	if err := layout.ValidateIndexName(r.Index); err != nil {
		return e, fmt.Errorf("%s: %w", label("index"), err)
	}
	judged := r.Questions != "" || r.Qrels != ""
	switch {
	case r.Queries != "" && judged:
		return e, fmt.Errorf("%s (unlabelled) or %s with %s (judged), not both", label("queries"), label("questions"), label("qrels"))
	case r.Queries != "":
		if err := checkKey(label("queries"), r.Queries); err != nil {
			return e, err
		}
	case r.Questions == "" || r.Qrels == "":
		return e, fmt.Errorf("name %s and %s (judged questions), or %s (unlabelled queries with anchor dates)", label("questions"), label("qrels"), label("queries"))
	default:
		if err := checkKey(label("questions"), r.Questions); err != nil {
			return e, err
		}
		if err := checkKey(label("qrels"), r.Qrels); err != nil {
			return e, err
		}
	}
	if len(e.Systems) == 0 {
		e.Systems = evalrun.DefaultSystems
	}
	for _, s := range e.Systems {
		if _, err := evalrun.ParseSystem(s); err != nil {
			return e, fmt.Errorf("%s: %w", label("systems"), err)
		}
	}
	if e.Limit < 0 || e.BatchSize < 0 || e.Concurrency < 0 {
		return e, fmt.Errorf("%s, %s and %s must not be negative", label("limit"), label("batch_size"), label("concurrency"))
	}
	if e.BatchSize == 0 {
		e.BatchSize = 25
	}
	if e.Concurrency == 0 {
		e.Concurrency = 2
	}
	var err error
	e.From, e.To, err = span(label, r.From, r.To)
	return e, err
}

// ScheduleRequest creates a digest schedule: the body of POST /v1/schedules, and what the
// flags of `asof schedule create` fill in. Its digest is checked as POST /v1/digests checks
// one, without a fixed day.
type ScheduleRequest struct {
	// Name names the schedule and its digest (required).
	Name string `json:"name"`
	// Cron is when to run, in TimeZone (required), e.g. "0 7 * * *".
	Cron string `json:"cron"`
	// Index and Topics are the digest's (required).
	Index  string         `json:"index"`
	Topics []digest.Topic `json:"topics"`
	// TimeZone is the IANA zone of the cron and of each run's day (default UTC).
	TimeZone string `json:"time_zone,omitempty"`
	// AsOf is the day each run answers as of: today (default; the run's own day in TimeZone) or
	// latest (the day of the index's newest document).
	AsOf string `json:"as_of,omitempty"`
	// CatchupWindow is how late a run missed while the server was down may still start, a Go
	// duration (default 1h).
	CatchupWindow string `json:"catchup_window,omitempty"`
	Paused        bool   `json:"paused,omitempty"`
	Note          string `json:"note,omitempty"`
	// History is how many days of each topic's timeline every run shows as its history (0:
	// none), as in DigestRequest.
	History int `json:"history,omitempty"`
}

// Schedule is a checked ScheduleRequest.
type Schedule struct {
	Digest        Digest
	Cron          string
	AsOfMode      string
	CatchupWindow time.Duration
	Paused        bool
	Note          string
}

// Check validates r, naming the fields with label; every error is an *InvalidError.
func (r ScheduleRequest) Check(label Label) (Schedule, error) {
	s, err := r.check(label)
	if err != nil {
		return Schedule{}, &InvalidError{Err: err}
	}
	return s, nil
}

func (r ScheduleRequest) check(label Label) (Schedule, error) {
	s := Schedule{Cron: strings.TrimSpace(r.Cron), Paused: r.Paused, Note: r.Note, CatchupWindow: time.Hour}
	if r.Name == "" {
		return s, fmt.Errorf("%s is required", label("name"))
	}
	d, err := DigestRequest{Name: r.Name, Index: r.Index, Topics: r.Topics, Today: true, TimeZone: r.TimeZone, History: r.History}.check(label)
	if err != nil {
		return s, err
	}
	s.Digest = d
	switch r.AsOf {
	case "", "today":
	case digest.AsOfLatest:
		s.AsOfMode = digest.AsOfLatest
	default:
		return s, fmt.Errorf("%s %q: a schedule answers as of today (each run's own day in its time zone) or latest (the index's last day); for one day, start a digest", label("as_of"), r.AsOf)
	}
	if s.Cron == "" {
		return s, fmt.Errorf("%s is required, e.g. \"0 7 * * *\" (every day at 07:00 in the time zone)", label("cron"))
	}
	if r.CatchupWindow != "" {
		if s.CatchupWindow, err = time.ParseDuration(r.CatchupWindow); err != nil || s.CatchupWindow <= 0 {
			return s, fmt.Errorf("%s %q: give a positive duration like 1h or 30m", label("catchup_window"), r.CatchupWindow)
		}
	}
	if len(r.Note) > 1000 {
		return s, errors.New(label("note") + ": at most 1000 characters")
	}
	return s, nil
}

// NoteRequest is the optional body of pausing or resuming a schedule: why.
type NoteRequest struct {
	Note string `json:"note,omitempty"`
}

// ScheduleInfo is one digest schedule as it stands: GET /v1/schedules lists them.
type ScheduleInfo struct {
	Name string `json:"name"`
	// Cron is the expression it was created with, "(calendar)" when the schedule does not say
	// it; TimeZone the zone it runs in.
	Cron     string `json:"cron"`
	TimeZone string `json:"time_zone,omitempty"`
	// State is active or paused.
	State string `json:"state"`
	Note  string `json:"note,omitempty"`
	// Index is the index its digests read ("" when its input cannot be read).
	Index string `json:"index,omitempty"`
	// LastRun and NextRun are nil for none.
	LastRun *time.Time `json:"last_run,omitempty"`
	NextRun *time.Time `json:"next_run,omitempty"`
	// Runs counts the runs it started.
	Runs int `json:"runs"`
}

// The states of a ScheduleInfo.
const (
	ScheduleActive = "active"
	SchedulePaused = "paused"
)

// DeletedIndex is what deleting an index removes (DELETE /v1/indexes/{name}): every object
// under indexes/<name>/.
type DeletedIndex struct {
	Index   string `json:"index"`
	Prefix  string `json:"prefix"`
	Objects int    `json:"objects"`
	Bytes   int64  `json:"bytes"`
}

// ManifestInfo is one manifest of an index's history (GET /v1/indexes/{name}/history; asof
// indexes history): its number and key, when it was published, what it holds, and whether it
// is live. RestoredFrom names the manifest a rollback published again.
type ManifestInfo struct {
	Seq          int                 `json:"seq"`
	Key          string              `json:"key"`
	CreatedAt    time.Time           `json:"created_at"`
	Live         bool                `json:"live"`
	Model        string              `json:"model"`
	Kind         string              `json:"kind,omitempty"`
	Shards       int                 `json:"shards"`
	Counts       schemas.IndexCounts `json:"counts"`
	Takedowns    int                 `json:"takedowns"`
	RestoredFrom int                 `json:"restored_from,omitempty"`
	// Error says why the manifest does not read (it is listed all the same).
	Error string `json:"error,omitempty"`
}

// RollbackRequest names the manifest to publish again (POST /v1/indexes/{name}/rollback).
type RollbackRequest struct {
	Seq int `json:"seq"`
}

// Check refuses a manifest number below 1.
func (r RollbackRequest) Check() error {
	if r.Seq < 1 {
		return &InvalidError{Err: fmt.Errorf("seq: the manifest number to restore (asof indexes history NAME lists them), 1 or more")}
	}
	return nil
}

// Rollback is what a rollback published: the new live manifest, the one it restores, and its
// counts (with the rows of documents taken down since counted as deleted).
type Rollback struct {
	Index        string              `json:"index"`
	ManifestKey  string              `json:"manifest_key"`
	Seq          int                 `json:"seq"`
	RestoredFrom int                 `json:"restored_from"`
	Shards       int                 `json:"shards"`
	Counts       schemas.IndexCounts `json:"counts"`
	// Takedowns counts the live takedowns the restored manifest keeps.
	Takedowns int `json:"takedowns"`
}
