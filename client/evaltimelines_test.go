package client

import (
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/eval"
)

func TestCheckTimelineEval(t *testing.T) {
	ref := map[eval.TimelineKey]map[time.Time]string{{Lang: "es", Topic: "libya"}: {}}
	es := eval.TimelineTopic{Lang: "es", Topic: "libya", Query: "Libia"}
	for _, c := range []struct {
		name string
		in   TimelineEval
		want string
	}{
		{"good", TimelineEval{Index: "tls-{lang}", Topics: []eval.TimelineTopic{es}, Reference: ref}, ""},
		{"no topics", TimelineEval{Index: "tls", Reference: ref}, "none to evaluate"},
		{"no reference", TimelineEval{Index: "tls", Topics: []eval.TimelineTopic{{Lang: "fr", Topic: "libya", Query: "Libye"}}, Reference: ref}, "fr-libya has no reference"},
		{"bad index", TimelineEval{Index: "../{lang}", Topics: []eval.TimelineTopic{es}, Reference: ref}, "index:"},
		{"negative dates", TimelineEval{Index: "tls", Topics: []eval.TimelineTopic{es}, Reference: ref, Dates: -1}, "dates -1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckTimelineEval(c.in)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	if got := (TimelineEval{Index: "tls-{lang}"}).IndexFor("it"); got != "tls-it" {
		t.Fatalf("IndexFor = %q", got)
	}
}
