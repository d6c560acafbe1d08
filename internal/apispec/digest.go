package apispec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/textnorm"
)

// DigestRequest starts a digest: the body of POST /v1/digests, one Ask per topic as of a day,
// written under digests/<name>/<day>/ (what `asof digest` does).
type DigestRequest struct {
	// Name names the digest (default "digest").
	Name string `json:"name,omitempty"`
	// Index is the index to ask (required).
	Index string `json:"index"`
	// Topics are the questions, checked as a topics file is (at most digest.MaxTopics).
	Topics []digest.Topic `json:"topics"`
	// AsOf is the day (YYYY-MM-DD); or Today, the current day in TimeZone.
	AsOf  string `json:"as_of,omitempty"`
	Today bool   `json:"today,omitempty"`
	// TimeZone is an IANA name (default UTC).
	TimeZone string `json:"time_zone,omitempty"`
	// History is how many days of each topic's timeline the digest shows as its history
	// (the Timeline workflow, as asof timeline builds it; 0: none, at most MaxHistory).
	History int `json:"history,omitempty"`
}

// MaxHistory bounds the days of a digest topic's history.
const MaxHistory = 40

// Digest is a checked DigestRequest.
type Digest struct {
	Name, Index string
	Topics      []digest.Topic
	// AsOf is the day; zero exactly when the request asked for today.
	AsOf     time.Time
	TimeZone string
	History  int
}

// Check validates r, naming the fields with label; every error is an *InvalidError.
func (r DigestRequest) Check(label Label) (Digest, error) {
	d, err := r.check(label)
	if err != nil {
		return Digest{}, &InvalidError{Err: err}
	}
	return d, nil
}

func (r DigestRequest) check(label Label) (Digest, error) {
	d := Digest{Name: r.Name, Index: r.Index, TimeZone: r.TimeZone, History: r.History}
	if r.History < 0 || r.History > MaxHistory {
		return d, fmt.Errorf("%s %d: give 0 (none) to %d days", label("history"), r.History, MaxHistory)
	}
	if d.Name == "" {
		d.Name = "digest"
	}
	if d.TimeZone == "" {
		d.TimeZone = "UTC"
	}
	if err := layout.ValidateDigestName(d.Name); err != nil {
		return d, fmt.Errorf("%s: %w", label("name"), err)
	}
	if err := layout.ValidateIndexName(r.Index); err != nil {
		return d, fmt.Errorf("%s: %w", label("index"), err)
	}
	if _, err := time.LoadLocation(d.TimeZone); err != nil {
		return d, fmt.Errorf("%s %q: %w", label("time_zone"), d.TimeZone, err)
	}
	// JSON is YAML: the topics are checked by the parser of topics files, the one rule for both.
	// Their control characters go first (ParseTopics removes them too), since YAML refuses
	// the C1 ones that JSON leaves unescaped.
	topics := make([]digest.Topic, len(r.Topics))
	for i, t := range r.Topics {
		t.Name, t.Query = textnorm.Field(t.Name), textnorm.Field(t.Query)
		topics[i] = t
	}
	doc, err := json.Marshal(struct {
		Topics []digest.Topic `json:"topics"`
	}{topics})
	if err != nil {
		return d, err
	}
	if d.Topics, err = digest.ParseTopics(bytes.NewReader(doc)); err != nil {
		return d, fmt.Errorf("%s: %w", label("topics"), err)
	}
	switch {
	case r.AsOf != "" && r.Today:
		return d, fmt.Errorf("%s and %s: give one", label("as_of"), label("today"))
	case r.AsOf != "":
		if d.AsOf, err = ParseDay(label("as_of"), r.AsOf); err != nil {
			return d, err
		}
	case !r.Today:
		return d, fmt.Errorf("%s is required (YYYY-MM-DD); set %s for the current day in %s", label("as_of"), label("today"), label("time_zone"))
	}
	return d, nil
}
