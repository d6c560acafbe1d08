// Package catalog reads what the store holds, for the commands and the HTTP API that list and
// fetch it: the indexes under indexes/ (each from its live manifest and its objects), the
// digests under digests/ (each name's day folders), the answers under runs/ (each Ask run's
// answer.json) and the evaluations under evals/ (each one's summary.json and report). It
// reads through internal/layout and writes nothing.
package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// Span is the first and last publication time of an index's chunks, from its
// manifest's shards; both zero for an index with no shards.
func Span(m schemas.Manifest) (lo, hi time.Time) {
	for _, s := range m.Shards {
		if lo.IsZero() || s.MinDate.Before(lo) {
			lo = s.MinDate
		}
		if s.MaxDate.After(hi) {
			hi = s.MaxDate
		}
	}
	return lo, hi
}

// RangeHint names the dates an index holds and an --as-of inside them, for an answer
// that found no document in its period; "" when the manifest cannot be read.
func RangeHint(ctx context.Context, b blob.Bucket, index string) string {
	cur, err := layout.ReadCurrent(ctx, b, index)
	if err != nil {
		return ""
	}
	m, err := layout.ReadManifest(ctx, b, layout.ManifestOf(index, cur))
	if err != nil {
		return ""
	}
	lo, hi := Span(m)
	if hi.IsZero() {
		return fmt.Sprintf("index %s holds no documents (manifest %d)", index, m.Seq)
	}
	day := func(t time.Time) string { return t.UTC().Format(time.DateOnly) }
	return fmt.Sprintf("index %s holds documents published %s … %s (manifest %d): ask inside them, e.g. --as-of %s",
		index, day(lo), day(hi), m.Seq, day(hi))
}

// Index is one index as `asof indexes` lists and shows it, read from its live manifest
// (through internal/layout) and from the objects under its prefix.
type Index struct {
	Name      string     `json:"name"`
	Model     string     `json:"model,omitempty"`
	Documents int64      `json:"documents"`
	Chunks    int64      `json:"chunks"`
	From      *time.Time `json:"from,omitempty"`
	To        *time.Time `json:"to,omitempty"`
	// Sources counts the distinct sources (channels) of the index's chunks; a document merged
	// from several channels ("A; B") counts for each.
	Sources int    `json:"sources"`
	Shards  int    `json:"shards"`
	Period  string `json:"period,omitempty"`
	// Bytes and Objects are everything stored under the index's prefix (what delete frees):
	// the shards, every manifest, and staging left by an unfinished build.
	Bytes       int64     `json:"bytes"`
	Objects     int       `json:"objects"`
	ManifestSeq int       `json:"manifest_seq"`
	BuiltAt     time.Time `json:"built_at,omitzero"`
	// Problem says why the rest is missing: no published manifest, or a damaged one.
	Problem string `json:"problem,omitempty"`

	// Shown by `indexes show`: documents per source, the shards, and the build's counts.
	SourceDocs  map[string]int       `json:"source_docs,omitempty"`
	ShardList   []schemas.ShardMeta  `json:"shard_list,omitempty"`
	Counts      *schemas.IndexCounts `json:"counts,omitempty"`
	ModelSHA256 string               `json:"model_sha256,omitempty"`
	ModelDim    int                  `json:"model_dim,omitempty"`
	// Kind is the index's kind for rows without one ("standing"; empty: news), Lifecycle its
	// lifecycle table (standing texts, versions, supersession), nil when it needs none.
	Kind      string                `json:"kind,omitempty"`
	Lifecycle *schemas.LifecycleRef `json:"lifecycle,omitempty"`
	// TakenDown counts the documents taken down from the index (asof docs delete; asof docs
	// list names them).
	TakenDown int `json:"taken_down,omitempty"`
}

// chunkSource is the part of a chunk row that says which source published which document.
type chunkSource struct {
	DocID  string `parquet:"doc_id"`
	Source string `parquet:"source"`
}

// Indexes lists every index under indexes/ (every folder with an object in it, published
// or not) with its manifest's facts; detail adds the per-source documents and the shards.
// only, when set, keeps one index.
func Indexes(ctx context.Context, b blob.Bucket, only string, detail bool) ([]Index, error) {
	root := path.Dir(layout.IndexPrefix("x")) + "/"
	if only != "" {
		root = layout.IndexPrefix(only) + "/"
	}
	byName := map[string]*Index{}
	var names []string
	err := b.Iter(ctx, root, func(o blob.ObjectInfo) error {
		name, _, _ := strings.Cut(strings.TrimPrefix(o.Key, path.Dir(layout.IndexPrefix("x"))+"/"), "/")
		e := byName[name]
		if e == nil {
			e = &Index{Name: name}
			byName[name] = e
			names = append(names, name)
		}
		e.Bytes += o.Size
		e.Objects++
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", root, b, err)
	}
	out := make([]Index, 0, len(names))
	for _, name := range names {
		e := byName[name]
		if err := e.fill(ctx, b, detail); err != nil {
			return nil, err
		}
		out = append(out, *e)
	}
	return out, nil
}

// fill reads e's live manifest (and, for detail or the source count, its chunks' sources).
func (e *Index) fill(ctx context.Context, b blob.Bucket, detail bool) error {
	cur, err := layout.ReadCurrent(ctx, b, e.Name)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		e.Problem = "no published manifest (a build that has not finished, or was stopped)"
		return nil
	case errors.Is(err, layout.ErrDamaged):
		e.Problem = err.Error()
		return nil
	case err != nil:
		return err
	}
	m, err := layout.ReadManifest(ctx, b, layout.ManifestOf(e.Name, cur))
	switch {
	case errors.Is(err, blob.ErrNotFound), errors.Is(err, layout.ErrDamaged):
		e.Problem = fmt.Sprintf("CURRENT names %s: %v", cur.Manifest, err)
		return nil
	case err != nil:
		return err
	}
	e.Model, e.Documents, e.Chunks, e.Shards, e.Period = m.Model.ID, m.Counts.Indexed, m.Counts.Chunks, len(m.Shards), m.Period
	e.ManifestSeq, e.BuiltAt, e.Kind, e.Lifecycle, e.TakenDown = m.Seq, m.CreatedAt, m.Kind, m.Lifecycle, len(m.Takedowns)
	if lo, hi := Span(m); !hi.IsZero() {
		e.From, e.To = &lo, &hi
	}
	docs := map[string]int{}
	for _, s := range m.Shards {
		for _, o := range s.Objects {
			if path.Base(o.Key) != shard.ChunksFile {
				continue
			}
			key := path.Join(layout.IndexPrefix(e.Name), o.Key)
			data, err := blob.ReadAll(ctx, b, key)
			if err != nil {
				return fmt.Errorf("read %s: %w", key, err)
			}
			rows, err := parquet.Read[chunkSource](bytes.NewReader(data), int64(len(data)))
			if err != nil {
				return fmt.Errorf("read %s: %w", key, err)
			}
			seen := map[string]bool{}
			for _, r := range rows {
				if !seen[r.DocID] {
					seen[r.DocID] = true
					for _, ch := range textnorm.Channels(r.Source) { // a merged repost names its channels "A; B"
						docs[ch]++
					}
				}
			}
		}
	}
	e.Sources = len(docs)
	if detail {
		e.SourceDocs, e.ShardList, e.Counts = docs, m.Shards, &m.Counts
		e.ModelSHA256, e.ModelDim = m.Model.SHA256, m.Model.Dim
	}
	return nil
}

// Lifecycle is the report of the lifecycle table of index's live manifest: every supersession
// link and warning (nil when the index has no table: no standing text, no second version).
func Lifecycle(ctx context.Context, b blob.Bucket, index string) (*storeio.LifecycleReport, error) {
	m, err := layout.ReadLive(ctx, b, index)
	if err != nil {
		return nil, err
	}
	return storeio.GetLifecycleReport(ctx, b, index, m)
}

// DigestDay is one stored digest: a name's day folder under digests/.
type DigestDay struct {
	Name string `json:"name"`
	Day  string `json:"day"`
	// Index, Topics and Failed come from its digest.json (empty when it does not parse:
	// Problem says why).
	Index   string `json:"index,omitempty"`
	Topics  int    `json:"topics"`
	Failed  int    `json:"failed"`
	Problem string `json:"problem,omitempty"`
	// Files are the day's files (digest.json, digest.md, digest.html) and Bytes their size.
	Files []string `json:"files"`
	Bytes int64    `json:"bytes"`
}

// DigestName sums up the stored digests of one name.
type DigestName struct {
	Name  string `json:"name"`
	Days  int    `json:"days"`
	First string `json:"first"`
	Last  string `json:"last"`
}

// Digests lists the day folders under digests/ (only those of name when it is set), in
// name then day order; the archive page next to the days is not a day.
func Digests(ctx context.Context, b blob.Bucket, name string) ([]DigestDay, error) {
	root := path.Dir(layout.DigestsPrefix("x")) + "/"
	prefix := root
	if name != "" {
		prefix = layout.DigestsPrefix(name) + "/"
	}
	var days []DigestDay
	err := b.Iter(ctx, prefix, func(o blob.ObjectInfo) error {
		parts := strings.Split(strings.TrimPrefix(o.Key, root), "/")
		if len(parts) != 3 {
			return nil
		}
		if _, err := time.Parse(time.DateOnly, parts[1]); err != nil {
			return nil
		}
		if n := len(days); n == 0 || days[n-1].Name != parts[0] || days[n-1].Day != parts[1] {
			days = append(days, DigestDay{Name: parts[0], Day: parts[1]})
		}
		d := &days[len(days)-1]
		d.Files = append(d.Files, parts[2])
		d.Bytes += o.Size
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", prefix, b, err)
	}
	return days, nil
}

// Fill reads the day's digest.json for its index and topic counts.
func (d *DigestDay) Fill(ctx context.Context, b blob.Bucket) error {
	day, _ := time.Parse(time.DateOnly, d.Day)
	key := layout.DigestJSONKey(d.Name, day)
	data, err := blob.ReadAll(ctx, b, key)
	if errors.Is(err, blob.ErrNotFound) {
		d.Problem = "no " + layout.DigestJSONFile
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	var dg schemas.Digest
	if err := json.Unmarshal(data, &dg); err != nil {
		d.Problem = fmt.Sprintf("%s does not parse: %v", layout.DigestJSONFile, err)
		return nil
	}
	d.Index, d.Topics = dg.Index, len(dg.Topics)
	for _, t := range dg.Topics {
		if t.Error != "" {
			d.Failed++
		}
	}
	return nil
}

// DigestNames sums days up per name (days in Digests' order).
func DigestNames(days []DigestDay) []DigestName {
	var out []DigestName
	for _, d := range days {
		if n := len(out); n > 0 && out[n-1].Name == d.Name {
			out[n-1].Days++
			out[n-1].Last = d.Day
			continue
		}
		out = append(out, DigestName{Name: d.Name, Days: 1, First: d.Day, Last: d.Day})
	}
	return out
}

// HasDay reports whether days holds day (YYYY-MM-DD).
func HasDay(days []DigestDay, day string) bool {
	for _, d := range days {
		if d.Day == day {
			return true
		}
	}
	return false
}

// DayList names the days of a digest, the last few when there are many.
func DayList(days []DigestDay) string {
	const most = 10
	var s []string
	for _, d := range days {
		s = append(s, d.Day)
	}
	if len(s) > most {
		return fmt.Sprintf("%d days, the last %s", len(s), strings.Join(s[len(s)-most:], ", "))
	}
	return strings.Join(s, ", ")
}

// ErrNoDigest is the error of Pick when no digest of the name is stored.
var ErrNoDigest = errors.New("no digest of that name")

// ErrNoDay is the error of Pick when the digest has no such day.
var ErrNoDay = errors.New("the digest has no such day")

// Pick is the day of a digest to fetch: want (YYYY-MM-DD) when given, else the latest stored.
// A name with no stored day is ErrNoDigest and a missing day ErrNoDay, each worded with what
// there is.
func Pick(ctx context.Context, b blob.Bucket, name, want string) (day string, days []DigestDay, err error) {
	days, err = Digests(ctx, b, name)
	if err != nil {
		return "", nil, err
	}
	if len(days) == 0 {
		return "", nil, NoDigest(ctx, b, name)
	}
	if want == "" {
		return days[len(days)-1].Day, days, nil
	}
	if !HasDay(days, want) {
		return "", days, fmt.Errorf("digest %s has no day %s; its days: %s: %w", name, want, DayList(days), ErrNoDay)
	}
	return want, days, nil
}

// NoDigest is the error for a name with no stored day (wrapping ErrNoDigest): it names the
// digests there are, or, with none, says how to write one.
func NoDigest(ctx context.Context, b blob.Bucket, name string) error {
	all, err := Digests(ctx, b, "")
	if err != nil {
		return noDigestError(fmt.Sprintf("no digest named %s in %s (listing the names: %v)", name, b, err))
	}
	names := DigestNames(all)
	if len(names) == 0 {
		return noDigestError(fmt.Sprintf("no digest named %s in %s; there are no digests yet (write one with `asof digest --topics FILE --name %s` or `asof schedule`)", name, b, name))
	}
	var s []string
	for _, n := range names {
		s = append(s, n.Name)
	}
	return noDigestError(fmt.Sprintf("no digest named %s in %s; digests: %s", name, b, strings.Join(s, ", ")))
}

// noDigestError is NoDigest's message; it is ErrNoDigest.
type noDigestError string

func (e noDigestError) Error() string { return string(e) }
func (e noDigestError) Unwrap() error { return ErrNoDigest }

// DigestFile reads one file of a stored digest day (layout.DigestJSONFile, digest.md or
// digest.html); a missing file wraps blob.ErrNotFound.
func DigestFile(ctx context.Context, b blob.Bucket, name, day, file string) ([]byte, error) {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return nil, fmt.Errorf("digest day %q: %w", day, err)
	}
	key := path.Join(layout.DigestPrefix(name, t), file)
	data, err := blob.ReadAll(ctx, b, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, fmt.Errorf("digest %s of %s lacks %s in %s: %w", name, day, file, b, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return data, nil
}

// NoIndexError is the error of RequireIndex for an index with no published manifest.
type NoIndexError struct{ Index string }

func (e *NoIndexError) Error() string {
	return fmt.Sprintf("index %q does not exist (build it with `asof index --index %s --corpus …`)", e.Index, e.Index)
}

// RequireIndex reports an index with no published manifest in the store (a *NoIndexError),
// the way the activities word it.
func RequireIndex(ctx context.Context, b blob.Bucket, index string) error {
	ok, err := b.Exists(ctx, layout.CurrentKey(index))
	if err != nil {
		return err
	}
	if !ok {
		return &NoIndexError{Index: index}
	}
	return nil
}
