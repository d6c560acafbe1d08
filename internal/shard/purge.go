package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// PurgedID is the id of the shard that shard id becomes once the rows of the documents gone
// (doc_ids, in any order) are purged from it: a hash of both, so a purge that is run again, or
// resumed after a crash, finds the shard it wrote, and another set of documents gives another
// shard.
func PurgedID(id string, gone []string) string {
	ids := slices.Clone(gone)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	h := sha256.New()
	fmt.Fprintf(h, "purge %d:%s", len(id), id) // each length-prefixed: no two inputs hash alike
	for _, d := range ids {
		fmt.Fprintf(h, " %d:%s", len(d), d)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// Without is a shard's chunk rows and vectors (row i = chunk i) without the rows of the
// documents gone (by doc_id): every version of each. It counts the document versions left
// (a shard's Docs) and the rows removed; the inputs are not modified.
func Without(chunks []schemas.Chunk, vectors *vecindex.Flat, gone map[string]bool) (kept []schemas.Chunk, vec *vecindex.Flat, docs, removed int, err error) {
	if vectors.Count != len(chunks) {
		return nil, nil, 0, 0, fmt.Errorf("%d vectors for %d chunks", vectors.Count, len(chunks))
	}
	vec = vecindex.New(vectors.Dim, vectors.Model)
	versions := map[string]bool{}
	for i, c := range chunks {
		if gone[c.DocID] {
			removed++
			continue
		}
		kept = append(kept, c)
		if err := vec.Add(vectors.Row(i)); err != nil {
			return nil, nil, 0, 0, err
		}
		versions[c.DocID+"\x00"+strconv.Itoa(int(c.VersionOf()))] = true
	}
	return kept, vec, len(versions), removed, nil
}
