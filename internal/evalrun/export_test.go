package evalrun

import (
	"time"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/retrieve"
)

// JudgePool is the pool `asof ask` hands its judge for question q (vector vec) under system s:
// run's reading and ranking, then the Candidates activity's answer.Pool of answer.DefaultPool;
// with the text the heuristic judges with (the reading's) and the anchor.
func JudgePool(shards []*retrieve.Shard, s System, q Question, vec []float32) (pool []answer.Hit, searchText string, asOf time.Time, err error) {
	read, vec, asOf, o, err := search(s, q, vec)
	if err != nil {
		return nil, "", asOf, err
	}
	r, err := answer.Rank(shards, answer.Query{Read: read, Vec: vec, AsOf: asOf, Options: o, Dedup: dedup.DefaultOptions(), LookBack: s.lookBack()})
	if err != nil {
		return nil, "", asOf, err
	}
	pool, err = answer.Pool(r, asOf, evidence.DefaultOptions(), answer.DefaultPool)
	return pool, read.Text, asOf, err
}

// VecOf is the vector system s searches question q with (auto's reading's, when it differs).
func VecOf(q Question, s System) []float32 { return vec(q, s) }
