package judge

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"sync"
)

// PoolMemoSize is how many pools a [PoolMemo] remembers; older ones are forgotten first.
const PoolMemoSize = 256

// PoolMemo remembers [PoolOf] for the pools being judged. The heuristic judge grades a pool in
// batches, each against the whole pool's facts, and PoolOf takes every document's terms: the
// batches of one pool, run at once in one process, compute it once between them. It is keyed
// by the query and every field PoolOf reads (title, text, cosine), so an answer never depends
// on what it remembers. The zero value is ready; it is safe for concurrent use.
type PoolMemo struct {
	mu    sync.Mutex
	pools map[uint64]*memoPool
	order []uint64 // keys, oldest first
}

type memoPool struct {
	once sync.Once
	pool Pool
}

// Of is PoolOf(query, docs), computed once for equal arguments while they are remembered.
func (m *PoolMemo) Of(query string, docs []Doc) Pool {
	k := poolKey(query, docs)
	m.mu.Lock()
	e := m.pools[k]
	if e == nil {
		if m.pools == nil {
			m.pools = map[uint64]*memoPool{}
		}
		e = &memoPool{}
		m.pools[k] = e
		m.order = append(m.order, k)
		if len(m.order) > PoolMemoSize {
			delete(m.pools, m.order[0])
			m.order = m.order[1:]
		}
	}
	m.mu.Unlock()
	e.once.Do(func() { e.pool = PoolOf(query, docs) })
	return e.pool
}

// Len is how many pools m remembers.
func (m *PoolMemo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pools)
}

// poolKey hashes the query and, per document, the fields PoolOf reads, each length-prefixed so
// that no two argument lists run together into the same bytes.
func poolKey(query string, docs []Doc) uint64 {
	h := fnv.New64a()
	var n [8]byte
	str := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	str(query)
	for _, d := range docs {
		str(d.Title)
		str(d.Text)
		binary.LittleEndian.PutUint64(n[:], math.Float64bits(d.Cosine))
		h.Write(n[:])
	}
	return h.Sum64()
}
