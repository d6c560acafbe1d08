package activities

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// PlanDigestInput is a digest request before it runs. Now is the workflow's current time: the
// anchor when AsOf is zero (activities never read the clock to decide what "now" is).
type PlanDigestInput struct {
	Name     string         `json:"name"`
	Index    string         `json:"index"`
	Topics   []digest.Topic `json:"topics"`
	AsOf     time.Time      `json:"as_of"`
	Now      time.Time      `json:"now"`
	TimeZone string         `json:"time_zone"`
	// AsOfMode "latest" (digest.AsOfLatest), with a zero AsOf, anchors on the index's last day
	// instead of Now's; "" or "today": Now's day.
	AsOfMode string `json:"as_of_mode,omitempty"`
}

// PlanDigestResult is the checked request: the anchor day (midnight UTC of the day in the time
// zone), the time zone's name and the digest's name.
type PlanDigestResult struct {
	AsOf     time.Time `json:"as_of"`
	TimeZone string    `json:"time_zone"`
	Name     string    `json:"name"`
}

// PlanDigest checks a digest request (name, index, topics, time zone) and fixes its anchor day.
func (a *Activities) PlanDigest(ctx context.Context, in PlanDigestInput) (PlanDigestResult, error) {
	name, tz, loc, err := digest.Check(in.Name, in.Topics, in.TimeZone)
	if err != nil {
		return PlanDigestResult{}, invalid(err)
	}
	m, err := a.currentManifest(ctx, in.Index)
	if err != nil {
		return PlanDigestResult{}, err
	}
	day, err := digest.Anchor(in.AsOfMode, in.AsOf, in.Now, loc, m)
	if err != nil {
		return PlanDigestResult{}, invalid(err)
	}
	return PlanDigestResult{AsOf: day, TimeZone: tz, Name: name}, nil
}

// WriteDigestInput is a finished set of topic answers.
type WriteDigestInput struct {
	Name     string            `json:"name"`
	Index    string            `json:"index"`
	AsOf     time.Time         `json:"as_of"`
	TimeZone string            `json:"time_zone"`
	RunID    string            `json:"run_id"`
	Topics   []digest.TopicRef `json:"topics"`
}

// WriteDigestKeys are the store keys of one digest.
type WriteDigestKeys struct {
	JSON     string `json:"json"`
	Markdown string `json:"markdown"`
	HTML     string `json:"html"`
	// Archive is the name's archive page, digests/<name>/index.html, rewritten with each digest.
	Archive string `json:"archive,omitempty"`
}

// WriteDigest reads each topic's answer (runs/<ask-run-id>/answer.json), boils it down to what
// a digest shows (the brief, the cited sources, their freshness, how they were judged), and
// writes digest.json, digest.md and digest.html under digests/<name>/<day>/, then rewrites the
// name's archive page, digests/<name>/index.html, from every day's digest.json in the store.
func (a *Activities) WriteDigest(ctx context.Context, in WriteDigestInput) (WriteDigestKeys, error) {
	d := schemas.Digest{Version: schemas.DigestVersion, Name: in.Name, Index: in.Index, AsOf: in.AsOf.UTC(),
		TimeZone: in.TimeZone, RunID: in.RunID}
	var err error
	if d.Topics, err = digest.Topics(in.Topics, a.answer(ctx)); err != nil {
		return WriteDigestKeys{}, err
	}
	if err := digest.Histories(d.Topics, in.Topics, func(runID string) (schemas.Timeline, error) {
		return storeio.GetJSON[schemas.Timeline](ctx, a.Bucket, layout.TimelineKey(runID))
	}); err != nil {
		return WriteDigestKeys{}, err
	}
	keys := WriteDigestKeys{JSON: layout.DigestJSONKey(in.Name, in.AsOf), Markdown: layout.DigestMarkdownKey(in.Name, in.AsOf), HTML: layout.DigestHTMLKey(in.Name, in.AsOf)}
	var page bytes.Buffer // rendered first: a page that fails to render writes nothing
	if err := digest.WriteHTML(&page, d); err != nil {
		return keys, err
	}
	if err := storeio.PutIndentedJSON(ctx, a.Bucket, keys.JSON, d); err != nil {
		return keys, err
	}
	if _, err := a.Bucket.Put(ctx, keys.Markdown, strings.NewReader(digest.Markdown(d))); err != nil {
		return keys, err
	}
	if _, err := a.Bucket.Put(ctx, keys.HTML, &page); err != nil {
		return keys, err
	}
	if keys.Archive, err = a.writeDigestArchive(ctx, in.Name); err != nil {
		return keys, fmt.Errorf("digest archive: %w", err)
	}
	return keys, nil
}

// writeDigestArchive renders digests/<name>/index.html from every day's digest.json
// (storeio.ReadDigests) and stores it. Two digests of one name saved at once may each miss the
// other's day; the next save lists both.
func (a *Activities) writeDigestArchive(ctx context.Context, name string) (string, error) {
	ds, err := storeio.ReadDigests(ctx, a.Bucket, name)
	if err != nil {
		return "", err
	}
	key := layout.DigestArchiveKey(name)
	return key, storeio.PutWritten(ctx, a.Bucket, key, func(w io.Writer) error { return digest.WriteArchive(w, name, ds) })
}
