package digest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

func TestCheckTopics(t *testing.T) {
	tests := []struct {
		name   string
		topics []Topic
		want   string
	}{
		{name: "fine", topics: []Topic{{Name: "a", Query: "q"}}},
		{name: "none", want: "no topics"},
		{name: "blank query", topics: []Topic{{Name: "a", Query: "q"}, {Name: "b", Query: "  "}}, want: `topic 2 ("b") has no query`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckTopics(tt.topics)
			if (err == nil) != (tt.want == "") || (err != nil && err.Error() != tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestAnchorDay: the given day wins; otherwise the workflow's time read in the time zone.
func TestAnchorDay(t *testing.T) {
	tz, tokyo, err := Zone("Asia/Tokyo")
	if err != nil || tz != "Asia/Tokyo" {
		t.Fatal(tz, err)
	}
	if tz, loc, err := Zone(""); err != nil || tz != "UTC" || loc != time.UTC {
		t.Errorf("Zone(\"\") = %s %v %v, want UTC", tz, loc, err)
	}
	if _, _, err := Zone("Mars/Olympus"); err == nil || err.Error()[:27] != `time zone "Mars/Olympus": u` {
		t.Errorf("Zone(Mars/Olympus) err = %v", err)
	}
	late := time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC) // already 2 March in Tokyo
	tests := []struct {
		name      string
		asOf, now time.Time
		loc       *time.Location
		want      time.Time
		wantErr   bool
	}{
		{name: "as-of day", asOf: late, now: late.AddDate(0, 0, 5), loc: tokyo, want: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{name: "now in the zone", now: late, loc: tokyo, want: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)},
		{name: "now in UTC", now: late, loc: time.UTC, want: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{name: "neither", loc: time.UTC, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AnchorDay(tt.asOf, tt.now, tt.loc)
			if (err != nil) != tt.wantErr || !got.Equal(tt.want) {
				t.Errorf("AnchorDay = %v, %v; want %v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestTopicOf: the sources are the cited blocks, or every block by number when nothing is
// cited; an answer without a brief gets one that says whether anything was found.
func TestTopicOf(t *testing.T) {
	asOf := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	blocks := []schemas.ContextBlock{{N: 2, DocID: "b", PublishedAt: asOf.AddDate(0, 0, -3)}, {N: 1, DocID: "a", PublishedAt: asOf.AddDate(0, 0, -1)}}
	tests := []struct {
		name        string
		ans         schemas.Answer
		wantSources []string
		wantMethod  string
	}{
		{name: "cites one", ans: schemas.Answer{AsOf: asOf, Blocks: blocks, Brief: &schemas.Brief{Method: "extractive", New: []schemas.Claim{{Date: asOf, Text: "x", Cites: []int{2}}}}},
			wantSources: []string{"b"}, wantMethod: "extractive"},
		{name: "cites none", ans: schemas.Answer{AsOf: asOf, Blocks: blocks, Brief: &schemas.Brief{Method: "extractive"}}, wantSources: []string{"a", "b"}, wantMethod: "extractive"},
		{name: "no brief", ans: schemas.Answer{AsOf: asOf, Blocks: blocks, SummaryMethod: "old"}, wantSources: []string{"a", "b"}, wantMethod: "old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TopicOf(schemas.DigestTopic{Name: "n"}, tt.ans)
			var ids []string
			for _, s := range got.Sources {
				ids = append(ids, s.DocID)
			}
			if len(ids) != len(tt.wantSources) || ids[0] != tt.wantSources[0] || got.Brief.Method != tt.wantMethod || got.Name != "n" {
				t.Errorf("TopicOf = sources %v method %q, want %v %q", ids, got.Brief.Method, tt.wantSources, tt.wantMethod)
			}
			if got.Freshness != Freshness(got.Sources, asOf) {
				t.Errorf("freshness = %+v, want that of the sources", got.Freshness)
			}
		})
	}
	if b := TopicOf(schemas.DigestTopic{}, schemas.Answer{AsOf: asOf}).Brief; !b.NotEnough || !b.AsOf.Equal(asOf) {
		t.Errorf("brief of an empty answer = %+v, want not enough", b)
	}
}

func TestIsDayFileAndUnreadable(t *testing.T) {
	tests := []struct {
		name, key string
		want      bool
	}{
		{name: "a day", key: "digests/d/2026-03-01/digest.json", want: true},
		{name: "another file", key: "digests/d/2026-03-01/digest.md"},
		{name: "deeper", key: "digests/d/x/2026-03-01/digest.json"},
		{name: "the archive", key: "digests/d/index.html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsDayFile("digests/d/", tt.key, "digest.json"); got != tt.want {
				t.Errorf("IsDayFile(%s) = %v", tt.key, got)
			}
		})
	}
	d := Unreadable("d", "digests/d/2026-03-01/digest.json", errors.New("bad"))
	if !d.AsOf.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) || len(d.Topics) != 1 || d.Topics[0].Error != "digests/d/2026-03-01/digest.json does not parse: bad" {
		t.Errorf("Unreadable = %+v", d)
	}
}

func TestLatestDay(t *testing.T) {
	at := func(s string) time.Time { d, _ := time.Parse(time.RFC3339, s); return d }
	tests := []struct {
		name    string
		shards  []schemas.ShardMeta
		want    string
		wantErr bool
	}{
		{name: "newest shard's last document", shards: []schemas.ShardMeta{{MaxDate: at("2025-11-20T23:59:00Z"), Docs: 1}, {MaxDate: at("2025-10-02T00:00:00Z"), Docs: 4}}, want: "2025-11-20"},
		{name: "an empty shard does not count", shards: []schemas.ShardMeta{{MaxDate: at("2025-10-02T10:00:00Z"), Docs: 4}, {MaxDate: at("2026-01-01T00:00:00Z")}}, want: "2025-10-02"},
		{name: "no document", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LatestDay(schemas.Manifest{Index: "news", Shards: tt.shards})
			if (err != nil) != tt.wantErr || (err == nil && got.Format(time.DateOnly) != tt.want) || (err == nil && !got.Equal(got.Truncate(24*time.Hour))) {
				t.Errorf("LatestDay = %v, %v; want %s (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestTopics: a failed topic keeps its error and reads no answer; the others are filled from
// their answers; an answer that cannot be read stops them, naming the topic.
func TestTopics(t *testing.T) {
	refs := []TopicRef{{Name: "Rates", Query: "key rate", AskRunID: "r1"}, {Name: "Chips", Query: "chips", AskRunID: "r2", Error: "ask failed"}}
	tests := []struct {
		name    string
		answer  func(string) (schemas.Answer, error)
		wantErr string
	}{
		{name: "one answered, one failed", answer: func(id string) (schemas.Answer, error) {
			if id != "r1" {
				return schemas.Answer{}, fmt.Errorf("read %s", id)
			}
			return schemas.Answer{Mode: "recency"}, nil
		}},
		{name: "unreadable answer", answer: func(string) (schemas.Answer, error) { return schemas.Answer{}, errors.New("gone") }, wantErr: `topic "Rates": gone`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Topics(refs, tt.answer)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != 2 || got[0].Mode != "recency" || got[0].AskRunID != "r1" || got[1].Error != "ask failed" || got[1].Mode != "" {
				t.Fatalf("Topics = %+v, %v", got, err)
			}
		})
	}
}
