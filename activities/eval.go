package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/report"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// EvalSystems are the systems `asof eval` knows; each may take a "+dedup" and a "+judge" suffix.
var EvalSystems = []string{"bm25", "bm25_time", "dense", "dense_time", "hybrid", "temporal_rrf", "decay", "auto", "bm25_nomask", "hybrid_nomask"}

// DefaultEvalSystems are compared when --systems is not given.
var DefaultEvalSystems = []string{"bm25_nomask", "bm25", "bm25_time", "dense", "hybrid", "temporal_rrf", "decay", "auto"}

// evalSystem is how one system retrieves.
type evalSystem struct {
	name string
	// params are fusion parameters given after "@" (a sweep's variant): applied to ask's
	// options; such a system stores no ranked lists and scores the strict results only.
	params  []evalParam
	mode    retrieve.Mode
	nomask  bool // no as-of mask at all: what leakage costs
	noDense bool // recency fusion of BM25 and time only (the docs/design.md reference system)
	noBM25  bool // recency fusion of the dense branch and time only
	auto    bool // the intent parser picks the mode and dates
	dedup   bool // fold near-duplicates before ranking documents
	judge   bool // drop the candidates the offline judge grades 0 (judge.Heuristic)
}

// evalParam is one "key=value" of a system's parameters.
type evalParam struct {
	key   string
	num   float64
	style string
}

// EvalParams are the keys a system name may set after "@" (e.g.
// "temporal_rrf@wt=1.2,k=30,tr=days"), each a field of retrieve.Options.
var EvalParams = []string{"wd", "wb", "wt", "ws", "k", "win", "top", "tr", "tp", "fb", "alpha", "lambda", "rm3", "fbdocs", "lbtop", "lbshare"}

// lookBack is auto's look-back rule with the system's lbtop and lbshare (nil: the default).
func (s evalSystem) lookBack() *answer.LookBackRule {
	var r *answer.LookBackRule
	for _, p := range s.params {
		if p.key != "lbtop" && p.key != "lbshare" {
			continue
		}
		if r == nil {
			d := answer.DefaultLookBack
			r = &d
		}
		if p.key == "lbtop" {
			r.Top = int(p.num)
		} else {
			r.Share = p.num
		}
	}
	return r
}

// apply sets the parameters on o.
func (s evalSystem) apply(o *retrieve.Options) {
	for _, p := range s.params {
		switch p.key {
		case "wd":
			o.Weights.Dense = p.num
		case "wb":
			o.Weights.BM25 = p.num
		case "wt":
			o.Weights.Time = p.num
		case "ws":
			o.Weights.Source = p.num
		case "k":
			o.KRRF = p.num
		case "win":
			o.WindowDays = int(p.num)
		case "top":
			o.TopNEach = int(p.num)
		case "tr":
			o.TimeRank = p.style
		case "tp":
			o.TimePool = int(p.num)
		case "fb":
			o.FreshBoost = p.num
		case "alpha":
			o.Alpha = p.num
		case "lambda":
			o.Lambda = p.num
		case "rm3":
			o.Expand = int(p.num)
		case "fbdocs":
			o.FeedbackDocs = int(p.num)
		}
	}
}

// parseParams reads "key=value,…" (EvalParams).
func parseParams(name, list string) ([]evalParam, error) {
	var out []evalParam
	for kv := range strings.SplitSeq(list, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !slices.Contains(EvalParams, k) || slices.ContainsFunc(out, func(p evalParam) bool { return p.key == k }) {
			return nil, fmt.Errorf("system %q: %q is not key=value with a known, unrepeated key (%s)", name, kv, strings.Join(EvalParams, ", "))
		}
		p := evalParam{key: k}
		if k == "tr" {
			if v != retrieve.TimeRankCompetition && v != retrieve.TimeRankDays {
				return nil, fmt.Errorf("system %q: tr=%q (%s or %s)", name, v, retrieve.TimeRankCompetition, retrieve.TimeRankDays)
			}
			p.style = v
		} else {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(n) || math.IsInf(n, 0) || n < 0 {
				return nil, fmt.Errorf("system %q: %s=%q is not a number ≥ 0", name, k, v)
			}
			p.num = n
		}
		out = append(out, p)
	}
	o := retrieve.DefaultOptions()
	(evalSystem{params: out}).apply(&o)
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("system %q: %w", name, err)
	}
	return out, nil
}

// ParseEvalSystem reads a system name such as "temporal_rrf+dedup" or
// "temporal_rrf@wt=1,tr=days".
func ParseEvalSystem(name string) (evalSystem, error) {
	s := evalSystem{name: name}
	name, params, hasParams := strings.Cut(name, "@")
	if hasParams {
		ps, err := parseParams(s.name, params)
		if err != nil {
			return s, err
		}
		s.params = ps
	}
	base, suffixes, found := strings.Cut(name, "+")
	if found {
		for _, suffix := range strings.Split(suffixes, "+") {
			switch {
			case suffix == "dedup" && !s.dedup:
				s.dedup = true
			case suffix == "judge" && !s.judge:
				s.judge = true
			default:
				return s, fmt.Errorf("system %q: unknown or repeated suffix %q (+dedup, +judge)", name, suffix)
			}
		}
	}
	switch base {
	case "bm25":
		s.mode = retrieve.BM25
	case "bm25_time":
		s.mode, s.noDense = retrieve.Recency, true
	case "dense_time":
		s.mode, s.noBM25 = retrieve.Recency, true
	case "dense":
		s.mode = retrieve.Dense
	case "hybrid":
		s.mode = retrieve.Hybrid
	case "temporal_rrf":
		s.mode = retrieve.Recency
	case "decay":
		s.mode = retrieve.Decay
	case "auto":
		s.mode, s.auto = retrieve.Recency, true
	case "bm25_nomask":
		s.mode, s.nomask = retrieve.BM25, true
	case "hybrid_nomask":
		s.mode, s.nomask = retrieve.Hybrid, true
	default:
		return s, fmt.Errorf("unknown system %q (known: %s, each optionally +dedup and +judge, then @key=value,…)", s.name, strings.Join(EvalSystems, ", "))
	}
	return s, nil
}

// EvalQuestionRef is a question in a batch.
type EvalQuestionRef struct {
	ID       string    `json:"id"`
	AsOf     time.Time `json:"as_of"`
	Question string    `json:"question"`
	// AutoText is the query text auto mode searches and embeds (the question without its date
	// phrases, answer.Read), set only when it differs from Question: auto systems use its
	// vector, as `asof ask` would.
	AutoText string `json:"auto_text,omitempty"`
}

// PlanEvalInput names the question and judgement files in the store.
type PlanEvalInput struct {
	EvalID       string `json:"eval_id"`
	QuestionsKey string `json:"questions_key"`
	QrelsKey     string `json:"qrels_key"`
	// Unlabelled reads QuestionsKey in the query layout (query_id, query, anchor_date) and
	// evaluates context freshness only; QrelsKey is then empty.
	Unlabelled bool `json:"unlabelled"`
	// Limit keeps at most this many judged questions (0: all), sampled with Seed.
	Limit     int    `json:"limit"`
	Seed      uint64 `json:"seed"`
	BatchSize int    `json:"batch_size"`
	// From and To keep questions dated in that range (zero: unbounded), e.g. the index's span.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// PlanEvalResult lists the batches.
type PlanEvalResult struct {
	Batches [][]EvalQuestionRef `json:"batches"`
	// Questions are the judged questions kept; Unjudged had no qrels rows.
	Questions int `json:"questions"`
	Unjudged  int `json:"unjudged"`
	OutOfSpan int `json:"out_of_span"`
}

// PlanEval reads the questions and qrels, keeps questions with judgements (inside [From, To]),
// samples Limit of them deterministically, and splits them into batches.
func (a *Activities) PlanEval(ctx context.Context, in PlanEvalInput) (PlanEvalResult, error) {
	var qs []schemas.EvalQuestion
	judged := map[string]bool{}
	if in.Unlabelled {
		rows, err := getParquet[schemas.EvalQuery](ctx, a, in.QuestionsKey)
		if err != nil {
			return PlanEvalResult{}, invalidIfMissing(err, "queries")
		}
		for _, r := range rows {
			qs = append(qs, schemas.EvalQuestion{QuestionID: r.QueryID, QuestionDate: r.AnchorDate, Question: r.Query})
			judged[r.QueryID] = true
		}
	} else {
		var err error
		if qs, err = getParquet[schemas.EvalQuestion](ctx, a, in.QuestionsKey); err != nil {
			return PlanEvalResult{}, invalidIfMissing(err, "questions")
		}
		qrels, err := getParquet[schemas.Qrel](ctx, a, in.QrelsKey)
		if err != nil {
			return PlanEvalResult{}, invalidIfMissing(err, "qrels")
		}
		for _, r := range qrels {
			judged[r.QuestionID] = true
		}
	}
	var res PlanEvalResult
	var keep []EvalQuestionRef
	for _, q := range qs {
		if !judged[q.QuestionID] {
			res.Unjudged++
			continue
		}
		d := asofday.Start(q.QuestionDate) // the anchor is a day: a time of day must not shift it
		if (!in.From.IsZero() && d.Before(in.From)) || (!in.To.IsZero() && d.After(in.To)) {
			res.OutOfSpan++
			continue
		}
		ref := EvalQuestionRef{ID: q.QuestionID, AsOf: d, Question: strings.TrimSpace(q.Question)}
		if r, err := answer.Read(ref.Question, d, answer.Auto, time.Time{}, time.Time{}); err == nil && r.Text != ref.Question {
			ref.AutoText = r.Text
		}
		keep = append(keep, ref)
	}
	slices.SortFunc(keep, func(x, y EvalQuestionRef) int { return strings.Compare(x.ID, y.ID) })
	if in.Limit > 0 && len(keep) > in.Limit {
		rng := rand.New(rand.NewPCG(in.Seed, 0x61736f66))
		rng.Shuffle(len(keep), func(i, j int) { keep[i], keep[j] = keep[j], keep[i] })
		keep = keep[:in.Limit]
		slices.SortFunc(keep, func(x, y EvalQuestionRef) int { return strings.Compare(x.ID, y.ID) })
	}
	if len(keep) == 0 {
		return res, invalid(errors.New("no judged question to evaluate (check --questions/--qrels and the index's dates)"))
	}
	size := max(1, in.BatchSize)
	for i := 0; i < len(keep); i += size {
		res.Batches = append(res.Batches, keep[i:min(i+size, len(keep))])
	}
	res.Questions = len(keep)
	return res, nil
}

func invalidIfMissing(err error, what string) error {
	if errors.Is(err, blob.ErrNotFound) {
		return invalid(fmt.Errorf("%s file: %w", what, err))
	}
	return err
}

// EmbedTextsInput are texts to embed as queries.
type EmbedTextsInput struct {
	Texts []string `json:"texts"`
	// Key, when set, is where the vectors are stored (vecindex's file format) instead of being
	// returned. Returned vectors are written into the workflow's history as JSON, about 5 KB a
	// question and twice (this result and EvalBatch's input): 12 MB for 785 questions, and
	// Temporal ends a run whose history passes 50 MB.
	Key string `json:"key"`
}

// EmbedTextsResult are the vectors, in order, or the key they were stored at, and the model.
type EmbedTextsResult struct {
	Vectors [][]float32      `json:"vectors"`
	Key     string           `json:"key"`
	Model   schemas.ModelRef `json:"model"`
}

// EmbedTexts embeds a batch of queries on the asof-embed queue.
func (a *Activities) EmbedTexts(ctx context.Context, in EmbedTextsInput) (EmbedTextsResult, error) {
	if a.Embedder == nil {
		return EmbedTextsResult{}, noModel()
	}
	v, err := a.Embedder.EmbedQueries(ctx, in.Texts)
	if err != nil {
		return EmbedTextsResult{}, err
	}
	if in.Key == "" {
		return EmbedTextsResult{Vectors: v, Model: a.Model}, nil
	}
	if err := a.putVectors(ctx, in.Key, v); err != nil {
		return EmbedTextsResult{}, err
	}
	return EmbedTextsResult{Key: in.Key, Model: a.Model}, nil
}

// putVectors stores vectors (all of one length) at key in vecindex's file format.
func (a *Activities) putVectors(ctx context.Context, key string, v [][]float32) error {
	dim := 0
	if len(v) > 0 {
		dim = len(v[0])
	}
	f := vecindex.New(dim, a.Model.ID)
	for _, x := range v {
		if err := f.Add(x); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		return err
	}
	_, err := a.Bucket.Put(ctx, key, &buf)
	return err
}

// getVectors reads the vectors putVectors stored at key.
func (a *Activities) getVectors(ctx context.Context, key string) ([][]float32, error) {
	r, err := a.Bucket.Get(ctx, key)
	if err != nil {
		return nil, invalidIfMissing(err, "query vectors")
	}
	defer r.Close()
	f, err := vecindex.Read(r)
	if err != nil {
		return nil, fmt.Errorf("query vectors %s: %w", key, err)
	}
	v := make([][]float32, f.Count)
	for i := range v {
		v[i] = f.Row(i)
	}
	return v, nil
}

// EvalBatchInput is one batch of questions with their vectors.
type EvalBatchInput struct {
	EvalID    string            `json:"eval_id"`
	Batch     int               `json:"batch"`
	Index     string            `json:"index"`
	QrelsKey  string            `json:"qrels_key"`
	Systems   []string          `json:"systems"`
	Questions []EvalQuestionRef `json:"questions"`
	Vectors   [][]float32       `json:"vectors"`
	// VectorsKey, when set, is where EmbedTexts stored the vectors (Vectors is then empty).
	VectorsKey string           `json:"vectors_key"`
	Model      schemas.ModelRef `json:"model"`
}

// EvalBatchResult says where the batch's rows are.
type EvalBatchResult struct {
	Key  string `json:"key"`
	Rows int    `json:"rows"`
	// Resumed is set when the rows were already stored by an earlier attempt or run.
	Resumed bool `json:"resumed"`
}

// EvalBatch answers every question of a batch with every system (ranked documents: a
// document's rank is its best chunk's), scores them against the qrels and stores the rows.
// A batch already stored is not run again.
func (a *Activities) EvalBatch(ctx context.Context, in EvalBatchInput) (EvalBatchResult, error) {
	res, err := a.evalBatch(ctx, in)
	a.Metrics.EvalBatch(err)
	return res, err
}

func (a *Activities) evalBatch(ctx context.Context, in EvalBatchInput) (EvalBatchResult, error) {
	key := layout.EvalBatchKey(in.EvalID, in.Batch)
	if ok, err := a.Bucket.Exists(ctx, key); err != nil {
		return EvalBatchResult{}, err
	} else if ok {
		return EvalBatchResult{Key: key, Rows: len(in.Questions) * len(in.Systems), Resumed: true}, nil
	}
	if in.VectorsKey != "" {
		v, err := a.getVectors(ctx, in.VectorsKey)
		if err != nil {
			return EvalBatchResult{}, err
		}
		in.Vectors = v
	}
	systems := make([]evalSystem, len(in.Systems))
	for i, n := range in.Systems {
		s, err := ParseEvalSystem(n)
		if err != nil {
			return EvalBatchResult{}, invalid(err)
		}
		systems[i] = s
	}
	// One vector per question, then one per AutoText (workflows.questionsOf's layout).
	autoVec := make([][]float32, len(in.Questions))
	next := len(in.Questions)
	for i, q := range in.Questions {
		if q.AutoText == "" {
			continue
		}
		if next < len(in.Vectors) {
			autoVec[i] = in.Vectors[next]
		}
		next++
	}
	if next != len(in.Vectors) {
		return EvalBatchResult{}, invalid(fmt.Errorf("%d vectors for %d questions and their auto readings (%d)", len(in.Vectors), len(in.Questions), next))
	}
	judged := map[string][]eval.Judged{}
	if in.QrelsKey != "" {
		qrels, err := getParquet[schemas.Qrel](ctx, a, in.QrelsKey)
		if err != nil {
			return EvalBatchResult{}, err
		}
		for _, r := range qrels {
			judged[r.QuestionID] = append(judged[r.QuestionID], eval.Judged{DocID: r.DocID, Grade: int(r.Grade)})
		}
	}
	m, err := a.currentManifest(ctx, in.Index)
	if err != nil {
		return EvalBatchResult{}, err
	}
	if err := checkModel(in.Index, m.Model, in.Model); err != nil {
		return EvalBatchResult{}, err
	}
	all := retrieve.Bounds{Hi: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
	shards, release, _, _, err := a.loadShards(ctx, in.Index, m, all)
	if err != nil {
		return EvalBatchResult{}, err
	}
	defer release()
	// One question's systems share what retrieval gathered when only fusion differs (a sweep's
	// variants): gathered once, as deep as the deepest system's branches.
	deepest := 0
	for _, s := range systems {
		o := retrieve.DefaultOptions()
		s.apply(&o)
		deepest = max(deepest, o.TopNEach)
	}
	var rerank func(string, retrieve.Options, answer.Ranking) (answer.Ranking, error)
	if a.Reranker != nil { // every system reranks, as ask does with the same configuration
		rerank = func(query string, o retrieve.Options, r answer.Ranking) (answer.Ranking, error) {
			return a.rerankRanking(ctx, query, o, r)
		}
	}
	vecOf := func(qi int, s evalSystem) []float32 {
		if s.auto && autoVec[qi] != nil {
			return autoVec[qi]
		}
		return in.Vectors[qi]
	}
	b := evalBatch{shards: shards, systems: systems, questions: in.Questions, vecOf: vecOf, judged: judged,
		deepest: deepest, rerank: rerank, heartbeat: func(qi int) { activity.RecordHeartbeat(ctx, qi) }}
	rows, _, err := b.rows(true)
	if err != nil {
		return EvalBatchResult{}, err
	}
	if err := putParquet(ctx, a.Bucket, key, rows); err != nil {
		return EvalBatchResult{}, err
	}
	return EvalBatchResult{Key: key, Rows: len(rows)}, nil
}

// evalBatch is a batch's questions and systems over loaded shards, ready to rank.
type evalBatch struct {
	shards    []*retrieve.Shard
	systems   []evalSystem
	questions []EvalQuestionRef
	vecOf     func(qi int, s evalSystem) []float32 // question qi's vector for system s
	judged    map[string][]eval.Judged
	deepest   int // the deepest branch of any system
	rerank    func(string, retrieve.Options, answer.Ranking) (answer.Ranking, error)
	heartbeat func(qi int)
}

// rows answers every question with every system and scores them. With denseAhead, the dense
// branches of the whole batch (every question, every system) run first in one pass per shard
// (retrieve.DenseMany, blocks of queries per pass over the vectors) and each question's
// searches take theirs from it; the rows are the same either way. ahead is how many dense
// branches ran ahead.
func (b evalBatch) rows(denseAhead bool) (rows []schemas.EvalRow, ahead int, err error) {
	var dense *retrieve.DenseBatch
	if denseAhead {
		var dq []retrieve.DenseQuery
		for qi, q := range b.questions {
			for _, s := range b.systems {
				read, vec, asOf, o, err := evalQuery(s, q, b.vecOf(qi, s))
				if err != nil {
					continue // its own search reports it
				}
				o = answer.SearchOptions(read, o)
				o.TopNEach = max(o.TopNEach, b.deepest) // the cache gathers this deep
				dq = append(dq, retrieve.DenseQuery{Vec: vec, AsOf: asOf, Options: o})
			}
		}
		if dense, err = retrieve.DenseMany(b.shards, dq); err != nil {
			return nil, 0, err
		}
		ahead = dense.Len()
	}
	for qi, q := range b.questions {
		cache := &retrieve.Cache{MinTopN: b.deepest, Dense: dense}
		for _, s := range b.systems {
			began := time.Now()
			ranked, ctxDates, err := evalRun(cache, b.shards, s, q, b.vecOf(qi, s), b.rerank)
			if err != nil {
				return nil, 0, fmt.Errorf("question %s, system %s: %w", q.ID, s.name, err)
			}
			pq := eval.Score(eval.Query{ID: q.ID, AsOf: q.AsOf, Judged: b.judged[q.ID], Results: ranked,
				LatencyMS: float64(time.Since(began).Microseconds()) / 1000})
			row := evalRow(s.name, q, pq)
			fr := eval.ContextFreshness(q.AsOf, ctxDates)
			row.CtxFreshestDays, row.CtxWithin7, row.CtxWithin30 = -1, fr.Within7, fr.Within30
			if fr.HasFresh {
				row.CtxFreshestDays = fr.FreshestDays
			}
			row.CtxDistinctDates, row.CtxDocs = int32(fr.DistinctDates), int32(fr.Docs)
			for i, r := range ranked {
				if len(s.params) > 0 {
					break // a sweep's variants: hundreds per question, metrics only
				}
				if i < eval.K10 {
					row.Top10 = append(row.Top10, r.DocID)
				}
				row.Ranked = append(row.Ranked, r.DocID)
			}
			rows = append(rows, row)
		}
		if b.heartbeat != nil {
			b.heartbeat(qi)
		}
	}
	return rows, ahead, nil
}

// evalQuery is how system s searches for question q whose vector is vec, as ask would: the
// reading, the vector (nil without a dense branch), the anchor and the options.
func evalQuery(s evalSystem, q EvalQuestionRef, vec []float32) (answer.Reading, []float32, time.Time, retrieve.Options, error) {
	o := retrieve.DefaultOptions()
	s.apply(&o)
	o.K = eval.K50
	mode := string(s.mode)
	if s.auto {
		mode = answer.Auto
	}
	read, err := answer.Read(q.Question, q.AsOf, mode, time.Time{}, time.Time{})
	if err != nil {
		return answer.Reading{}, nil, time.Time{}, o, err
	}
	asOf := q.AsOf
	if s.nomask {
		// No mask: an anchor past every document (not year 9999: bleve's date range counts
		// nanoseconds in an int64, which ends in 2262).
		asOf, o.WindowDays = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC), 0
	}
	if s.noDense || read.Mode == string(retrieve.BM25) { // ask embeds no query in bm25 mode
		vec = nil
	}
	if s.noBM25 { // retrieval runs no BM25 branch for an empty query text
		read.Text = ""
	}
	if s.judge {
		o.K = math.MaxInt // judge the whole ranking, then keep the first 50 that stay
	}
	return read, vec, asOf, o, nil
}

// evalRun answers one question with one system through the answer pipeline that `asof ask`
// serves (answer.Read → answer.Rank → answer.Pool → the context) with ask's options and
// --k 50: the ranked documents eval scores (a document's rank is its best chunk's) and the
// publication times of the context's documents. Only what a system changes differs from ask:
// no fold (systems without +dedup keep every copy in the ranking; the context is folded as
// served), no mask (*_nomask: an anchor past every document), no dense branch (bm25_time) or no
// BM25 branch (dense_time), the
// offline judge's grade-0 candidates leaving the ranking and the context (+judge).
//
// A sweep's variant (parameters after "@") changes ask's options by them; when it neither folds
// nor judges (and no reranker is configured), only its strict results are computed
// (answer.RankStrict: no pool, no context). cache shares gathered candidates between the
// systems of one question. rerank, when not nil, reorders the ranking as ask's does (the
// worker's reranker).
func evalRun(cache *retrieve.Cache, shards []*retrieve.Shard, s evalSystem, q EvalQuestionRef, vec []float32, rerank func(string, retrieve.Options, answer.Ranking) (answer.Ranking, error)) ([]eval.Ranked, []time.Time, error) {
	read, vec, asOf, o, err := evalQuery(s, q, vec)
	if err != nil {
		return nil, nil, err
	}
	if len(s.params) > 0 && !s.dedup && !s.judge && rerank == nil && read.Mode != string(retrieve.Evolution) {
		hits, err := answer.RankStrict(shards, answer.Query{Read: read, Vec: vec, AsOf: asOf, Options: o, LookBack: s.lookBack(), Cache: cache})
		if err != nil {
			return nil, nil, err
		}
		return rankedOf(hits), nil, nil
	}
	r, err := answer.Rank(shards, answer.Query{Read: read, Vec: vec, AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions(), NoFold: !s.dedup, LookBack: s.lookBack(), Cache: cache})
	if err != nil {
		return nil, nil, err
	}
	if rerank != nil {
		if r, err = rerank(q.Question, o, r); err != nil {
			return nil, nil, err
		}
	}
	results := r.Results
	pool, err := answer.Pool(r, asOf, evidence.DefaultOptions(), answer.DefaultPool)
	if err != nil {
		return nil, nil, err
	}
	if s.judge {
		results = judged(read.Text, results)
		results = results[:min(eval.K50, len(results))]
		pool = judged(read.Text, pool)
	}
	ranked := rankedOf(results)
	var dates []time.Time
	if len(pool) > 0 {
		cx, err := answer.Select(answer.Docs(pool), asOf, evidence.DefaultOptions(), r.Evolution())
		if err != nil {
			return nil, nil, err
		}
		for _, b := range cx.Blocks {
			dates = append(dates, b.Doc.PublishedAt)
		}
	}
	return ranked, dates, nil
}

// rankedOf is hits as the documents eval scores (collapsed: a document's rank is its best
// chunk's), each with the documents folded into it for group credit.
func rankedOf(hits []answer.Hit) []eval.Ranked {
	ranked := make([]eval.Ranked, 0, len(hits))
	for _, h := range hits {
		ranked = append(ranked, eval.Ranked{DocID: h.Chunk.DocID, PublishedAt: h.Chunk.PublishedAt, Group: h.Folded})
	}
	return eval.Collapse(ranked)
}

// judged drops the hits the offline judge grades 0 for query, keeping the order (what the
// Judge activity's heuristic does to an answer's pool).
func judged(query string, hits []answer.Hit) []answer.Hit {
	docs := make([]judge.Doc, len(hits))
	for i, h := range hits {
		docs[i] = judge.Doc{ID: i + 1, DocID: h.Chunk.DocID, Title: h.Chunk.Title, Text: h.Chunk.Text, Source: h.Chunk.Source,
			PublishedAt: h.Chunk.PublishedAt, Cosine: float64(h.Cos)}
	}
	var out []answer.Hit
	for _, v := range judge.Heuristic(query, docs) {
		if v.Relevance > 0 {
			out = append(out, hits[v.ID-1])
		}
	}
	return out
}

// FinishEvalInput names the batches of an evaluation.
type FinishEvalInput struct {
	EvalID    string   `json:"eval_id"`
	Index     string   `json:"index"`
	Systems   []string `json:"systems"`
	BatchKeys []string `json:"batch_keys"`
	Questions int      `json:"questions"`
	// Unlabelled is set for a query set without judgements: freshness only.
	Unlabelled bool `json:"unlabelled"`
	// Generated stamps the report (the workflow's time; activities never read the clock for it).
	Generated time.Time `json:"generated"`
}

// EvalSummary is summary.json.
type EvalSummary struct {
	Index     string                  `json:"index"`
	EvalID    string                  `json:"eval_id"`
	Questions int                     `json:"questions"`
	Systems   map[string]eval.Summary `json:"systems"`
	// Freshness is the built context's freshness per system (the only metrics of an
	// unlabelled query set).
	Freshness map[string]eval.FreshnessSummary `json:"freshness"`
	// Top10FreshestDaysMean is, per system, the mean age at the anchor of the freshest of
	// the top 10 results before any context selection (what plain retrieval hands over).
	Top10FreshestDaysMean map[string]float64 `json:"top10_freshest_days_mean"`
	// Unlabelled is set for a query set without judgements.
	Unlabelled bool `json:"unlabelled,omitempty"`
	// Order lists the systems as asked.
	Order []string `json:"order"`
}

// FinishEvalResult names the outputs.
type FinishEvalResult struct {
	SummaryKey  string      `json:"summary_key"`
	PerQueryKey string      `json:"per_query_key"`
	ReportKey   string      `json:"report_key"`
	Summary     EvalSummary `json:"summary"`
}

// FinishEval gathers every batch's rows into per_query.parquet and summary.json.
func (a *Activities) FinishEval(ctx context.Context, in FinishEvalInput) (FinishEvalResult, error) {
	var rows []schemas.EvalRow
	for _, k := range in.BatchKeys {
		part, err := getParquet[schemas.EvalRow](ctx, a, k)
		if err != nil {
			return FinishEvalResult{}, err
		}
		rows = append(rows, part...)
	}
	res := FinishEvalResult{SummaryKey: layout.EvalSummaryKey(in.EvalID), PerQueryKey: layout.EvalPerQueryKey(in.EvalID)}
	if err := putParquet(ctx, a.Bucket, res.PerQueryKey, rows); err != nil {
		return res, err
	}
	sum := EvalSummary{Index: in.Index, EvalID: in.EvalID, Questions: in.Questions, Systems: map[string]eval.Summary{},
		Freshness: map[string]eval.FreshnessSummary{}, Top10FreshestDaysMean: map[string]float64{}, Unlabelled: in.Unlabelled, Order: in.Systems}
	for _, name := range in.Systems {
		var pqs []eval.PerQuery
		var fs []eval.Freshness
		for _, r := range rows {
			if r.System == name {
				pqs = append(pqs, perQueryOf(r))
				fs = append(fs, eval.Freshness{FreshestDays: r.CtxFreshestDays, HasFresh: r.CtxFreshestDays >= 0, Within7: r.CtxWithin7,
					Within30: r.CtxWithin30, DistinctDates: int(r.CtxDistinctDates), Docs: int(r.CtxDocs)})
			}
		}
		if !in.Unlabelled {
			sum.Systems[name] = eval.Aggregate(name, pqs)
		}
		var tot float64
		n := 0
		for _, p := range pqs {
			if p.HasFresh {
				tot += float64(p.FreshDays)
				n++
			}
		}
		if n > 0 {
			sum.Top10FreshestDaysMean[name] = tot / float64(n)
		}
		sum.Freshness[name] = eval.AggregateFreshness(name, fs)
	}
	res.Summary = sum
	data, _ := json.MarshalIndent(sum, "", "  ")
	if _, err := a.Bucket.Put(ctx, res.SummaryKey, bytes.NewReader(data)); err != nil {
		return res, err
	}
	// The HTML report: metric table, bars per system, the corpus's documents per period, and
	// the age of retrieved results.
	rep := report.EvalReport{Title: "asof eval — index " + in.Index, Generated: in.Generated, Index: in.Index, Questions: in.Questions, Rows: rows,
		Notes: []string{fmt.Sprintf("Each judged question is a query as of its question_date; a document's rank is its best chunk's. Evaluation %s.", in.EvalID)}}
	variants := 0
	for _, name := range in.Systems {
		if strings.Contains(name, "@") {
			variants++ // a sweep's variants: summary.json and `asof tune`'s report hold them
			continue
		}
		if !in.Unlabelled {
			rep.Systems = append(rep.Systems, sum.Systems[name])
		}
	}
	if variants > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d parameter variants are left out of this report: see summary.json (or `asof tune`'s report).", variants))
		rep.Rows = slices.DeleteFunc(slices.Clone(rows), func(r schemas.EvalRow) bool { return strings.Contains(r.System, "@") })
	}
	if in.Unlabelled {
		rep.Notes = append(rep.Notes, "Unlabelled queries: no relevance metrics; see summary.json for the context freshness of each system.")
	}
	if m, err := a.currentManifest(ctx, in.Index); err == nil && m.Period == "month" {
		for _, sm := range m.Shards {
			rep.DocsPerMonth = append(rep.DocsPerMonth, report.MonthCount{Month: sm.Period, Docs: sm.Docs})
		}
	}
	var html bytes.Buffer
	if err := report.WriteEval(&html, rep); err != nil {
		return res, err
	}
	res.ReportKey = layout.EvalReportKey(in.EvalID)
	if _, err := a.Bucket.Put(ctx, res.ReportKey, &html); err != nil {
		return res, err
	}
	return res, nil
}

// evalRow is a scored question as a per_query.parquet row.
func evalRow(system string, q EvalQuestionRef, pq eval.PerQuery) schemas.EvalRow {
	fresh := -1.0
	if pq.HasFresh {
		fresh = float64(pq.FreshDays)
	}
	return schemas.EvalRow{System: system, QuestionID: q.ID, AsOf: q.AsOf, Valid: pq.Valid, HasGrade2: pq.HasGrade2,
		NDCG10: pq.NDCG10, Recall10: pq.Recall10, Recall50: pq.Recall50, MRR: pq.MRR, P10: pq.P10, Leakage10: pq.Leakage10,
		Leaked: int32(pq.Leaked), FreshDays: fresh, LatencyMS: pq.LatencyMS,
		NDCG10Group: pq.NDCG10Group, Recall10Group: pq.Recall10Group, MRRGroup: pq.MRRGroup}
}

// perQueryOf reads a row back for aggregation.
func perQueryOf(r schemas.EvalRow) eval.PerQuery {
	return eval.PerQuery{ID: r.QuestionID, Valid: r.Valid, HasGrade2: r.HasGrade2, NDCG10: r.NDCG10, Recall10: r.Recall10,
		Recall50: r.Recall50, MRR: r.MRR, P10: r.P10, Leakage10: r.Leakage10, Leaked: int(r.Leaked), FreshDays: int(r.FreshDays), HasFresh: r.FreshDays >= 0,
		LatencyMS: r.LatencyMS, NDCG10Group: r.NDCG10Group, Recall10Group: r.Recall10Group, MRRGroup: r.MRRGroup}
}

func noModel() error {
	return temporal.NewNonRetryableApplicationError("this worker has no embedding model (run `asof models pull`)", ErrTypeConfig, nil)
}
