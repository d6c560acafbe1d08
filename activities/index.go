package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/lifecycle"
	"github.com/asofrag/asof/internal/modelchoice"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// InputFile is one corpus file in the store (indexplan.InputFile).
type InputFile = indexplan.InputFile

// PlanIndexInput describes a build.
type PlanIndexInput struct {
	Index   string              `json:"index"`
	RunID   string              `json:"run_id"`
	Inputs  []InputFile         `json:"inputs"`
	Mapping map[string]string   `json:"mapping"`
	From    time.Time           `json:"from"`
	To      time.Time           `json:"to"`
	Period  string              `json:"period"`
	Chunk   schemas.ChunkConfig `json:"chunk"`
	// InputsKey, when set, names the input file list in the store (layout.InputListKey, a
	// JSON array of InputFile) instead of Inputs.
	InputsKey string `json:"inputs_key,omitempty"`
	// StorePlan stores the plan and the per-file table (layout.BuildPlanKey, BuildFilesKey) and
	// returns their keys and counts instead of Periods, Files and Existing.
	StorePlan bool `json:"store_plan,omitempty"`
	// Append adds the inputs to the live index: its shards stay, rows whose doc_id it holds are
	// duplicates, and new rows make new shards (a period may then have several).
	Append bool `json:"append"`
	// Started is when the build started: rows published after the next day are quarantined as
	// future_date, unless AllowFuture (zero: no check).
	Started     time.Time `json:"started"`
	AllowFuture bool      `json:"allow_future"`
	// Replace lets a build that is not an append drop documents the live index holds (else
	// refused, InvalidInput, naming how many).
	Replace bool `json:"replace"`
	// Kind is how rows without a kind column value are read (schemas.KindNews, "" or
	// schemas.KindStanding); an append without one keeps the live index's.
	Kind string `json:"kind,omitempty"`
}

// PlanIndexResult lists the shards and the reconciliation of every input row.
type PlanIndexResult struct {
	Periods       []indexplan.PeriodPlan `json:"periods"`
	Counts        schemas.IndexCounts    `json:"counts"`
	Files         []indexplan.FileCounts `json:"files"`
	QuarantineKey string                 `json:"quarantine_key,omitempty"`
	Model         schemas.ModelRef       `json:"model"`
	// Existing are the live shards an append keeps, Base their counts and BaseSeq the live
	// manifest's number (0: none).
	Existing []schemas.ShardMeta `json:"existing,omitempty"`
	Base     schemas.IndexCounts `json:"base"`
	BaseSeq  int                 `json:"base_seq,omitempty"`
	// PlanKey and FilesKey name the stored plan and per-file table (StorePlan), of FileCount
	// rows; Summary counts the plan.
	PlanKey   string            `json:"plan_key,omitempty"`
	FilesKey  string            `json:"files_key,omitempty"`
	FileCount int               `json:"file_count,omitempty"`
	Summary   indexplan.Summary `json:"summary,omitzero"`
	// Kind is the kind the build read rows without one as (the input's, or the live index's for
	// an append): the manifest records it.
	Kind string `json:"kind,omitempty"`
}

// PlanIndex reads and validates every input file, quarantines bad rows (layout.QuarantineKey),
// groups the documents by period, names each shard by the hash of its content, configuration
// and model (so a shard that exists is reused) and stages the documents of the others.
func (a *Activities) PlanIndex(ctx context.Context, in PlanIndexInput) (PlanIndexResult, error) {
	if err := layout.ValidateIndexName(in.Index); err != nil {
		return PlanIndexResult{}, invalid(err)
	}
	if err := shard.ValidUnit(in.Period); err != nil {
		return PlanIndexResult{}, invalid(err)
	}
	if a.Model.ID == "" {
		return PlanIndexResult{}, temporal.NewNonRetryableApplicationError("this worker has no embedding model: run `asof models pull`", ErrTypeConfig, nil)
	}
	kind, err := lifecycle.ParseKind(in.Kind)
	if err != nil {
		return PlanIndexResult{}, invalid(err)
	}
	inputs, err := a.inputFiles(ctx, in)
	if err != nil {
		return PlanIndexResult{}, err
	}
	res := PlanIndexResult{Model: a.Model, Kind: kind}
	var existing map[string]corpus.Known
	if in.Append {
		if existing, err = a.planAppend(ctx, in, &res); err != nil {
			return PlanIndexResult{}, err
		}
	}
	opts := indexplan.LoaderOptions(in.Mapping, in.From, in.To, existing, in.Started, in.AllowFuture)
	if opts.Deleted, err = a.takenDown(ctx, in.Index); err != nil {
		return PlanIndexResult{}, err
	}
	loader := corpus.NewLoader(opts)
	docs, rejects, err := storeio.ReadCorpus(ctx, a.Bucket, loader, inputs, func(name string) { heartbeat(ctx, name) })
	if errors.Is(err, blob.ErrNotFound) || errors.Is(err, corpus.ErrMissingColumn) || errors.Is(err, corpus.ErrBadFile) || errors.Is(err, corpus.ErrColumnType) {
		return PlanIndexResult{}, invalid(err) // a missing file, or one the loader cannot read
	}
	if err != nil {
		return PlanIndexResult{}, err
	}
	res.Files, res.Counts = indexplan.Reconcile(loader, docs)
	indexplan.Versioned(docs, existing)
	if err := indexplan.CheckRows(inputNames(inputs), res.Counts.Read); err != nil {
		return PlanIndexResult{}, invalid(err) // nothing to publish: the build fails, not retried
	}
	if len(rejects) > 0 { // kept first, so a build refused below still shows why
		res.QuarantineKey = layout.QuarantineKey(in.RunID)
		if err := storeio.PutParquet(ctx, a.Bucket, res.QuarantineKey, rejects); err != nil {
			return PlanIndexResult{}, err
		}
	}
	if !in.Append {
		if err := indexplan.CheckIndexable(inputNames(inputs), res.Counts, res.QuarantineKey); err != nil {
			return PlanIndexResult{}, invalid(err) // an index of nothing: the build fails, not retried
		}
	}
	indexplan.Kinded(docs, res.Kind)
	periods, groups := shard.Group(docs, in.Period)
	ids, err := shard.IDs(periods, groups, in.Chunk, a.Model)
	if err != nil { // a document JSON cannot encode (a year past 9999): no retry helps
		return PlanIndexResult{}, invalid(err)
	}
	if !in.Append && !in.Replace {
		if err := a.checkNothingDropped(ctx, in.Index, ids, docs); err != nil {
			return PlanIndexResult{}, err
		}
	}
	if res.Periods, err = storeio.StagePeriods(ctx, a.Bucket, in.Index, periods, ids, groups); err != nil {
		return PlanIndexResult{}, err // each period's shard: built already, or its documents staged
	}
	a.Metrics.IndexPlanned(res.Counts.Read, res.Counts.Indexed, res.Counts.Skipped, res.Counts.Quarantined)
	if in.StorePlan {
		if err := a.storePlan(ctx, in.RunID, &res); err != nil {
			return PlanIndexResult{}, err
		}
	}
	return res, nil
}

// inputFiles are a build's input files: in.Inputs, or the list the CLI stored at in.InputsKey
// (layout.InputListKey).
func (a *Activities) inputFiles(ctx context.Context, in PlanIndexInput) ([]InputFile, error) {
	files, err := in.Inputs, error(nil)
	if in.InputsKey != "" {
		files, err = storeio.GetJSON[[]InputFile](ctx, a.Bucket, in.InputsKey)
	}
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return nil, invalid(fmt.Errorf("input file list %s: %w (the CLI writes it before it starts the build)", in.InputsKey, err))
	case errors.Is(err, storeio.ErrDecode):
		return nil, invalid(fmt.Errorf("input file list: %w", err))
	case err == nil && len(files) == 0:
		return nil, invalid(errors.New("no input files"))
	}
	return files, err
}

// inputNames are the names of a build's input files, as reports call them.
func inputNames(inputs []InputFile) []string {
	names := make([]string, len(inputs))
	for i, f := range inputs {
		names[i] = f.Name
		if names[i] == "" {
			names[i] = f.Key
		}
	}
	return names
}

// storePlan moves the plan's periods and kept shards and the per-file table of res into the
// store (storeio.PutPlan), leaving their keys and counts.
func (a *Activities) storePlan(ctx context.Context, runID string, res *PlanIndexResult) (err error) {
	plan := indexplan.NewStoredPlan(res.Periods, res.Existing)
	res.PlanKey, res.FilesKey, err = storeio.PutPlan(ctx, a.Bucket, runID, plan, res.Files)
	res.FileCount, res.Summary, res.Periods, res.Files, res.Existing = len(res.Files), plan.Summary(), nil, nil, nil
	return err
}

// readPlan reads a stored plan (storeio.GetPlan); one this worker cannot read is final.
func (a *Activities) readPlan(ctx context.Context, key string) (indexplan.StoredPlan, error) {
	plan, err := storeio.GetPlan(ctx, a.Bucket, key)
	if errors.Is(err, storeio.ErrDecode) {
		return plan, invalid(err)
	}
	return plan, err
}

// PlanPageInput asks for a page of the shards a stored plan builds.
type PlanPageInput struct {
	Index   string `json:"index"`
	PlanKey string `json:"plan_key"`
	// Offset counts the shards to build already paged; Limit is the most to return (at most
	// indexplan.PageMax).
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// PlanPageResult is one page of shards to build.
type PlanPageResult struct {
	Periods []indexplan.PeriodPlan `json:"periods"`
	// Next is the offset of the next page; equal to the plan's shards to build at the end.
	Next int `json:"next"`
}

// PlanPage returns the shards a stored plan builds from Offset on, at most Limit (and at most
// indexplan.PageMax), with their staged documents' keys.
func (a *Activities) PlanPage(ctx context.Context, in PlanPageInput) (PlanPageResult, error) {
	plan, err := a.readPlan(ctx, in.PlanKey)
	if err != nil {
		return PlanPageResult{}, err
	}
	page, next, err := plan.Page(in.Offset, in.Limit)
	if err != nil {
		return PlanPageResult{}, invalid(fmt.Errorf("build plan %s: %w", in.PlanKey, err))
	}
	return PlanPageResult{Next: next, Periods: indexplan.ToBuild(in.Index, page)}, nil
}

// checkNothingDropped refuses a build that would drop documents the live index holds (a plain
// rebuild after an --append, or over fewer files), reading the doc_ids of the live shards
// that are not planned as they are.
func (a *Activities) checkNothingDropped(ctx context.Context, index string, planned []string, docs []schemas.Document) error {
	m, err := a.currentManifest(ctx, index)
	if errors.Is(err, layout.ErrIndexNotFound) { // no index yet
		return nil
	}
	if err != nil {
		return err
	}
	unplanned := indexplan.Unplanned(m.Shards, planned)
	if len(unplanned) == 0 {
		return nil
	}
	dropped := indexplan.NewDropped(docs)
	if err := storeio.EachShardDocIDs(ctx, a.Bucket, index, unplanned, func(sm schemas.ShardMeta, ids []string) {
		dropped.Add(sm.Period, ids)
		heartbeat(ctx, sm.ID)
	}); err != nil {
		return err
	}
	if err := dropped.Err(index); err != nil {
		return invalid(err)
	}
	return nil
}

// planAppend reads the live index for an append: its shards and counts go into res, and what
// it holds of each document comes back (its latest version: where, which, when, its content
// hash), so that the loader treats a row of the same content as a duplicate and one of other
// content published later as the document's next version. An index that does not exist yet is
// simply built.
func (a *Activities) planAppend(ctx context.Context, in PlanIndexInput, res *PlanIndexResult) (map[string]corpus.Known, error) {
	m, err := a.currentManifest(ctx, in.Index)
	if errors.Is(err, layout.ErrIndexNotFound) { // no index yet
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := checkModel(in.Index, m.Model, a.Model); err != nil {
		return nil, err
	}
	if err := indexplan.CheckAppend(in.Index, m, a.Model, in.Period, in.Chunk); err != nil {
		return nil, invalid(err)
	}
	res.Existing, res.Base, res.BaseSeq = m.Shards, m.Counts, m.Seq
	if res.Kind == "" {
		res.Kind = m.Kind
	}
	known := map[string]corpus.Known{}
	for _, sm := range m.Shards {
		docs, err := storeio.ShardDocs(ctx, a.Bucket, in.Index, sm)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			if k, ok := known[d.DocID]; !ok || d.Version > k.Version {
				known[d.DocID] = corpus.Known{Where: fmt.Sprintf("index %s, shard %s (%s)", in.Index, sm.Period, sm.ID), Version: d.Version, Published: d.Published, Hash: d.Hash}
			}
		}
		heartbeat(ctx, sm.ID)
	}
	return known, nil
}

// ChunkShardInput names a staged period.
type ChunkShardInput struct {
	Index   string              `json:"index"`
	ShardID string              `json:"shard_id"`
	DocsKey string              `json:"docs_key"`
	Chunk   schemas.ChunkConfig `json:"chunk"`
	// Shards, when set, are a batch (indexplan.Batches) to chunk in turn instead.
	Shards []ChunkShardInput `json:"shards,omitempty"`
}

// ChunkShardResult names the staged chunk rows.
type ChunkShardResult struct {
	ChunksKey string `json:"chunks_key"`
	Chunks    int    `json:"chunks"`
	// Truncated counts documents cut by MaxChunksPerDoc.
	Truncated int `json:"truncated"`
	// Shards are a batch's results, in its order.
	Shards []ChunkShardResult `json:"shards,omitempty"`
}

// ChunkShard splits a period's documents into chunk rows (staging/<shard>/chunks.parquet).
func (a *Activities) ChunkShard(ctx context.Context, in ChunkShardInput) (ChunkShardResult, error) {
	if in.Shards != nil {
		out, err := eachShard(ctx, in.Shards, a.ChunkShard)
		return ChunkShardResult{Shards: out}, err
	}
	docs, err := storeio.GetParquet[schemas.Document](ctx, a.Bucket, in.DocsKey)
	if err != nil {
		return ChunkShardResult{}, fmt.Errorf("chunk shard %s: %w", in.ShardID, err)
	}
	rows, trunc := shard.Chunks(docs, in.Chunk)
	key := layout.StagingChunksKey(in.Index, in.ShardID)
	if err := storeio.PutParquet(ctx, a.Bucket, key, rows); err != nil {
		return ChunkShardResult{}, err
	}
	return ChunkShardResult{ChunksKey: key, Chunks: len(rows), Truncated: trunc}, nil
}

// EmbedShardInput names staged chunks and where their vectors go.
type EmbedShardInput struct {
	ChunksKey string `json:"chunks_key"`
	// VectorsPrefix receives one object per part: <prefix>/<00000>.f32.
	VectorsPrefix string `json:"vectors_prefix"`
	// PartSize is the number of chunks per part (default DefaultEmbedPartSize).
	PartSize int `json:"part_size"`
	// Model is the model the build was planned for (shard ids name it; empty: unchecked); a
	// worker embedding with another model refuses the task.
	Model schemas.ModelRef `json:"model,omitempty"`
	// Shards, when set, are a batch to embed in turn instead, each resuming as above.
	Shards []EmbedShardInput `json:"shards,omitempty"`
}

// DefaultEmbedPartSize is how many chunks EmbedShard embeds and stores at a time (BENCHMARKS.md).
const DefaultEmbedPartSize = 128

// EmbedShardResult counts the work.
type EmbedShardResult struct {
	Parts int `json:"parts"`
	// Embedded parts were computed by this attempt; Resumed ones were already stored.
	Embedded int `json:"embedded"`
	Resumed  int `json:"resumed"`
	Chunks   int `json:"chunks"`
	// Shards are a batch's results, in its order.
	Shards []EmbedShardResult `json:"shards,omitempty"`
}

// EmbedShard embeds staged chunks part by part, storing each part before heartbeating, so a
// retry or another worker resumes after the last stored part instead of starting over.
func (a *Activities) EmbedShard(ctx context.Context, in EmbedShardInput) (EmbedShardResult, error) {
	if a.Embedder == nil {
		return EmbedShardResult{}, temporal.NewNonRetryableApplicationError("this worker has no embedding model: run `asof models pull` where the asof-embed queue is served", ErrTypeConfig, nil)
	}
	if in.PartSize <= 0 {
		in.PartSize = DefaultEmbedPartSize
	}
	if err := modelchoice.PlannedMismatch(in.Model, a.Model, config.QueueEmbed); err != nil {
		return EmbedShardResult{}, mismatch(err)
	}
	if in.Shards != nil {
		out, err := eachShard(ctx, in.Shards, a.EmbedShard)
		return EmbedShardResult{Shards: out}, err
	}
	chunks, err := storeio.GetParquet[schemas.Chunk](ctx, a.Bucket, in.ChunksKey)
	if err != nil {
		return EmbedShardResult{}, err
	}
	res := EmbedShardResult{Chunks: len(chunks), Parts: (len(chunks) + in.PartSize - 1) / in.PartSize}
	alive := keepAliveFor(ctx)
	defer alive.Stop()
	for p := 0; p < res.Parts; p++ {
		key := layout.PartKey(in.VectorsPrefix, p)
		if ok, err := a.Bucket.Exists(ctx, key); err != nil {
			return res, err
		} else if ok {
			res.Resumed++
			heartbeat(ctx, p)
			continue
		}
		part := chunks[p*in.PartSize : min((p+1)*in.PartSize, len(chunks))]
		texts := shard.EmbedTexts(part)
		began := time.Now()
		alive.PartStarted(began)
		vecs, err := a.Embedder.EmbedPassages(ctx, texts)
		took := time.Since(began)
		if err != nil { // a refused request or a broken reply comes again: final (embedFailed)
			return res, embedFailed(fmt.Sprintf("embed part %d (chunks %d-%d)", p, p*in.PartSize, p*in.PartSize+len(part)-1), err)
		}
		buf, err := vecindex.Encode(a.Embedder.Dim(), a.Embedder.ModelID(), vecs)
		if err != nil {
			return res, err
		}
		if _, err := a.Bucket.Put(ctx, key, buf); err != nil {
			return res, err
		}
		a.Metrics.Embedded(embed.Label(a.Embedder), len(part), took) // stored: a retry resumes after it
		res.Embedded++
		alive.Progress(p)
		heartbeat(ctx, p)
	}
	return res, nil
}

// WriteShardInput names a shard's staged chunks and vector parts.
type WriteShardInput struct {
	Index         string `json:"index"`
	Period        string `json:"period"`
	ShardID       string `json:"shard_id"`
	Docs          int    `json:"docs"`
	ChunksKey     string `json:"chunks_key"`
	VectorsPrefix string `json:"vectors_prefix"`
	Parts         int    `json:"parts"`
	// Shards, when set, are a batch to write in turn instead.
	Shards []WriteShardInput `json:"shards,omitempty"`
}

// WriteShardResult is the published shard's meta; none for a batch (64 metas would pass 64 KB:
// PublishManifest reads them from the store).
type WriteShardResult struct {
	Meta schemas.ShardMeta `json:"meta"`
}

// WriteShard writes and uploads the shard files (chunks, vectors, BM25), meta.json last (a shard
// with one is complete), then deletes its staging; a retry that finds meta.json only deletes.
func (a *Activities) WriteShard(ctx context.Context, in WriteShardInput) (WriteShardResult, error) {
	if in.Shards != nil {
		_, err := eachShard(ctx, in.Shards, a.WriteShard)
		return WriteShardResult{}, err
	}
	if m, err := storeio.BuiltShard(ctx, a.Bucket, in.Index, in.Period, in.ShardID); err != nil {
		return WriteShardResult{}, err
	} else if m != nil {
		return WriteShardResult{Meta: *m}, storeio.DeleteStaging(ctx, a.Bucket, in.Index, in.ShardID)
	}
	chunks, vec, err := storeio.GetStagedShard(ctx, a.Bucket, in.ChunksKey, in.VectorsPrefix, in.Parts)
	if err != nil {
		return WriteShardResult{}, mismatch(err)
	}
	dir, err := os.MkdirTemp("", "asof-shard-")
	if err != nil {
		return WriteShardResult{}, err
	}
	defer os.RemoveAll(dir)
	began := time.Now()
	meta, err := shard.Write(filepath.Join(dir, "s"), in.Period, in.ShardID, in.Docs, chunks, vec)
	if err != nil {
		return WriteShardResult{}, err
	}
	a.Metrics.ShardBuilt(time.Since(began))
	began = time.Now()
	if err := storeio.UploadShard(ctx, a.Bucket, in.Index, filepath.Join(dir, "s"), meta); err != nil {
		return WriteShardResult{}, err
	}
	a.Metrics.ShardPublished(time.Since(began))
	return WriteShardResult{Meta: meta}, storeio.DeleteStaging(ctx, a.Bucket, in.Index, in.ShardID)
}

// PublishManifestInput is a finished build. With PlanKey, the build's stored plan
// (layout.BuildPlanKey), Shards are its kept shards plus each period's shard, read from the
// plan or from the shard's meta.json, and Shards in the input is ignored.
type PublishManifestInput struct {
	indexplan.Build
	PlanKey string `json:"plan_key,omitempty"`
}

// PublishManifestResult names the live manifest.
type PublishManifestResult struct {
	Key string `json:"key"`
	Seq int    `json:"seq"`
	// Chunks counts the chunks of the build's own shards (set with PlanKey).
	Chunks int64 `json:"chunks,omitempty"`
	// Unchanged is set when the live manifest already lists exactly these shards.
	Unchanged bool `json:"unchanged"`
	// Rebased is set when an append's shards were added to a manifest newer than the one it
	// was planned on.
	Rebased bool `json:"rebased,omitempty"`
	// Lifecycle names the published manifest's lifecycle table (nil: none, or Unchanged).
	Lifecycle *schemas.LifecycleRef `json:"lifecycle,omitempty"`
}

// PublishManifest writes manifests/<seq>.json and moves CURRENT to it (layout.Publish: readers
// see the old index or the new one); a publisher that loses the race starts again from the newer
// CURRENT, and an append then rebases on it (indexplan.Publish), so neither append loses shards.
func (a *Activities) PublishManifest(ctx context.Context, in PublishManifestInput) (PublishManifestResult, error) {
	began := time.Now()
	var chunks int64
	if in.PlanKey != "" {
		var err error
		if in.Shards, chunks, err = a.plannedShards(ctx, in.Index, in.PlanKey); err != nil {
			return PublishManifestResult{}, err
		}
	}
	var lifeRef *schemas.LifecycleRef
	var base map[string]bool // the shard ids of manifest BaseSeq (none: 0), read once if a rebase needs them
	rebased := false
	lives := map[string]*schemas.LifecycleRef{} // by shard list: a publisher that loses the race resolves only what changed
	pub, err := layout.Publish(ctx, a.Bucket, in.Index, func(live *schemas.Manifest, seq int, liveErr error) (*schemas.Manifest, error) {
		if liveErr != nil && in.Append {
			return nil, fmt.Errorf("publish %s: read the live manifest: %w", in.Index, liveErr)
		}
		if indexplan.NeedsBase(in.Build, live, seq) && base == nil && in.BaseSeq > 0 {
			m, err := layout.ReadManifest(ctx, a.Bucket, layout.ManifestKey(in.Index, in.BaseSeq))
			if err != nil {
				return nil, fmt.Errorf("publish %s: read manifest %d, which the append was planned on: %w", in.Index, in.BaseSeq, err)
			}
			base = indexplan.ShardIDs(m.Shards)
		}
		p, err := indexplan.Publish(in.Build, live, seq, base)
		if err != nil {
			return nil, err
		}
		shards := p.Manifest.Shards
		if p.Unchanged {
			shards = live.Shards
		}
		ids := indexplan.ShardList(shards)
		ref, ok := lives[ids]
		if !ok {
			if ref, err = storeio.ResolveLifecycle(ctx, a.Bucket, in.Index, shards, lifecycle.DefaultOptions(), func(n int) { heartbeat(ctx, n) }); err != nil {
				return nil, err
			}
			lives[ids] = ref
		}
		lifeRef = ref
		if p.Unchanged {
			// The same shards: unchanged unless this build reads them otherwise (another
			// --kind, or a lifecycle resolved anew), which publishes the live shards with it.
			if live.Kind == indexplan.ManifestKind(in.Kind) && sameLifecycle(live.Lifecycle, ref) {
				return nil, nil
			}
			p.Manifest = *live
			p.Manifest.Kind, p.Manifest.CreatedAt, p.Manifest.RestoredFrom = indexplan.ManifestKind(in.Kind), in.CreatedAt.UTC(), 0
		}
		rebased = p.Rebased
		p.Manifest.Lifecycle = ref
		p.Manifest.Version = schemas.ManifestVersionOf(p.Manifest)
		return &p.Manifest, nil
	}, func(existing schemas.Manifest, m *schemas.Manifest) bool {
		return indexplan.SameShards(existing, m.Shards, m.Model) && existing.Kind == m.Kind && sameLifecycle(existing.Lifecycle, m.Lifecycle)
	})
	if err != nil {
		return PublishManifestResult{}, mismatch(err) // indexplan.ErrRebuilt is final
	}
	if !pub.Unchanged {
		a.Metrics.ManifestPublished(time.Since(began))
	}
	return PublishManifestResult{Key: pub.Key, Seq: pub.Seq, Unchanged: pub.Unchanged, Rebased: rebased && !pub.Unchanged, Chunks: chunks, Lifecycle: lifeRef}, nil
}

// sameLifecycle reports whether two manifests name the same lifecycle table (or none).
func sameLifecycle(a, b *schemas.LifecycleRef) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Key == b.Key && a.SHA256 == b.SHA256
}

// plannedShards lists the shards a build with a stored plan publishes (storeio.PlannedShards);
// a shard the build did not write is final (no retry writes it).
func (a *Activities) plannedShards(ctx context.Context, index, planKey string) ([]schemas.ShardMeta, int64, error) {
	plan, err := a.readPlan(ctx, planKey)
	if err != nil {
		return nil, 0, err
	}
	metas, chunks, err := storeio.PlannedShards(ctx, a.Bucket, index, plan, func(n int) { heartbeat(ctx, n) })
	if errors.Is(err, blob.ErrNotFound) {
		return nil, 0, invalid(fmt.Errorf("publish %s: %w (its build did not finish)", index, err))
	}
	return metas, chunks, err
}

// takenDown is the doc_ids taken down from index's live manifest (nil: none, or no index): a
// build counts their rows as deleted instead of indexing them again.
func (a *Activities) takenDown(ctx context.Context, index string) (map[string]bool, error) {
	m, err := layout.ReadLive(ctx, a.Bucket, index)
	if errors.Is(err, layout.ErrIndexNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return indexplan.TakenDown(m), nil
}
