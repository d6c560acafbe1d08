package client

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"
)

// The workflow ids asof starts, one rule per use case, whoever starts it (the CLI, the HTTP
// API, a schedule, another program). An id that must be found again (a build to follow, an
// evaluation to resume, a schedule to trigger) is derived from what names the work; an id that
// only has to be unique and readable (a question, a digest run) carries the client's time and,
// where two may start in the same millisecond, a random suffix.

// IndexID names the build of an index: one at a time per index, so a second start finds the
// first (StartIndex follows or waits for it).
func IndexID(index string) string { return "asof-index-" + index }

// AskID names one question's run, under which its answer is stored (runs/<id>/): the index,
// the client's time to the millisecond, and a random suffix, so concurrent questions never
// share an id.
func AskID(index string, t time.Time) string {
	return fmt.Sprintf("asof-ask-%s-%s-%s", index, stamp(t), rand.Text()[:8])
}

// DigestID names a digest run started by hand (a schedule's runs are named by ScheduleID and
// the fire time, by Temporal).
func DigestID(name string, t time.Time) string {
	return fmt.Sprintf("asof-digest-%s-%s", name, stamp(t))
}

// ScheduleID names the Temporal schedule of a named digest, and the workflow runs it starts.
func ScheduleID(name string) string { return schedulePrefix + name }

const schedulePrefix = "asof-digest-"

// scheduleName is the digest name of a schedule id, false for a schedule that is not asof's.
func scheduleName(id string) (string, bool) { return strings.CutPrefix(id, schedulePrefix) }

// EvalID names a retrieval evaluation's run by its resume id (EvalResumeID): a rerun of equal
// inputs on the same index version finds the same run.
func EvalID(resumeID string) string { return evalPrefix + resumeID }

// SummariesEvalID names a summaries evaluation's run by its resume id.
func SummariesEvalID(resumeID string) string { return evalPrefix + "summaries-" + resumeID }

const evalPrefix = "asof-eval-"

// IsEvalID reports whether id names an evaluation's run (either kind).
func IsEvalID(id string) bool { return strings.HasPrefix(id, evalPrefix) && len(id) > len(evalPrefix) }

// HealthCheckID names a health check started at t.
func HealthCheckID(t time.Time) string { return "asof-health-" + stamp(t) }

func stamp(t time.Time) string { return t.UTC().Format("20060102T150405.000Z") }

// DigestTopicID names the child Ask that answered topic i (0-based, in the digest's topics
// order) of the digest run digestID: "<digest id>-t01", "-t02", … (the Digest workflow names
// its children so, in workflows/digest.go).
func DigestTopicID(digestID string, i int) string { return fmt.Sprintf("%s-t%02d", digestID, i+1) }

// TakeDownID names a takedown's run (asof docs delete): the index and the client's time.
// Takedowns of one index may run side by side: each publishes by compare-and-swap.
func TakeDownID(index string, t time.Time) string {
	return fmt.Sprintf("asof-takedown-%s-%s", index, stamp(t))
}

// TimelineID names one timeline's run, under which it is stored (runs/<id>/timeline.json):
// the index, the client's time to the millisecond and a random suffix, as AskID.
func TimelineID(index string, t time.Time) string {
	return fmt.Sprintf("asof-timeline-%s-%s-%s", index, stamp(t), rand.Text()[:8])
}
