package evalrun

import (
	"fmt"
	"math"
	"time"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/schemas"
)

// Question is one dated question of a batch with its query vectors.
type Question struct {
	// ID identifies the question in the qrels and the rows.
	ID string
	// AsOf is the question's anchor day.
	AsOf time.Time
	// Text is the question as asked.
	Text string
	// Vec is the question's query vector.
	Vec []float32
	// AutoVec, when not nil, is the vector of the text auto mode searches (the question
	// without its date phrases, answer.Read): auto systems use it, as `asof ask` would.
	AutoVec []float32
}

// Rerank reorders a ranking as ask's reranker does for query with options o.
type Rerank func(query string, o retrieve.Options, r answer.Ranking) (answer.Ranking, error)

// Batch is a batch's questions and systems over loaded shards, ready to rank.
type Batch struct {
	// Shards are the index's loaded shards.
	Shards []*retrieve.Shard
	// Systems are the systems to compare (ParseSystem).
	Systems []System
	// Questions are the batch's questions, in order.
	Questions []Question
	// Judged are the qrels of each question by its ID (empty for an unlabelled set).
	Judged map[string][]eval.Judged
	// Rerank, when not nil, reorders every system's ranking as ask does with the same
	// configuration (the worker's reranker).
	Rerank Rerank
	// Heartbeat, when not nil, is called with a question's index after its rows are made.
	Heartbeat func(qi int)
}

// Rows answers every question with every system (ranked documents: a document's rank is its
// best chunk's) and scores them against the qrels: one row per question and system, question
// by question, systems in order. The dense branches of the whole batch run first in one pass
// per shard (retrieve.DenseMany).
func (b Batch) Rows() ([]schemas.EvalRow, error) {
	rows, _, err := b.rows(true)
	return rows, err
}

// vec is question q's vector for system s.
func vec(q Question, s System) []float32 {
	if s.auto && q.AutoVec != nil {
		return q.AutoVec
	}
	return q.Vec
}

// rows answers every question with every system and scores them. With denseAhead, the dense
// branches of the whole batch (every question, every system) run first in one pass per shard
// (retrieve.DenseMany, blocks of queries per pass over the vectors) and each question's
// searches take theirs from it; the rows are the same either way. ahead is how many dense
// branches ran ahead.
func (b Batch) rows(denseAhead bool) (rows []schemas.EvalRow, ahead int, err error) {
	// One question's systems share what retrieval gathered when only fusion differs (a sweep's
	// variants): gathered once, as deep as the deepest system's branches.
	deepest := 0
	for _, s := range b.Systems {
		o := retrieve.DefaultOptions()
		s.apply(&o)
		deepest = max(deepest, o.TopNEach)
	}
	var dense *retrieve.DenseBatch
	if denseAhead {
		var dq []retrieve.DenseQuery
		for _, q := range b.Questions {
			for _, s := range b.Systems {
				read, v, asOf, o, err := search(s, q, vec(q, s))
				if err != nil {
					continue // its own search reports it
				}
				o = answer.SearchOptions(read, o)
				o.TopNEach = max(o.TopNEach, deepest) // the cache gathers this deep
				dq = append(dq, retrieve.DenseQuery{Vec: v, AsOf: asOf, Options: o})
			}
		}
		if dense, err = retrieve.DenseMany(b.Shards, dq); err != nil {
			return nil, 0, err
		}
		ahead = dense.Len()
	}
	for qi, q := range b.Questions {
		cache := &retrieve.Cache{MinTopN: deepest, Dense: dense}
		for _, s := range b.Systems {
			began := time.Now()
			ranked, ctxDates, kind, err := run(cache, b.Shards, s, q, vec(q, s), b.Rerank)
			if err != nil {
				return nil, 0, fmt.Errorf("question %s, system %s: %w", q.ID, s.name, err)
			}
			pq := eval.Score(eval.Query{ID: q.ID, AsOf: q.AsOf, Judged: b.Judged[q.ID], Results: ranked,
				LatencyMS: float64(time.Since(began).Microseconds()) / 1000})
			r := row(s.name, q, pq)
			r.Reading = kind
			fr := eval.ContextFreshness(q.AsOf, ctxDates)
			r.CtxFreshestDays, r.CtxWithin7, r.CtxWithin30 = -1, fr.Within7, fr.Within30
			if fr.HasFresh {
				r.CtxFreshestDays = fr.FreshestDays
			}
			r.CtxDistinctDates, r.CtxDocs = int32(fr.DistinctDates), int32(fr.Docs)
			for i, d := range ranked {
				if len(s.params) > 0 {
					break // a sweep's variants: hundreds per question, metrics only
				}
				if i < eval.K10 {
					r.Top10 = append(r.Top10, d.DocID)
				}
				r.Ranked = append(r.Ranked, d.DocID)
			}
			rows = append(rows, r)
		}
		if b.Heartbeat != nil {
			b.Heartbeat(qi)
		}
	}
	return rows, ahead, nil
}

// search is how system s searches for question q whose vector is vec, as ask would: the
// reading, the vector (nil without a dense branch), the anchor and the options.
func search(s System, q Question, vec []float32) (answer.Reading, []float32, time.Time, retrieve.Options, error) {
	o := retrieve.DefaultOptions()
	s.apply(&o)
	o.K = eval.K50
	mode := string(s.mode)
	if s.auto {
		mode = answer.Auto
	}
	read, err := answer.Read(q.Text, q.AsOf, mode, time.Time{}, time.Time{})
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

// run answers one question with one system through the answer pipeline that `asof ask`
// serves (answer.Read → answer.Rank → answer.Pool → the context) with ask's options and
// --k 50: the ranked documents eval scores (a document's rank is its best chunk's) and the
// publication times of the context's documents. Only what a system changes differs from ask:
// no fold (systems without +dedup keep every copy in the ranking; the context is folded as
// served), no mask (*_nomask: an anchor past every document), no dense branch (bm25_time) or no
// BM25 branch (dense_time), the offline judge's grade-0 candidates leaving the ranking and the
// context (+judge).
//
// A sweep's variant (parameters after "@") changes ask's options by them; when it neither folds
// nor judges (and no reranker is configured), only its strict results are computed
// (answer.RankStrict: no pool, no context). cache shares gathered candidates between the
// systems of one question. rerank, when not nil, reorders the ranking as ask's does (the
// worker's reranker).
func run(cache *retrieve.Cache, shards []*retrieve.Shard, s System, q Question, vec []float32, rerank Rerank) ([]eval.Ranked, []time.Time, string, error) {
	read, vec, asOf, o, err := search(s, q, vec)
	if err != nil {
		return nil, nil, "", err
	}
	if len(s.params) > 0 && !s.dedup && !s.judge && rerank == nil && read.Mode != string(retrieve.Evolution) {
		hits, err := answer.RankStrict(shards, answer.Query{Read: read, Vec: vec, AsOf: asOf, Options: o, LookBack: s.lookBack(), Cache: cache})
		if err != nil {
			return nil, nil, "", err
		}
		return rankedOf(hits), nil, read.Kind, nil
	}
	r, err := answer.Rank(shards, answer.Query{Read: read, Vec: vec, AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions(), NoFold: !s.dedup, LookBack: s.lookBack(), Cache: cache})
	if err != nil {
		return nil, nil, "", err
	}
	if rerank != nil {
		if r, err = rerank(q.Text, o, r); err != nil {
			return nil, nil, "", err
		}
	}
	results := r.Results
	pool, err := answer.Pool(r, asOf, evidence.DefaultOptions(), answer.DefaultPool)
	if err != nil {
		return nil, nil, "", err
	}
	if s.judge {
		results = offlineJudged(read.Text, results)
		results = results[:min(eval.K50, len(results))]
		pool = offlineJudged(read.Text, pool)
	}
	ranked := rankedOf(results)
	var dates []time.Time
	if len(pool) > 0 {
		cx, err := answer.Select(answer.Docs(pool), asOf, evidence.DefaultOptions(), r.Evolution())
		if err != nil {
			return nil, nil, "", err
		}
		for _, b := range cx.Blocks {
			dates = append(dates, b.Doc.PublishedAt)
		}
	}
	return ranked, dates, r.Read.Kind, nil
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

// offlineJudged drops the hits the offline judge grades 0 for query, keeping the order (what
// the Judge activity's heuristic does to an answer's pool).
func offlineJudged(query string, hits []answer.Hit) []answer.Hit {
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

// row is a scored question as a per_query.parquet row.
func row(system string, q Question, pq eval.PerQuery) schemas.EvalRow {
	fresh := -1.0
	if pq.HasFresh {
		fresh = float64(pq.FreshDays)
	}
	return schemas.EvalRow{System: system, QuestionID: q.ID, AsOf: q.AsOf, Valid: pq.Valid, HasGrade2: pq.HasGrade2,
		NDCG10: pq.NDCG10, Recall10: pq.Recall10, Recall50: pq.Recall50, MRR: pq.MRR, P10: pq.P10, Leakage10: pq.Leakage10,
		Leaked: int32(pq.Leaked), FreshDays: fresh, LatencyMS: pq.LatencyMS,
		NDCG10Group: pq.NDCG10Group, Recall10Group: pq.Recall10Group, MRRGroup: pq.MRRGroup}
}
