package retrieve

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/vecindex"
)

// DenseQuery is a search whose dense branch DenseMany runs ahead: its query vector, anchor and
// options, as they will be given to Cache.Search.
type DenseQuery struct {
	Vec     []float32
	AsOf    time.Time
	Options Options
}

// DenseBatch is the dense branches of many searches over one list of shards, run ahead in one
// pass per shard. A Cache whose Dense it is takes a search's dense top N from it (same vector,
// same mask, same Int8Rerank, depth at least N) instead of scanning again; the result is
// Search's. A shallower list is a prefix of a deeper one where every shard was scanned in
// float32 (exact); where one was scanned in int8 with re-scoring (approximate) the depth must
// match.
type DenseBatch struct {
	first   *Shard // the shards it was computed over (identity, as Cache keys them)
	nShards int
	m       map[denseKey]denseEntry
}

// denseKey identifies a dense branch: the vector (by identity, as Cache keys it) and the mask.
type denseKey struct {
	vec     *float32
	dim     int
	lo, hi  int64
	hardLo  int64
	day     int64 // the anchor's day: which versions and standing texts are current
	history bool
	sources string
	rerank  int // Options.Int8Rerank
	depth   int // 0 where every shard is scanned exactly; else the depth (int8 scans)
}

type denseEntry struct {
	depth int
	exact bool       // every shard scanned in float32: any shallower top is a prefix
	hits  []shardHit // best first, at most depth
}

func keyOf(shards []*Shard, vec []float32, m mask, rerank, depth int) denseKey {
	k := denseKey{vec: &vec[0], dim: len(vec), lo: m.b.Lo.UnixNano(), hi: m.b.Hi.UnixNano(), hardLo: m.b.HardLo.UnixNano(), day: asofday.Number(m.asOf),
		history: m.history, sources: strings.Join(m.sources, "\x00"), rerank: rerank}
	if !exactScan(shards, rerank) {
		k.depth = depth
	}
	return k
}

// int8Scan reports whether the dense branch scans shard s in int8 (denseTop's choice).
func int8Scan(s *Shard, rerank int) bool { return s.Int8 != nil && rerank >= 0 }

// exactScan reports whether the dense branch scans every shard in float32.
func exactScan(shards []*Shard, rerank int) bool {
	for _, s := range shards {
		if int8Scan(s, rerank) {
			return false
		}
	}
	return true
}

// DenseMany runs the dense branch of every query over shards: the as-of mask of each, then
// vecindex.Flat.SearchMany on each shard for all the queries that have allowed rows there
// (blocks of queries per pass over the vectors, not one pass per query), or Int8.SearchMany
// where the shard has int8 codes and the query's Int8Rerank is not negative, as denseTop
// chooses; one goroutine per shard and at most GOMAXPROCS at once, as one search's dense
// branch runs. Queries with the same vector and mask run once, as deep as the deepest (int8
// scans: once per depth). Queries without a vector, in bm25
// mode, with an empty mask or with invalid options are left out (their searches need no dense
// branch, scan nothing, or report the error themselves).
func DenseMany(shards []*Shard, qs []DenseQuery) (*DenseBatch, error) {
	d := &DenseBatch{nShards: len(shards), m: map[denseKey]denseEntry{}}
	if len(shards) == 0 {
		return d, nil
	}
	d.first = shards[0]
	type query struct {
		vec    []float32
		depth  int
		rerank int
		masks  []vecindex.Mask // per shard; nil where nothing is allowed
	}
	var uniq []*query
	at := map[denseKey]int{}
	for _, q := range qs {
		if len(q.Vec) == 0 || q.Options.Mode == BM25 || q.AsOf.IsZero() || q.Options.Validate() != nil {
			continue
		}
		mk := maskOf(q.AsOf, q.Options)
		if mk.empty() {
			continue
		}
		rerank := q.Options.Int8Rerank
		k := keyOf(shards, q.Vec, mk, rerank, q.Options.TopNEach)
		if i, ok := at[k]; ok {
			uniq[i].depth = max(uniq[i].depth, q.Options.TopNEach)
			continue
		}
		u := &query{vec: q.Vec, depth: q.Options.TopNEach, rerank: rerank, masks: make([]vecindex.Mask, len(shards))}
		for si, s := range shards {
			if err := checkShard(s, q.Vec); err != nil {
				return nil, err
			}
			if m, n := mk.rows(s); n.allowed > 0 && s.Vectors != nil {
				u.masks[si] = m
			}
		}
		at[k] = len(uniq)
		uniq = append(uniq, u)
	}
	// Shard by shard, the queries with allowed rows there: one SearchMany for the float32
	// scans (as deep as the deepest), one per rerank and depth for the int8 scans.
	type group struct{ depth, rerank int }
	per := make([][][]vecindex.Hit, len(shards)) // [shard][query]
	errs := make([]error, len(shards))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for si, s := range shards {
		groups := map[group][]int{}
		var order []group
		for ui, u := range uniq {
			if u.masks[si] == nil {
				continue
			}
			g := group{-1, -1}
			if int8Scan(s, u.rerank) {
				g = group{u.depth, u.rerank}
			}
			if _, ok := groups[g]; !ok {
				order = append(order, g)
			}
			groups[g] = append(groups[g], ui)
		}
		if len(order) == 0 {
			continue
		}
		per[si] = make([][]vecindex.Hit, len(uniq))
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			for _, g := range order {
				which := groups[g]
				vecs := make([][]float32, len(which))
				masks := make([]vecindex.Mask, len(which))
				depth := 0
				for j, ui := range which {
					vecs[j], masks[j] = uniq[ui].vec, uniq[ui].masks[si]
					depth = max(depth, uniq[ui].depth)
				}
				var hits [][]vecindex.Hit
				var err error
				if g.rerank >= 0 {
					hits, err = s.Int8.SearchMany(vecs, depth, masks, g.rerank)
				} else {
					hits, err = s.Vectors.SearchMany(vecs, depth, masks)
				}
				if err != nil {
					errs[si] = err
					return
				}
				for j, ui := range which {
					per[si][ui] = hits[j]
				}
			}
		}()
	}
	wg.Wait()
	for si, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("retrieve: shard %s: %w", shards[si].ID, err)
		}
	}
	for k, ui := range at {
		var all []shardHit
		for si := range shards {
			if per[si] == nil {
				continue
			}
			for _, h := range per[si][ui] {
				all = append(all, shardHit{si, h.Row, h.Score})
			}
		}
		sortHits(all)
		d.m[k] = denseEntry{depth: uniq[ui].depth, exact: k.depth == 0, hits: all[:min(uniq[ui].depth, len(all))]}
	}
	return d, nil
}

// Len is how many dense branches the batch holds (one per distinct vector and mask).
func (d *DenseBatch) Len() int { return len(d.m) }

// top is the dense top n for qvec under mask m and int8 rerank, if the batch holds it for these
// shards, as denseTop would return it.
func (d *DenseBatch) top(shards []*Shard, qvec []float32, m mask, n, rerank int) ([]shardHit, bool) {
	if d == nil || len(qvec) == 0 || len(shards) != d.nShards || len(shards) == 0 || shards[0] != d.first {
		return nil, false
	}
	e, ok := d.m[keyOf(shards, qvec, m, rerank, n)]
	if !ok || e.depth < n || (!e.exact && e.depth != n) {
		return nil, false
	}
	return e.hits[:min(n, len(e.hits))], true
}

// sortHits orders dense hits best first: score, then shard, then row (denseTop's order).
func sortHits(all []shardHit) {
	slices.SortFunc(all, func(a, b shardHit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.shard, b.shard), cmp.Compare(a.row, b.row))
	})
}
