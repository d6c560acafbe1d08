package answer

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/schemas"
)

// CandidateRows are the judge pool's rows as stored (candidates.parquet): rank i+1 is the
// judge id of pool[i].
func CandidateRows(pool []Hit) []schemas.CandidateRow {
	rows := make([]schemas.CandidateRow, len(pool))
	for i, f := range pool {
		c := f.Candidate
		rows[i] = schemas.CandidateRow{Rank: int32(i + 1), DocID: c.Chunk.DocID, ChunkID: c.Chunk.ChunkID, PublishedAt: c.Chunk.PublishedAt,
			Source: c.Chunk.Source, Sources: f.Sources, Title: c.Chunk.Title, URL: c.Chunk.URL, Text: c.Chunk.Text, Score: c.Score,
			Cosine: float64(c.Cos), BM25: c.BM25, RankDense: int32(c.RankDense), RankBM25: int32(c.RankBM25), RankTime: int32(c.RankTime),
			Group: c.Group, Duplicates: int32(f.Duplicates), Fragments: int32(max(1, c.Fragments)), Folded: f.Folded, Kind: c.Chunk.Kind}
	}
	return rows
}

// JudgeDocs are the pool's rows as the judge reads them, their ids being their ranks.
func JudgeDocs(rows []schemas.CandidateRow) []judge.Doc {
	docs := make([]judge.Doc, len(rows))
	for i, r := range rows {
		docs[i] = judge.Doc{ID: int(r.Rank), DocID: r.DocID, Title: r.Title, Text: r.Text, Source: r.Source,
			PublishedAt: r.PublishedAt, Cosine: r.Cosine}
	}
	return docs
}

// Verdicts are the judge's word on a pool: the grades by rank, the ranks of batches that
// failed (or every rank when judging is off), and whether those stay.
type Verdicts struct {
	Grades   []judge.Verdict
	Unjudged []int
	Keep     bool
}

// Judged is a pool after its verdicts: the documents that stay (relevance ≥ 1, or unjudged
// under the keep policy), in pool order, for the context; their evolution groups; and the
// grade of every judged document.
type Judged struct {
	Docs      []evidence.Doc
	Groups    map[string]string
	Relevance map[string]int
}

// ApplyVerdicts keeps what the verdicts let stay and counts Kept and Dropped into rep. A rank
// with no verdict that was not in a failed batch is an error.
func ApplyVerdicts(rows []schemas.CandidateRow, v Verdicts, rep *schemas.JudgeReport) (Judged, error) {
	grade := map[int]int{}
	for _, x := range v.Grades {
		grade[x.ID] = x.Relevance
	}
	unjudged := map[int]bool{}
	for _, r := range v.Unjudged {
		unjudged[r] = true
	}
	out := Judged{Groups: map[string]string{}, Relevance: map[string]int{}}
	for _, r := range rows {
		g, judged := grade[int(r.Rank)]
		switch {
		case judged:
			out.Relevance[r.DocID] = g
			if g < 1 {
				rep.Dropped++
				continue
			}
		case unjudged[int(r.Rank)] && !v.Keep:
			rep.Dropped++
			continue
		case !unjudged[int(r.Rank)]:
			return Judged{}, fmt.Errorf("candidate %d has no verdict and was not in a failed batch", r.Rank)
		}
		rep.Kept++
		out.Docs = append(out.Docs, evidence.Doc{DocID: r.DocID, ChunkID: r.ChunkID, Title: r.Title, Text: r.Text, URL: r.URL,
			Sources: r.Sources, PublishedAt: r.PublishedAt, Score: r.Score, Grade: grade[int(r.Rank)], Cosine: r.Cosine, Folded: r.Folded,
			Standing: r.Kind == schemas.KindStanding})
		if r.Group != "" {
			out.Groups[r.DocID] = r.Group
		}
	}
	return out, nil
}

// Grade sets the relevance of each result whose document was judged.
func (j Judged) Grade(results []schemas.AnswerResult) {
	for i := range results {
		if g, ok := j.Relevance[results[i].DocID]; ok {
			results[i].Relevance = &g
		}
	}
}

// Blocks are a context's blocks as a summary reads them: all of them, and split into the
// evolution groups ("then"; every other block is "now").
func Blocks(in []schemas.ContextBlock) (all, then, now []evidence.Block) {
	all = make([]evidence.Block, len(in))
	for i, b := range in {
		all[i] = evidence.Block{N: b.N, Snippet: b.Snippet, Hot: b.Hot, Doc: evidence.Doc{DocID: b.DocID, Title: b.Title,
			URL: b.URL, Sources: b.Sources, PublishedAt: b.PublishedAt}}
		if b.Group == "then" {
			then = append(then, all[i])
		} else {
			now = append(now, all[i])
		}
	}
	return all, then, now
}

// Header is an answer before retrieval: who asked what as of when, and how the question was
// read.
func Header(runID, index, query string, asOf time.Time, rd Reading) schemas.Answer {
	return schemas.Answer{Version: schemas.AnswerVersion, RunID: runID, Index: index, Query: query,
		AsOf: asOf.UTC(), Mode: rd.Mode, Interpretation: rd.Interpretation, Reading: rd.Kind, SearchText: rd.Text}
}

// Start is an answer's header (Header) with the bounds its reading searches, and the options
// the ranking is reranked with: o under the reading's mode and dates. A bad index name or
// options are an error, returned as written (the caller classifies it as bad input).
func Start(runID, index, query string, asOf time.Time, rd Reading, o retrieve.Options) (schemas.Answer, retrieve.Options, error) {
	ans := Header(runID, index, query, asOf, rd)
	if err := layout.ValidateIndexName(index); err != nil {
		return ans, o, err
	}
	ro := o
	ro.Mode = retrieve.Mode(rd.Mode)
	ro.From, ro.To = rd.From, rd.To
	if err := ro.Validate(); err != nil {
		return ans, ro, err
	}
	b := retrieve.BoundsOf(asOf, SearchOptions(rd, o))
	ans.From, ans.To = b.Lo, b.Hi
	return ans, ro, nil
}

// Fill writes what the ranking found into ans: how it was searched (auto's look-back changes
// the reading), the bounds, the counts, the message and the
// results, ranked from 1.
func (r Ranking) Fill(ans *schemas.Answer) {
	ans.Mode, ans.Interpretation, ans.Reading, ans.SearchText = string(r.Mode), r.Read.Interpretation, r.Read.Kind, r.Read.Text
	ans.From, ans.To = r.Bounds.Lo, r.Bounds.Hi
	if r.Life.Standing > 0 && r.Life.News == 0 { // standing texts only: no recency window bounds them
		ans.From = r.Bounds.HardLo
	}
	ans.Counts.Allowed, ans.Counts.Candidates, ans.Counts.Clusters = r.Allowed, r.Candidates, r.Clusters
	ans.Counts.Standing, ans.Counts.Superseded, ans.Counts.NotYet, ans.Counts.TakenDown = r.Life.Standing, r.Life.Superseded, r.Life.NotYet, r.Life.TakenDown
	ans.Message, ans.Standing = r.Message, r.Standing
	for i, h := range r.Results {
		ans.Results = append(ans.Results, Result(i+1, h))
	}
}
