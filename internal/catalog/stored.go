package catalog

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

// Formats a stored answer or evaluation is fetched in (the CLI's --json and --html, the API's
// ?format).
const (
	FormatJSON     = "json"
	FormatMarkdown = "md"
	FormatHTML     = "html"
)

// Formats lists the formats, for an error that names them.
var Formats = []string{FormatJSON, FormatMarkdown, FormatHTML}

// ErrNoAnswer is the error of AnswerDoc for a run id with no stored answer.
var ErrNoAnswer = errors.New("no stored answer with that run id")

// ErrNoEval is the error of EvalDoc for an eval id with no finished evaluation stored.
var ErrNoEval = errors.New("no stored evaluation with that id")

// ErrNoFormat is the error of EvalDoc for a format an evaluation does not have (a summaries
// evaluation has no HTML report).
var ErrNoFormat = errors.New("not stored in that format")

// StoredAnswer is one answer under runs/ (an Ask run's answer.json), as `asof answers list`
// and GET /v1/answers list it.
type StoredAnswer struct {
	RunID string `json:"run_id"`
	// Index, AsOf (YYYY-MM-DD), Query, Mode, Results and SummaryMethod come from its
	// answer.json (empty when it does not parse: Problem says why).
	Index         string `json:"index,omitempty"`
	AsOf          string `json:"as_of,omitempty"`
	Query         string `json:"query,omitempty"`
	Mode          string `json:"mode,omitempty"`
	Results       int    `json:"results"`
	SummaryMethod string `json:"summary_method,omitempty"`
	// Saved is when answer.json was written (the store's time of the object).
	Saved   time.Time `json:"saved"`
	Problem string    `json:"problem,omitempty"`
}

// answerHead is the part of answer.json a listing shows.
type answerHead struct {
	RunID         string     `json:"run_id"`
	Index         string     `json:"index"`
	Query         string     `json:"query"`
	AsOf          time.Time  `json:"as_of"`
	Mode          string     `json:"mode"`
	Results       []struct{} `json:"results"`
	SummaryMethod string     `json:"summary_method"`
}

// answerFile is the name of an answer under its run's folder.
var answerFile = path.Base(layout.AnswerKey("x"))

// Answers lists the stored answers, newest first (by the time answer.json was written, then
// by run id), at most limit of them (all when limit ≤ 0), only those of index when it is set.
// It reads the answer.json of each one it returns, and of those an index filter passes over
// (parsing those only up to their index); one that does not parse is listed with its
// Problem, and left out by an index filter.
func Answers(ctx context.Context, b blob.Bucket, index string, limit int) ([]StoredAnswer, error) {
	root := path.Dir(layout.RunPrefix("x")) + "/"
	var all []StoredAnswer
	err := b.Iter(ctx, root, func(o blob.ObjectInfo) error {
		id, file, ok := strings.Cut(strings.TrimPrefix(o.Key, root), "/")
		if ok && file == answerFile {
			all = append(all, StoredAnswer{RunID: id, Saved: o.LastModified})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", root, b, err)
	}
	slices.SortStableFunc(all, func(x, y StoredAnswer) int {
		return cmp.Or(y.Saved.Compare(x.Saved), strings.Compare(y.RunID, x.RunID))
	})
	out := []StoredAnswer{}
	for _, a := range all {
		if limit > 0 && len(out) == limit {
			break
		}
		if err := a.fill(ctx, b, index); err != nil {
			return nil, err
		}
		if index != "" && a.Index != index {
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

// fill reads a's answer.json for the facts a listing shows. With index set, it decodes no
// further than the "index" field (encoding/json writes it third) of an answer of another
// index: a filter by index parses the head of each answer, not the whole of it.
func (a *StoredAnswer) fill(ctx context.Context, b blob.Bucket, index string) error {
	key := layout.AnswerKey(a.RunID)
	data, err := blob.ReadAll(ctx, b, key)
	if errors.Is(err, blob.ErrNotFound) { // removed since it was listed
		a.Problem = "no " + answerFile
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	if index != "" && headIndex(data) != index {
		return nil
	}
	var h answerHead
	if err := json.Unmarshal(data, &h); err != nil {
		a.Problem = fmt.Sprintf("%s does not parse: %v", answerFile, err)
		return nil
	}
	a.Index, a.Query, a.Mode, a.Results, a.SummaryMethod = h.Index, h.Query, h.Mode, len(h.Results), h.SummaryMethod
	if !h.AsOf.IsZero() {
		a.AsOf = h.AsOf.UTC().Format(time.DateOnly)
	}
	return nil
}

// headIndex is the "index" of a JSON object, decoded no further than that field ("" when it
// has none or does not parse up to it).
func headIndex(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		name, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		if name == "index" {
			var index string
			_ = json.Unmarshal(v, &index)
			return index
		}
	}
	return ""
}

// AnswerDoc is the stored answer of run runID in format: answer.json as it was written
// (FormatJSON), or that answer rendered as `asof ask` prints it (FormatMarkdown,
// render.AnswerMarkdown) or as a self-contained page (FormatHTML, digest.WriteAnswerHTML).
// runID is checked by layout.ValidateRunID; a run with no answer is ErrNoAnswer.
func AnswerDoc(ctx context.Context, b blob.Bucket, runID, format string) ([]byte, error) {
	if err := layout.ValidateRunID(runID); err != nil {
		return nil, err
	}
	if !slices.Contains(Formats, format) {
		return nil, fmt.Errorf("format %q: use %s", format, strings.Join(Formats, ", "))
	}
	key := layout.AnswerKey(runID)
	data, err := blob.ReadAll(ctx, b, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, fmt.Errorf("no answer with run id %s in %s: %w", runID, b, ErrNoAnswer)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	var ans schemas.Answer
	if err := json.Unmarshal(data, &ans); err != nil {
		if format == FormatJSON {
			return data, nil // as stored: the reader sees what is there
		}
		return nil, fmt.Errorf("%s does not parse: %w", key, err)
	}
	// A document taken down since the answer was written is removed from it, in every format.
	gone, err := takedownsOf(ctx, b, ans.Index)
	if err != nil {
		return nil, fmt.Errorf("answer %s: read the takedowns of index %s: %w", runID, ans.Index, err)
	}
	redacted := RedactAnswer(&ans, gone)
	if format == FormatJSON {
		if !redacted {
			return data, nil
		}
		return json.MarshalIndent(ans, "", "  ")
	}
	if format == FormatMarkdown {
		return []byte(render.AnswerMarkdown(ans, 0)), nil
	}
	var page bytes.Buffer
	if err := digest.WriteAnswerHTML(&page, ans); err != nil {
		return nil, fmt.Errorf("answer %s: %w", runID, err)
	}
	return page.Bytes(), nil
}

// Kinds of stored evaluation.
const (
	// EvalRetrieval is `asof eval`'s: evals/<id>/ (summary.json, per_query.parquet, report.html).
	EvalRetrieval = "retrieval"
	// EvalSummaries is `asof eval --summaries`': evals/summaries/<id>/ (summary.json, table.md,
	// per_answer.parquet).
	EvalSummaries = "summaries"
)

// StoredEval is one evaluation under evals/, as `asof evals list` and GET /v1/evals list it.
type StoredEval struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Index, Questions (questions or queries scored), Unlabelled, Failed (summaries: queries
	// whose answer failed) and Systems come from its summary.json.
	Index      string   `json:"index,omitempty"`
	Questions  int      `json:"questions"`
	Unlabelled bool     `json:"unlabelled,omitempty"`
	Failed     int      `json:"failed,omitempty"`
	Systems    []string `json:"systems,omitempty"`
	// Files are the result files in its folder; Batches counts the finished batches of a
	// retrieval evaluation; Bytes is everything stored under its folder.
	Files   []string `json:"files"`
	Batches int      `json:"batches,omitempty"`
	Bytes   int64    `json:"bytes"`
	// Saved is when summary.json was written, or, for an evaluation without one (unfinished),
	// when its newest object was.
	Saved   time.Time `json:"saved"`
	Problem string    `json:"problem,omitempty"`
}

// evalSummaryFile is the name of an evaluation's summary under its folder (both kinds).
var evalSummaryFile = path.Base(layout.EvalSummaryKey("x"))

// summariesSummary is the part of a summaries evaluation's summary.json that lists it.
type summariesSummary struct {
	Index   string `json:"index"`
	Queries int    `json:"queries"`
	Failed  int    `json:"failed"`
	Systems []struct {
		System string `json:"system"`
	} `json:"systems"`
}

// evalFolder is where an evaluation of kind and id keeps its files.
func evalFolder(kind, id string) string {
	if kind == EvalSummaries {
		return layout.SummariesPrefix(id)
	}
	return layout.EvalPrefix(id)
}

// Evals lists the stored evaluations of both kinds, newest first (by Saved, then id), at most
// limit (all when limit ≤ 0), only those of index when it is set. An evaluation without a
// summary.json (running, stopped or failed) is listed with a Problem saying so, and left out
// by an index filter.
func Evals(ctx context.Context, b blob.Bucket, index string, limit int) ([]StoredEval, error) {
	root := path.Dir(layout.EvalPrefix("x")) + "/"
	summariesRoot := layout.SummariesPrefix("x")
	summariesRoot = strings.TrimPrefix(path.Dir(summariesRoot), root) // "summaries"
	byKey := map[string]*StoredEval{}
	var all []*StoredEval
	hasSummary := map[*StoredEval]bool{}
	err := b.Iter(ctx, root, func(o blob.ObjectInfo) error {
		parts := strings.Split(strings.TrimPrefix(o.Key, root), "/")
		kind := EvalRetrieval
		if parts[0] == summariesRoot {
			kind, parts = EvalSummaries, parts[1:]
		}
		if len(parts) < 2 {
			return nil
		}
		id, rest := parts[0], parts[1:]
		if kind == EvalSummaries && id == layout.StudyRubricFolder {
			return nil // graders' scores of the study's summaries, shared by evaluations
		}
		e := byKey[kind+"/"+id]
		if e == nil {
			e = &StoredEval{ID: id, Kind: kind, Files: []string{}}
			byKey[kind+"/"+id] = e
			all = append(all, e)
		}
		e.Bytes += o.Size
		switch {
		case len(rest) == 1:
			e.Files = append(e.Files, rest[0])
			if rest[0] == evalSummaryFile {
				e.Saved, hasSummary[e] = o.LastModified, true
			}
		case kind == EvalRetrieval && rest[0] == path.Base(path.Dir(layout.EvalBatchKey("x", 0))):
			e.Batches++
		}
		if !hasSummary[e] && o.LastModified.After(e.Saved) {
			e.Saved = o.LastModified
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", root, b, err)
	}
	slices.SortStableFunc(all, func(x, y *StoredEval) int {
		return cmp.Or(y.Saved.Compare(x.Saved), strings.Compare(y.ID, x.ID))
	})
	out := []StoredEval{}
	for _, e := range all {
		if limit > 0 && len(out) == limit {
			break
		}
		if !hasSummary[e] {
			e.Problem = fmt.Sprintf("unfinished: no %s (running, stopped or failed)", evalSummaryFile)
		} else if err := e.fill(ctx, b); err != nil {
			return nil, err
		}
		if index != "" && e.Index != index {
			continue
		}
		out = append(out, *e)
	}
	return out, nil
}

// fill reads e's summary.json for the facts a listing shows.
func (e *StoredEval) fill(ctx context.Context, b blob.Bucket) error {
	key := path.Join(evalFolder(e.Kind, e.ID), evalSummaryFile)
	data, err := blob.ReadAll(ctx, b, key)
	if errors.Is(err, blob.ErrNotFound) {
		e.Problem = "no " + evalSummaryFile
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	if e.Kind == EvalSummaries {
		var s summariesSummary
		if err := json.Unmarshal(data, &s); err != nil {
			e.Problem = fmt.Sprintf("%s does not parse: %v", evalSummaryFile, err)
			return nil
		}
		e.Index, e.Questions, e.Failed = s.Index, s.Queries, s.Failed
		for _, sys := range s.Systems {
			e.Systems = append(e.Systems, sys.System)
		}
		return nil
	}
	var s evalrun.SummaryFile
	if err := json.Unmarshal(data, &s); err != nil {
		e.Problem = fmt.Sprintf("%s does not parse: %v", evalSummaryFile, err)
		return nil
	}
	e.Index, e.Questions, e.Unlabelled, e.Systems = s.Index, s.Questions, s.Unlabelled, s.Order
	return nil
}

// EvalDoc is a stored evaluation's results in format, and its kind. A retrieval evaluation
// has summary.json (FormatJSON), report.html (FormatHTML) and the tables `asof eval` prints,
// made from summary.json (FormatMarkdown, evalrun.Tables); a summaries evaluation has
// summary.json and table.md, no HTML (ErrNoFormat). id is checked by layout.ValidateEvalID;
// an id with no summary.json of either kind is ErrNoEval (a retrieval evaluation is looked up
// first).
func EvalDoc(ctx context.Context, b blob.Bucket, id, format string) (doc []byte, kind string, err error) {
	if err := layout.ValidateEvalID(id); err != nil {
		return nil, "", err
	}
	if !slices.Contains(Formats, format) {
		return nil, "", fmt.Errorf("format %q: use %s", format, strings.Join(Formats, ", "))
	}
	var summary []byte
	for _, k := range []string{EvalRetrieval, EvalSummaries} {
		key := path.Join(evalFolder(k, id), evalSummaryFile)
		data, err := blob.ReadAll(ctx, b, key)
		if errors.Is(err, blob.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("read %s: %w", key, err)
		}
		summary, kind = data, k
		break
	}
	if summary == nil {
		return nil, "", fmt.Errorf("no finished evaluation %s in %s (no %s under %s/ or %s/): %w",
			id, b, evalSummaryFile, layout.EvalPrefix(id), layout.SummariesPrefix(id), ErrNoEval)
	}
	var key string
	switch {
	case format == FormatJSON:
		return summary, kind, nil
	case kind == EvalRetrieval && format == FormatMarkdown:
		var s evalrun.SummaryFile
		if err := json.Unmarshal(summary, &s); err != nil {
			return nil, kind, fmt.Errorf("%s does not parse: %w", layout.EvalSummaryKey(id), err)
		}
		what := "judged questions"
		if s.Unlabelled {
			what = "unlabelled queries"
		}
		head := fmt.Sprintf("# Evaluation %s\n\nIndex `%s`, %d %s, %d systems.\n\n", id, s.Index, s.Questions, what, len(s.Order))
		return []byte(head + evalrun.Tables(s.Summary, s.Order, s.Unlabelled)), kind, nil
	case kind == EvalRetrieval:
		key = layout.EvalReportKey(id)
	case format == FormatMarkdown:
		key = layout.SummariesTableKey(id)
	default:
		return nil, kind, fmt.Errorf("evaluation %s is a summaries evaluation: it has no HTML report (its formats: %s, %s): %w",
			id, FormatJSON, FormatMarkdown, ErrNoFormat)
	}
	data, err := blob.ReadAll(ctx, b, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, kind, fmt.Errorf("evaluation %s has no %s: %w", id, path.Base(key), err)
	}
	if err != nil {
		return nil, kind, fmt.Errorf("read %s: %w", key, err)
	}
	return data, kind, nil
}
