package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/contextx"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/intent"
	"github.com/asofrag/asof/internal/llmsum"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// ModeAuto lets the query-intent parser choose the mode and dates.
const ModeAuto = "auto"

// RunPrefix is where one question's artifacts go: runs/<run-id>/.
func RunPrefix(runID string) string { return path.Join("runs", runID) }

// ReadQueryInput is a question before retrieval.
type ReadQueryInput struct {
	Query string    `json:"query"`
	AsOf  time.Time `json:"as_of"`
	// Mode is auto or one of retrieve's modes.
	Mode string `json:"mode"`
	// From and To are explicit dates (--year, --from/--to); they win over dates in the text.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// ReadQueryResult is how the question will be searched.
type ReadQueryResult struct {
	Mode string    `json:"mode"`
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Text is what BM25 and the embedder see: the query without its date phrases.
	Text           string `json:"text"`
	Interpretation string `json:"interpretation"`
}

// ReadQuery decides the mode and dates of a question: auto runs the English/Russian intent
// parser against the anchor; an explicit mode is kept, and window mode takes its dates from
// --from/--to or, failing those, from the query text.
func (a *Activities) ReadQuery(_ context.Context, in ReadQueryInput) (ReadQueryResult, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return ReadQueryResult{}, invalid(errors.New("the query is empty"))
	}
	if in.AsOf.IsZero() {
		return ReadQueryResult{}, invalid(errors.New("no as-of date"))
	}
	mode := in.Mode
	if mode == "" {
		mode = ModeAuto
	}
	if mode != ModeAuto && !slices.Contains(retrieve.Modes, retrieve.Mode(mode)) {
		return ReadQueryResult{}, invalid(fmt.Errorf("unknown mode %q (auto, %s)", mode, modeList()))
	}
	explicit := !in.From.IsZero() || !in.To.IsZero()
	r := intent.Parse(q, in.AsOf)
	out := ReadQueryResult{Mode: mode, From: in.From, To: in.To, Text: q}
	switch {
	case mode == ModeAuto && explicit:
		out.Mode = string(retrieve.Window)
		out.Text = r.Text
		if r.Mode == intent.Evolution {
			out.Mode = string(retrieve.Evolution)
		}
		out.Interpretation = fmt.Sprintf("%s %s (dates given)", out.Mode, span(in.From, in.To))
	case mode == ModeAuto:
		out.Mode = string(r.Mode) // intent's modes are retrieve's names
		out.From, out.To, out.Text = r.From, r.To, r.Text
		out.Interpretation = r.Explain()
	case mode == string(retrieve.Window) && !explicit:
		if r.From.IsZero() && r.To.IsZero() {
			return ReadQueryResult{}, invalid(fmt.Errorf("window mode needs --year, --from/--to or dates in the query (%q has none)", q))
		}
		out.From, out.To, out.Text = r.From, r.To, r.Text
		out.Interpretation = "window " + span(r.From, r.To) + " (dates read from the query, as requested)"
	default:
		out.Interpretation = mode + " (as requested)"
		if explicit {
			out.Interpretation = mode + " " + span(in.From, in.To) + " (as requested)"
		}
	}
	return out, nil
}

func span(from, to time.Time) string {
	f, t := "…", "…"
	if !from.IsZero() {
		f = from.UTC().Format(time.DateOnly)
	}
	if !to.IsZero() {
		t = to.UTC().Format(time.DateOnly)
	}
	return f + ".." + t
}

func modeList() string {
	var s []string
	for _, m := range retrieve.Modes {
		s = append(s, string(m))
	}
	return strings.Join(s, ", ")
}

// EmbedQueryInput is a query to embed.
type EmbedQueryInput struct {
	Text string `json:"text"`
}

// EmbedQueryResult is the query's vector and the model that made it.
type EmbedQueryResult struct {
	Vector []float32        `json:"vector"`
	Model  schemas.ModelRef `json:"model"`
}

// EmbedQuery embeds a search query (E5's "query: " prefix) on the asof-embed queue.
func (a *Activities) EmbedQuery(ctx context.Context, in EmbedQueryInput) (EmbedQueryResult, error) {
	if a.Embedder == nil {
		return EmbedQueryResult{}, temporal.NewNonRetryableApplicationError("this worker has no embedding model (run `asof models pull`)", ErrTypeConfig, nil)
	}
	v, err := a.Embedder.EmbedQueries(ctx, []string{in.Text})
	if err != nil {
		return EmbedQueryResult{}, err
	}
	return EmbedQueryResult{Vector: v[0], Model: a.Model}, nil
}

// AnswerInput is everything one as-of answer needs.
type AnswerInput struct {
	RunID string    `json:"run_id"`
	Index string    `json:"index"`
	Query string    `json:"query"`
	AsOf  time.Time `json:"as_of"`
	// Read is how the query was read (ReadQuery's result).
	Read ReadQueryResult `json:"read"`
	// Vector and Model are EmbedQuery's result.
	Vector  []float32         `json:"vector"`
	Model   schemas.ModelRef  `json:"model"`
	Options retrieve.Options  `json:"options"`
	Dedup   dedup.Options     `json:"dedup"`
	Context contextx.Options  `json:"context"`
	Summary summarize.Options `json:"summary"`
}

// Answer retrieves as of the anchor (only shards that overlap the time mask are loaded, through
// the worker's shard cache), folds near-duplicates, builds the dated context, summarizes it
// extractively, writes runs/<run-id>/answer.json and context.md, and returns the answer.
//
// It is the Ask workflow's single step before judging existed (workflow version 0); newer runs
// call Candidates, Judge, Compose, Summarize and SaveAnswer instead. It stays registered so
// that histories of older runs replay.
func (a *Activities) Answer(ctx context.Context, in AnswerInput) (schemas.Answer, error) {
	began := time.Now()
	r, err := a.rank(ctx, in)
	if err != nil {
		return r.ans, err
	}
	ans := r.ans
	if err := compose(&ans, in, docsOf(r.ranked), groupsOf(r.results), r.evolution); err != nil {
		return ans, err
	}
	ans.Counts.RetrieveMS = time.Since(began).Milliseconds()
	if err := a.writeRun(ctx, ans); err != nil {
		return ans, err
	}
	return ans, nil
}

// ranked is one answer's retrieval before judging: the answer's header, results and counts,
// every near-duplicate cluster in fused order, and the results shown.
type ranked struct {
	ans       schemas.Answer
	ranked    []folded
	results   []folded
	evolution bool
}

// rank retrieves as of the anchor and folds near-duplicates.
func (a *Activities) rank(ctx context.Context, in AnswerInput) (ranked, error) {
	ans := schemas.Answer{Version: schemas.AnswerVersion, RunID: in.RunID, Index: in.Index, Query: in.Query,
		AsOf: in.AsOf.UTC(), Mode: in.Read.Mode, Interpretation: in.Read.Interpretation, SearchText: in.Read.Text}
	out := ranked{ans: ans}
	if err := ValidateIndexName(in.Index); err != nil {
		return out, invalid(err)
	}
	o := in.Options
	o.Mode = retrieve.Mode(in.Read.Mode)
	o.From, o.To = in.Read.From, in.Read.To
	if err := o.Validate(); err != nil {
		return out, invalid(err)
	}
	m, err := a.currentManifest(ctx, in.Index)
	if err != nil {
		return out, err
	}
	ans.ManifestSeq = m.Seq
	if in.Vector != nil {
		if err := checkModel(in.Index, m.Model, in.Model); err != nil {
			return out, err
		}
	}
	b := retrieve.BoundsOf(in.AsOf, o)
	ans.From, ans.To = b.Lo, b.Hi
	shards, release, searched, skipped, err := a.loadShards(ctx, in.Index, m, b)
	if err != nil {
		return out, err
	}
	defer release()
	ans.Counts.ShardsSearched, ans.Counts.ShardsSkipped = searched, skipped
	res, err := retrieve.Search(shards, in.Read.Text, in.Vector, in.AsOf, o)
	if err != nil {
		return out, invalid(err)
	}
	ans.Counts.Allowed, ans.Counts.Candidates = res.Allowed, len(res.Candidates)
	if b.Empty || res.Allowed == 0 {
		ans.Message = fmt.Sprintf("No documents in that period (%s) as of %s.", span(b.Lo, b.Hi), in.AsOf.UTC().Format(time.DateOnly))
	}

	// Fold near-duplicates (reposts across channels) into the best copy, then cap and cut.
	out.evolution = o.Mode == retrieve.Evolution
	if out.evolution {
		for _, c := range res.Results {
			out.ranked = append(out.ranked, folded{c: c, sources: []string{c.Chunk.Source}})
		}
	} else {
		out.ranked, err = fold(res.Candidates, in.Dedup)
		if err != nil {
			return out, err
		}
	}
	ans.Counts.Clusters = len(out.ranked)
	out.results = out.ranked
	if !out.evolution {
		out.results = capFolded(out.ranked, o.K, o.MaxPerSource)
	}
	for i, f := range out.results {
		c := f.c
		ans.Results = append(ans.Results, schemas.AnswerResult{
			Rank: i + 1, DocID: c.Chunk.DocID, ChunkID: c.Chunk.ChunkID, PublishedAt: c.Chunk.PublishedAt, Source: c.Chunk.Source,
			Title: c.Chunk.Title, URL: c.Chunk.URL, Score: c.Score, RankDense: c.RankDense, RankBM25: c.RankBM25, RankTime: c.RankTime,
			Cosine: float64(c.Cos), BM25: c.BM25, Group: c.Group, Duplicates: f.dups, Sources: f.sources, Fragments: max(1, c.Fragments),
			Snippet: contextx.Snippet(c.Chunk.Text, 300),
		})
	}
	out.ans = ans
	return out, nil
}

// docsOf turns folded candidates into context documents, in order.
func docsOf(fs []folded) []contextx.Doc {
	docs := make([]contextx.Doc, 0, len(fs))
	for _, f := range fs {
		docs = append(docs, contextx.Doc{DocID: f.c.Chunk.DocID, ChunkID: f.c.Chunk.ChunkID, Title: f.c.Chunk.Title, Text: f.c.Chunk.Text,
			URL: f.c.Chunk.URL, Sources: f.sources, PublishedAt: f.c.Chunk.PublishedAt, Score: f.c.Score})
	}
	return docs
}

// groupsOf maps doc ids to their evolution group ("then", "now").
func groupsOf(fs []folded) map[string]string {
	g := map[string]string{}
	for _, f := range fs {
		if f.c.Group != "" {
			g[f.c.Chunk.DocID] = f.c.Group
		}
	}
	return g
}

// compose builds the dated context from docs (ranked, best first) and summarizes it
// extractively into ans (Context, Blocks, Summary, Brief).
func compose(ans *schemas.Answer, in AnswerInput, docs []contextx.Doc, groups map[string]string, evolution bool) error {
	co := in.Context
	if evolution {
		co.KDocs = max(1, len(docs))
	}
	if len(docs) == 0 {
		ans.Summary, ans.SummaryMethod = ans.Message, "none"
		if ans.Summary == "" {
			ans.Summary = "Not enough information: no document passed."
		}
		return nil
	}
	cx, err := contextx.Build(docs, in.AsOf, co)
	if err != nil {
		return invalid(err)
	}
	ans.Context = cx.Text()
	ans.Blocks = ans.Blocks[:0]
	for _, bl := range cx.Blocks {
		ans.Blocks = append(ans.Blocks, schemas.ContextBlock{N: bl.N, DocID: bl.Doc.DocID, PublishedAt: bl.Doc.PublishedAt,
			Sources: bl.Doc.Sources, Title: bl.Doc.Title, Snippet: bl.Snippet, Hot: bl.Hot, URL: bl.Doc.URL, Group: groups[bl.Doc.DocID]})
	}
	if evolution {
		then, now := splitGroups(cx.Blocks, groups)
		ev, err := summarize.Evolve(in.Query, then, now, in.AsOf, in.Summary)
		if err != nil {
			return invalid(err)
		}
		ans.Summary, ans.SummaryMethod = ev.Markdown(), ev.Method
		b := llmsum.FromEvolution(ev)
		ans.Brief = &b
		return nil
	}
	sum, err := summarize.Digest(in.Query, cx.Blocks, in.AsOf, in.Summary)
	if err != nil {
		return invalid(err)
	}
	ans.Summary, ans.SummaryMethod = sum.Markdown(), sum.Method
	b := llmsum.FromSummary(sum)
	ans.Brief = &b
	return nil
}

// loadShards loads (through the worker's cache) the shards of manifest m that can hold chunks
// inside b, and counts those it skipped; release lets the cache evict them again.
func (a *Activities) loadShards(ctx context.Context, index string, m schemas.Manifest, b retrieve.Bounds) (shards []*retrieve.Shard, release func(), searched, skipped int, err error) {
	cache := a.shardCache()
	var releases []func()
	release = func() {
		for _, r := range releases {
			r()
		}
	}
	for _, sm := range m.Shards {
		if !b.Overlaps(sm.MinDate, sm.MaxDate) {
			skipped++
			continue
		}
		s, rel, err := cache.Get(ctx, sm.ID, func(ctx context.Context) (shard.Loaded[*retrieve.Shard], error) {
			return a.loadShard(ctx, index, sm, m.Model)
		})
		if err != nil {
			release()
			return nil, func() {}, 0, 0, err
		}
		releases = append(releases, rel)
		shards = append(shards, s)
		searched++
		activity.RecordHeartbeat(ctx, searched)
	}
	return shards, release, searched, skipped, nil
}

// folded is a candidate with the duplicates folded into it.
type folded struct {
	c       retrieve.Candidate
	dups    int
	sources []string
}

// fold groups the candidates into near-duplicate clusters (dedup) and keeps each cluster's best,
// in score order, with its first source first and every other source after it.
func fold(cands []retrieve.Candidate, o dedup.Options) ([]folded, error) {
	items := make([]dedup.Item, len(cands))
	for i, c := range cands {
		items[i] = dedup.Item{ChunkID: c.Chunk.ChunkID, DocID: c.Chunk.DocID, Source: c.Chunk.Source,
			PublishedAt: c.Chunk.PublishedAt, Key: c.Chunk.DedupKey, Vec: c.Vec, Score: c.Score}
	}
	clusters, err := dedup.Group(items, o)
	if err != nil {
		return nil, invalid(err)
	}
	out := make([]folded, 0, len(clusters))
	for _, cl := range clusters {
		best := cands[cl.Best]
		sources := []string{best.Chunk.Source}
		for _, s := range cl.Sources {
			if s != best.Chunk.Source {
				sources = append(sources, s)
			}
		}
		out = append(out, folded{c: best, dups: len(cl.Members) - 1, sources: sources})
	}
	return out, nil
}

// capFolded keeps the first k with at most maxPer from one source (0: no cap).
func capFolded(fs []folded, k, maxPer int) []folded {
	out := make([]folded, 0, min(k, len(fs)))
	per := map[string]int{}
	for _, f := range fs {
		if len(out) == k {
			break
		}
		if maxPer > 0 && per[f.c.Chunk.Source] >= maxPer {
			continue
		}
		per[f.c.Chunk.Source]++
		out = append(out, f)
	}
	return out
}

// splitGroups sorts context blocks into the "then" and "now" groups of their documents.
func splitGroups(blocks []contextx.Block, group map[string]string) (then, now []contextx.Block) {
	for _, b := range blocks {
		if group[b.Doc.DocID] == "then" {
			then = append(then, b)
		} else {
			now = append(now, b)
		}
	}
	return then, now
}

// currentManifest reads the live manifest of index.
func (a *Activities) currentManifest(ctx context.Context, index string) (schemas.Manifest, error) {
	prefix := IndexPrefix(index)
	data, err := blob.ReadAll(ctx, a.Bucket, path.Join(prefix, "CURRENT"))
	if errors.Is(err, blob.ErrNotFound) {
		return schemas.Manifest{}, invalid(indexNotFoundError{index})
	}
	if err != nil {
		return schemas.Manifest{}, err
	}
	var cur Current
	if err := json.Unmarshal(data, &cur); err != nil {
		return schemas.Manifest{}, fmt.Errorf("%s/CURRENT is damaged: %w", prefix, err)
	}
	return a.readManifest(ctx, path.Join(prefix, cur.Manifest))
}

// writeRun stores answer.json and context.md under runs/<run-id>/.
func (a *Activities) writeRun(ctx context.Context, ans schemas.Answer) error {
	if ans.RunID == "" {
		return nil
	}
	data, err := json.MarshalIndent(ans, "", "  ")
	if err != nil {
		return err
	}
	p := RunPrefix(ans.RunID)
	if _, err := a.Bucket.Put(ctx, path.Join(p, "answer.json"), bytes.NewReader(data)); err != nil {
		return err
	}
	md := fmt.Sprintf("# Context for %q as of %s\n\n%s\n", ans.Query, ans.AsOf.Format(time.DateOnly), ans.Context)
	_, err = a.Bucket.Put(ctx, path.Join(p, "context.md"), strings.NewReader(md))
	return err
}
