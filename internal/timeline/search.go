package timeline

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/schemas"
)

// DefaultPool is how many passages about a topic a timeline starts from: the best of a hybrid
// search (dense and BM25 fused, no preference for what is fresh) over the whole past up to the
// anchor. The documents they come from are then read whole (Find).
const DefaultPool = 300

// MaxPool bounds the pool: Find ranks eight times deeper, and a client asking for millions would
// hold every chunk of a large index at once.
const MaxPool = 5000

// depthPerPool is how much deeper than the pool Find ranks, to find the other passages of the
// pool's documents.
const depthPerPool = 8

// Find returns the passages about topic as of asOf (from from, when set): the documents of the
// pool best chunks of a hybrid search, each with every chunk of it the search ranks (to a depth
// of depthPerPool times the pool), in rank order. A document is about the topic when one of its
// passages is; its other passages tell the days it reports as well (a report's date is often
// in another paragraph than the topic's name). qvec may be nil (BM25 only). Everything comes
// through the as-of mask: no passage published after the anchor, none taken down.
func Find(shards []*retrieve.Shard, topic string, qvec []float32, asOf, from time.Time, pool int) ([]Passage, error) {
	if pool <= 0 {
		pool = DefaultPool
	}
	o := retrieve.DefaultOptions()
	o.Mode, o.WindowDays, o.From, o.MaxPerSource = retrieve.Hybrid, 0, from, 0
	o.K = pool * depthPerPool
	o.TopNEach = max(o.TopNEach, o.K)
	if qvec == nil {
		o.Mode = retrieve.BM25
	}
	res, err := retrieve.Search(shards, topic, qvec, asOf, o)
	if err != nil {
		return nil, fmt.Errorf("timeline: search %q: %w", topic, err)
	}
	about := map[string]bool{}
	for _, c := range res.Results[:min(pool, len(res.Results))] {
		about[c.Chunk.DocID] = true
	}
	var out []Passage
	for _, c := range res.Results {
		if about[c.Chunk.DocID] {
			out = append(out, passage(c.Chunk))
		}
	}
	return out, nil
}

func passage(c *schemas.Chunk) Passage {
	return Passage{DocID: c.DocID, Title: c.Title, Text: c.Text, Source: c.Source, URL: c.URL, Lang: c.Lang, Published: c.PublishedAt}
}

// Result is t as the schema's Timeline (without its run's header fields).
func (t Timeline) Result(topic string, asOf, from time.Time, dates int) schemas.Timeline {
	out := schemas.Timeline{Version: schemas.TimelineVersion, Topic: topic, AsOf: asOf, From: from, Dates: dates, Method: "extractive",
		Passages: t.Passages, Documents: t.Documents, Days: t.Candidates, Entries: []schemas.TimelineEntry{}}
	for _, e := range t.Entries {
		te := schemas.TimelineEntry{Day: e.Day, Text: e.Text(), Documents: e.Documents, Score: e.Score}
		for _, s := range e.Sentences {
			te.Citations = append(te.Citations, schemas.TimelineCitation{DocID: s.DocID, Title: s.Title, Source: s.Source, URL: s.URL,
				PublishedAt: s.Published, Sentence: s.Text, Mentioned: s.Mentioned})
		}
		out.Entries = append(out.Entries, te)
	}
	if len(out.Entries) == 0 {
		out.Message = fmt.Sprintf("nothing about %q was published by %s", topic, asOf.UTC().Format(time.DateOnly))
		if t.Passages > 0 {
			out.Message = fmt.Sprintf("%d passages about %q, but no day they report is on or before %s", t.Passages, topic, asOf.UTC().Format(time.DateOnly))
		}
	}
	return out
}
