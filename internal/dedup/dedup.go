// Package dedup groups near-duplicate retrieval candidates: the same news reposted across
// channels with small edits, or several chunks of one document.
//
// Three relations put two items in one cluster, and clusters are their transitive closure
// (union-find), so A~B and B~C group A, B and C even when A and C are not alike:
//   - exact: the same non-empty Key (hash of normalized text) on the same UTC calendar day;
//   - semantic: dot(Vec_i, Vec_j) ≥ MinCosine and at most MaxDayGap UTC calendar days apart;
//   - document: the same non-empty DocID (a document appears once in a result list).
//
// Group is a pure function over plain values: it knows nothing of retrieval, storage or
// Temporal, and its output depends only on its input (never on map order).
package dedup

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Item is one retrieval candidate.
type Item struct {
	// ChunkID, DocID and Source identify the candidate; items with the same non-empty DocID
	// always share a cluster, and Source names the channel that carried it.
	ChunkID, DocID, Source string
	// PublishedAt is when the source published it; its UTC calendar day is what the day
	// rules compare.
	PublishedAt time.Time
	// Key is a hash of the normalized text (the exact-duplicate key); empty means only
	// semantic grouping applies.
	Key string
	// Vec is the L2-normalized embedding; nil (or empty) means only exact grouping applies.
	Vec []float32
	// Score is the fused retrieval score; higher is better.
	Score float64
	// Edited marks a later version of its document (an edit, a correction): in a cluster it
	// is the representative over copies of what it corrects (a repost elsewhere still carries
	// the first text), the cluster keeping its best member's place.
	Edited bool
}

// Options tune what counts as a duplicate.
type Options struct {
	// MinCosine is the least inner product of two vectors (cosine, as they are normalized)
	// for a semantic duplicate. It is compared in float32, the precision of the vectors.
	MinCosine float64 `json:"MinCosine"`
	// MaxDayGap is the largest difference in UTC calendar days between semantic duplicates
	// (0: same day only).
	MaxDayGap int `json:"MaxDayGap"`
}

// DefaultOptions are cosine ≥ 0.95 within 1 day (docs/design.md §5).
func DefaultOptions() Options { return Options{MinCosine: 0.95, MaxDayGap: 1} }

// Validate reports options that cannot group.
func (o Options) Validate() error {
	switch {
	case math.IsNaN(o.MinCosine) || o.MinCosine <= 0 || o.MinCosine > 1:
		return fmt.Errorf("dedup: min cosine %v must be in (0, 1]", o.MinCosine)
	case o.MaxDayGap < 0:
		return fmt.Errorf("dedup: max day gap %d must not be negative", o.MaxDayGap)
	}
	return nil
}

// ErrDim is returned (wrapped) when two items carry vectors of different lengths.
var ErrDim = errors.New("dedup: vectors of different lengths")

// ErrScore is returned (wrapped) for an item whose Score is NaN, which has no rank.
var ErrScore = errors.New("dedup: score is NaN")

// Cluster is one group of duplicates, as indices into Group's items.
type Cluster struct {
	// Best is the kept representative: the highest Score; ties go to the earliest
	// PublishedAt, then the lowest index; but an Edited member, when the cluster has one,
	// over every member that is not (the best of them by the same rule).
	Best int
	// Members are all indices of the cluster, ascending; Best is one of them.
	Members []int
	// Sources are the distinct non-empty sources that carried it, sorted by the first time
	// each published it, then by name.
	Sources []string
	// First and Last are the earliest and latest PublishedAt among the members.
	First, Last time.Time
}

// Group clusters items and returns the clusters ordered as a deduplicated result list: by
// their best member's Score descending (Best's, unless an edit is shown in its place), ties
// by that member's index. Every index of items is in exactly
// one cluster. Semantic pairs are only compared within MaxDayGap days of each other (items
// sorted by day, sliding window), so the cost is O(n·w·d) for w items per window.
func Group(items []Item, o Options) ([]Cluster, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	dim := -1
	for i, it := range items {
		if math.IsNaN(it.Score) {
			return nil, fmt.Errorf("%w: item %d (chunk %q)", ErrScore, i, it.ChunkID)
		}
		if len(it.Vec) == 0 {
			continue
		}
		if dim < 0 {
			dim = len(it.Vec)
		} else if len(it.Vec) != dim {
			return nil, fmt.Errorf("%w: item %d (chunk %q) has %d values, others %d", ErrDim, i, it.ChunkID, len(it.Vec), dim)
		}
	}

	n := len(items)
	days := make([]int64, n)
	for i, it := range items {
		days[i] = day(it.PublishedAt)
	}
	uf := newUnionFind(n)

	// Exact and document relations: join each item to the first one with its key.
	type exactKey struct {
		key string
		day int64
	}
	firstExact := map[exactKey]int{}
	firstDoc := map[string]int{}
	for i, it := range items {
		if it.Key != "" {
			k := exactKey{it.Key, days[i]}
			if j, ok := firstExact[k]; ok {
				uf.union(i, j)
			} else {
				firstExact[k] = i
			}
		}
		if it.DocID != "" {
			if j, ok := firstDoc[it.DocID]; ok {
				uf.union(i, j)
			} else {
				firstDoc[it.DocID] = i
			}
		}
	}

	// Semantic relation: a sliding window over the items with vectors, in day order.
	var byDay []int
	for i, it := range items {
		if len(it.Vec) > 0 {
			byDay = append(byDay, i)
		}
	}
	slices.SortFunc(byDay, func(a, b int) int {
		return cmp.Or(cmp.Compare(days[a], days[b]), cmp.Compare(a, b))
	})
	minCos := float32(o.MinCosine)
	gap := int64(o.MaxDayGap)
	for x, i := range byDay {
		for _, j := range byDay[x+1:] {
			if days[j]-days[i] > gap {
				break
			}
			if uf.find(i) == uf.find(j) {
				continue // already together: skip the dot product
			}
			if dot(items[i].Vec, items[j].Vec) >= minCos {
				uf.union(i, j)
			}
		}
	}

	// Collect clusters; members come out ascending because i ascends.
	slot := make([]int, n)
	for i := range slot {
		slot[i] = -1
	}
	var clusters []Cluster
	var tops []int
	for i := range items {
		r := uf.find(i)
		if slot[r] < 0 {
			slot[r] = len(clusters)
			clusters = append(clusters, Cluster{Best: i})
			tops = append(tops, i)
		}
		c := &clusters[slot[r]]
		c.Members = append(c.Members, i)
		if better(items, i, tops[slot[r]]) {
			tops[slot[r]] = i // where the cluster ranks: its best member, edits not preferred
		}
		if e, be := items[i].Edited, items[c.Best].Edited; e && !be || e == be && better(items, i, c.Best) {
			c.Best = i
		}
	}
	for k := range clusters {
		finish(&clusters[k], items)
	}
	order := make([]int, len(clusters))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(items[tops[b]].Score, items[tops[a]].Score), cmp.Compare(tops[a], tops[b]))
	})
	sorted := make([]Cluster, len(clusters))
	for k, o := range order {
		sorted[k] = clusters[o]
	}
	clusters = sorted
	return clusters, nil
}

// day is t's UTC calendar day as days since 1970-01-01 (negative before it).
func day(t time.Time) int64 {
	s := t.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d--
	}
	return d
}

// better reports whether item i beats item j as a cluster's representative.
func better(items []Item, i, j int) bool {
	a, b := items[i], items[j]
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if !a.PublishedAt.Equal(b.PublishedAt) {
		return a.PublishedAt.Before(b.PublishedAt)
	}
	return i < j
}

// finish fills a cluster's Sources, First and Last from its members.
func finish(c *Cluster, items []Item) {
	first := map[string]time.Time{}
	for k, m := range c.Members {
		it := items[m]
		if k == 0 || it.PublishedAt.Before(c.First) {
			c.First = it.PublishedAt
		}
		if k == 0 || it.PublishedAt.After(c.Last) {
			c.Last = it.PublishedAt
		}
		if it.Source == "" {
			continue
		}
		if t, ok := first[it.Source]; !ok || it.PublishedAt.Before(t) {
			first[it.Source] = it.PublishedAt
		}
	}
	c.Sources = make([]string, 0, len(first))
	for s := range first {
		c.Sources = append(c.Sources, s)
	}
	slices.SortFunc(c.Sources, func(a, b string) int {
		return cmp.Or(first[a].Compare(first[b]), cmp.Compare(a, b))
	})
}

// dot is the inner product of two vectors of equal length, unrolled by four (the slices are
// advanced rather than indexed, so the compiler drops the bounds checks).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 4 && len(b) >= 4 {
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		a, b = a[4:], b[4:]
	}
	for i := range a {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// unionFind is a disjoint-set forest with union by size and path halving.
type unionFind struct {
	parent, size []int32
}

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int32, n), size: make([]int32, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
		u.size[i] = 1
	}
	return u
}

func (u *unionFind) find(i int) int {
	x := int32(i)
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return int(x)
}

func (u *unionFind) union(i, j int) {
	a, b := int32(u.find(i)), int32(u.find(j))
	if a == b {
		return
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = a
	u.size[a] += u.size[b]
}
