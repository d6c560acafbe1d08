package digest

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

// CheckTopics checks that there are topics and that each has a query.
func CheckTopics(topics []Topic) error {
	if len(topics) == 0 {
		return errors.New("no topics")
	}
	for i, t := range topics {
		if strings.TrimSpace(t.Query) == "" {
			return fmt.Errorf("topic %d (%q) has no query", i+1, t.Name)
		}
	}
	return nil
}

// Zone loads the digest's time zone, tz or "UTC" when empty, and returns its name.
func Zone(tz string) (string, *time.Location, error) {
	if tz == "" {
		tz = "UTC"
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return "", nil, fmt.Errorf("time zone %q: %w", tz, err)
	}
	return tz, loc, nil
}

// AnchorDay is the digest's anchor day (midnight UTC): asOf's day, or, when asOf is zero, the
// day it is at now in loc (now being the workflow's time; both zero is an error).
func AnchorDay(asOf, now time.Time, loc *time.Location) (time.Time, error) {
	if !asOf.IsZero() {
		return asofday.Start(asOf), nil
	}
	if now.IsZero() {
		return time.Time{}, errors.New("neither an as-of day nor the workflow's time")
	}
	return asofday.InZone(now, loc), nil
}

// AsOfLatest is the as-of mode of a digest anchored on its index's last day (a schedule's
// --as-of latest): the day of the newest document the index holds, so that a schedule over an
// archive that is no longer fed still answers as of its end.
const AsOfLatest = "latest"

// LatestDay is the UTC day of the newest document of the index m describes; an error when it
// has no document.
func LatestDay(m schemas.Manifest) (time.Time, error) {
	var last time.Time
	for _, sh := range m.Shards {
		if sh.Docs > 0 && sh.MaxDate.After(last) {
			last = sh.MaxDate
		}
	}
	if last.IsZero() {
		return time.Time{}, fmt.Errorf("index %s holds no document: it has no last day to answer as of", m.Index)
	}
	return asofday.Start(last), nil
}

// TopicRef is one topic's answer: the Ask run that holds it, or why it failed.
type TopicRef struct {
	Name     string `json:"name"`
	Query    string `json:"query"`
	AskRunID string `json:"ask_run_id"`
	Error    string `json:"error,omitempty"`
	// HistoryRunID names the topic's Timeline run when the digest asked for a history;
	// HistoryError says why it failed.
	HistoryRunID string `json:"history_run_id,omitempty"`
	HistoryError string `json:"history_error,omitempty"`
}

// Topics are the digest's topics of refs, each filled from its answer (TopicOf) unless its Ask
// failed; answer reads the answer of an Ask run, and its error, named by topic, stops them.
func Topics(refs []TopicRef, answer func(askRunID string) (schemas.Answer, error)) ([]schemas.DigestTopic, error) {
	var out []schemas.DigestTopic
	for _, ref := range refs {
		t := schemas.DigestTopic{Name: ref.Name, Query: ref.Query, AskRunID: ref.AskRunID, Error: ref.Error}
		if ref.Error == "" {
			ans, err := answer(ref.AskRunID)
			if err != nil {
				return nil, fmt.Errorf("topic %q: %w", ref.Name, err)
			}
			t = TopicOf(t, ans)
		}
		out = append(out, t)
	}
	return out, nil
}

// Histories fills each topic's History from its Timeline run (read reads runs/<id>/timeline.json),
// in refs' order; a topic whose timeline failed keeps the error, and one that had none stays as
// it is. A timeline that cannot be read is an error, named by topic.
func Histories(topics []schemas.DigestTopic, refs []TopicRef, read func(runID string) (schemas.Timeline, error)) error {
	for i, ref := range refs {
		if i >= len(topics) {
			break
		}
		topics[i].HistoryRunID, topics[i].HistoryError = ref.HistoryRunID, ref.HistoryError
		if ref.HistoryRunID == "" || ref.HistoryError != "" {
			continue
		}
		tl, err := read(ref.HistoryRunID)
		if err != nil {
			return fmt.Errorf("topic %q: history: %w", ref.Name, err)
		}
		topics[i].History = tl.Entries
	}
	return nil
}

// TopicOf fills a digest topic from its answer: the brief, the blocks it cites (all blocks
// when it cites none), and the freshness of those.
func TopicOf(t schemas.DigestTopic, ans schemas.Answer) schemas.DigestTopic {
	t.Mode, t.Interpretation, t.Message = ans.Mode, ans.Interpretation, ans.Message
	if ans.Brief != nil {
		t.Brief = *ans.Brief
	} else { // an answer stored before every answer had a brief
		t.Brief = schemas.Brief{Method: ans.SummaryMethod, AsOf: ans.AsOf, NotEnough: len(ans.Blocks) == 0}
	}
	if ans.Judge != nil {
		t.Judge = *ans.Judge
	}
	t.Sources = render.Cited(t.Brief, ans.Blocks)
	if len(render.Cites(t.Brief)) == 0 {
		t.Sources = slices.Clone(ans.Blocks)
		slices.SortFunc(t.Sources, func(x, y schemas.ContextBlock) int { return x.N - y.N })
	}
	t.Freshness = Freshness(t.Sources, ans.AsOf)
	return t
}

// IsDayFile reports whether key, under prefix (a name's digests, ending in /), is one day's
// file named file (<prefix><day>/<file>), not something deeper.
func IsDayFile(prefix, key, file string) bool {
	day, f, ok := strings.Cut(strings.TrimPrefix(key, prefix), "/")
	return ok && f == file && !strings.Contains(day, "/")
}

// Unreadable stands for a day whose digest.json at key does not parse: the day (from the key)
// with one failed topic that says so, so the archive lists it rather than failing.
func Unreadable(name, key string, err error) schemas.Digest {
	day, _ := time.Parse(time.DateOnly, path.Base(path.Dir(key)))
	return schemas.Digest{Name: name, AsOf: day, Topics: []schemas.DigestTopic{{Name: "digest.json", Error: fmt.Sprintf("%s does not parse: %v", key, err)}}}
}
