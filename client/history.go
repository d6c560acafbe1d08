package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// Rollback is what RollbackIndex published (apispec.Rollback).
type Rollback = apispec.Rollback

// ManifestInfo is one manifest of an index's history (apispec.ManifestInfo).
type ManifestInfo = apispec.ManifestInfo

// ErrNotRestorable is RollbackIndex's error for a manifest whose shards or lifecycle table are
// no longer in the store (a purge removed them): 409 in the HTTP API.
var ErrNotRestorable = errors.New("manifest cannot be restored")

// IndexHistory lists an index's manifests, oldest first, the live one marked: what each
// build, takedown, purge and rollback published.
func (c *Client) IndexHistory(ctx context.Context, index string) ([]ManifestInfo, error) {
	if err := c.checkStore(); err != nil {
		return nil, err
	}
	if err := c.RequireIndex(ctx, index); err != nil {
		return nil, err
	}
	cur, err := layout.ReadCurrent(ctx, c.Store, index)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", index, err)
	}
	seqs, err := layout.ManifestSeqs(ctx, c.Store, index)
	if err != nil {
		return nil, err
	}
	out := make([]ManifestInfo, 0, len(seqs))
	for _, seq := range seqs {
		key := layout.ManifestKey(index, seq)
		info := ManifestInfo{Seq: seq, Key: key, Live: seq == cur.Seq}
		m, err := layout.ReadManifest(ctx, c.Store, key)
		if err != nil {
			info.Error = err.Error()
			out = append(out, info)
			continue
		}
		info.CreatedAt, info.Model, info.Kind, info.Shards = m.CreatedAt, m.Model.ID, m.Kind, len(m.Shards)
		info.Counts, info.Takedowns, info.RestoredFrom = m.Counts, len(m.Takedowns), m.RestoredFrom
		out = append(out, info)
	}
	return out, nil
}

// RollbackIndex publishes manifest seq of index again, as the next manifest, by
// compare-and-swap on CURRENT like any build: its shards, model, chunking, kind and lifecycle
// table, with the live manifest's takedowns kept (a rollback never brings back a document taken
// down) and the rows of documents taken down since it was published moved from indexed to
// deleted. Refused while a build of the index runs (ErrIndexBuilding: it would publish over
// the rollback), for the live manifest itself, and for a manifest whose shards or lifecycle
// table are gone (ErrNotRestorable: a purge deletes the shards that held its documents).
func (c *Client) RollbackIndex(ctx context.Context, index string, seq int) (Rollback, error) {
	out := Rollback{Index: index, RestoredFrom: seq}
	if err := c.checkStore(); err != nil {
		return out, err
	}
	if err := c.check(); err != nil {
		return out, err
	}
	if err := layout.ValidateIndexName(index); err != nil {
		return out, &apispec.InvalidError{Err: fmt.Errorf("index: %w", err)}
	}
	if err := (apispec.RollbackRequest{Seq: seq}).Check(); err != nil {
		return out, err
	}
	if err := c.RequireIndex(ctx, index); err != nil {
		return out, err
	}
	if err := c.notBuilding(ctx, index, "roll back"); err != nil {
		return out, err
	}
	target, err := layout.ReadManifest(ctx, c.Store, layout.ManifestKey(index, seq))
	if errors.Is(err, blob.ErrNotFound) {
		return out, &apispec.InvalidError{Err: fmt.Errorf("index %s has no manifest %d (asof indexes history %s lists them)", index, seq, index)}
	}
	if err != nil {
		return out, fmt.Errorf("read manifest %d of %s: %w", seq, index, err)
	}
	if err := c.restorable(ctx, index, seq, target); err != nil {
		return out, err
	}
	scanned := map[string]storeio.DocRows{} // by the takedowns to count: a retry after a race reads again only when they change
	pub, err := layout.Publish(ctx, c.Store, index, func(live *schemas.Manifest, liveSeq int, liveErr error) (*schemas.Manifest, error) {
		if live == nil {
			return nil, fmt.Errorf("roll back %s: read the live manifest: %w", index, cmpErr(liveErr, layout.ErrIndexNotFound))
		}
		if liveSeq == seq {
			return nil, &apispec.InvalidError{Err: fmt.Errorf("manifest %d is the live manifest of %s: nothing to roll back", seq, index)}
		}
		m := target
		m.Seq, m.CreatedAt, m.RestoredFrom = liveSeq+1, c.now().UTC(), seq
		m.Takedowns = slices.Clone(live.Takedowns)
		had := map[string]bool{}
		for _, t := range target.Takedowns {
			had[t.DocID] = true
		}
		var since []string // taken down after the target was published: its counts still index them
		want := map[string]bool{}
		// A purged takedown stays purged: the target's shards exist, so the purge's sweep found
		// no row of the document in them.
		for _, t := range m.Takedowns {
			if !had[t.DocID] {
				since = append(since, t.DocID)
				want[t.DocID] = true
			}
		}
		key := fmt.Sprint(since)
		rows, ok := scanned[key]
		if !ok && len(since) > 0 {
			var err error
			if rows, err = storeio.CountDocRows(ctx, c.Store, index, target.Shards, want, nil); err != nil {
				return nil, fmt.Errorf("roll back %s: %w", index, err)
			}
			scanned[key] = rows
		}
		if len(since) > 0 {
			m.Counts = storeio.WithoutRows(target.Counts, rows, since)
		}
		m.Version = schemas.ManifestVersionOf(m)
		return &m, nil
	}, func(existing schemas.Manifest, m *schemas.Manifest) bool {
		return existing.RestoredFrom == m.RestoredFrom && indexplan.ShardList(existing.Shards) == indexplan.ShardList(m.Shards)
	})
	if err != nil {
		return out, err
	}
	live, err := layout.ReadManifest(ctx, c.Store, pub.Key)
	if err != nil {
		return out, err
	}
	out.ManifestKey, out.Seq, out.Shards, out.Counts, out.Takedowns = pub.Key, pub.Seq, len(live.Shards), live.Counts, len(live.Takedowns)
	return out, nil
}

// restorable checks that every shard and the lifecycle table manifest seq of index names are in
// the store (ErrNotRestorable naming the first that is not).
func (c *Client) restorable(ctx context.Context, index string, seq int, m schemas.Manifest) error {
	for _, sm := range m.Shards {
		built, err := storeio.BuiltShard(ctx, c.Store, index, sm.Period, sm.ID)
		if err != nil {
			return err
		}
		if built == nil {
			return fmt.Errorf("%w: manifest %d of %s names shard %s (%s), which is no longer in the store (a purge deletes the shards that held a document it removed)",
				ErrNotRestorable, seq, index, sm.ID, layout.ShardPrefix(sm.Period, sm.ID))
		}
		for _, name := range shard.Files(*built) {
			if ok, err := c.Store.Exists(ctx, layout.ShardKey(index, sm.Period, sm.ID, name)); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("%w: manifest %d of %s: shard %s has no %s", ErrNotRestorable, seq, index, sm.ID, name)
			}
		}
	}
	if l := m.Lifecycle; l != nil {
		if ok, err := c.Store.Exists(ctx, layout.IndexKey(index, l.Key)); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%w: manifest %d of %s names lifecycle table %s, which is no longer in the store (a purge deletes the tables that name a document it removed)",
				ErrNotRestorable, seq, index, l.Key)
		}
	}
	return nil
}

// cmpErr is err, or def when err is nil.
func cmpErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// ReplaceDrops is what a --replace build of some files would drop from an index: the documents
// the live index holds (not taken down) that no valid row of the files has.
type ReplaceDrops struct {
	Index   string   `json:"index"`
	Live    int      `json:"live"`
	Dropped int      `json:"dropped"`
	Sample  []string `json:"sample,omitempty"`
}

// DropsOfReplace reads the doc_id of every row of the local Parquet files (through the corpus
// loader with mapping and the days kept, from and to: the rows a build would index) and of
// every live shard of index, and says which documents a --replace build of the files would
// drop. An index that does not exist yet drops nothing.
func (c *Client) DropsOfReplace(ctx context.Context, index string, files []string, mapping map[string]string, from, to time.Time) (ReplaceDrops, error) {
	out := ReplaceDrops{Index: index}
	if err := c.checkStore(); err != nil {
		return out, err
	}
	live, err := layout.ReadLive(ctx, c.Store, index)
	if errors.Is(err, layout.ErrIndexNotFound) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	gone := indexplan.TakenDown(live)
	held := map[string]bool{}
	err = storeio.EachShardDocIDs(ctx, c.Store, index, live.Shards, func(_ schemas.ShardMeta, ids []string) {
		for _, id := range ids {
			if !gone[id] {
				held[id] = true
			}
		}
	})
	if err != nil {
		return out, err
	}
	out.Live = len(held)
	loader := corpus.NewLoader(indexplan.LoaderOptions(mapping, from, to, nil, time.Time{}, true))
	kept := map[string]bool{}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return out, err
		}
		st, err := f.Stat()
		if err == nil {
			err = loader.ReadFile(ctx, f, st.Size(), p, func(d schemas.Document) error { kept[d.DocID] = true; return nil },
				func(schemas.QuarantineRow) error { return nil })
		}
		f.Close()
		if err != nil {
			return out, fmt.Errorf("read %s: %w", p, err)
		}
	}
	var dropped []string
	for id := range held {
		if !kept[id] {
			dropped = append(dropped, id)
		}
	}
	slices.Sort(dropped)
	out.Dropped = len(dropped)
	out.Sample = dropped[:min(5, len(dropped))]
	return out, nil
}

// Quarantine is the rows an index build run refused, with their reasons, and the key they were
// read from (catalog.QuarantineRows: run is the run id or the key `asof index` printed).
func (c *Client) Quarantine(ctx context.Context, run string) ([]schemas.QuarantineRow, string, error) {
	if err := c.checkStore(); err != nil {
		return nil, "", err
	}
	return catalog.QuarantineRows(ctx, c.Store, run)
}
