package client

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	temporal "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/workflows"
)

// ScheduleSpec is a digest schedule: the Digest workflow run on a cron, each run as of its own
// day (Digest.AsOfMode "" or "today") or of the index's last day (digest.AsOfLatest).
type ScheduleSpec struct {
	// Name names the schedule and its digest (digests/<name>/<day>/).
	Name string `json:"name"`
	// Cron is when to run, in TimeZone (an IANA name; empty: UTC).
	Cron     string `json:"cron"`
	TimeZone string `json:"time_zone,omitempty"`
	// Digest is each run's input; its AsOf must be zero (a schedule's day is chosen at each run).
	Digest workflows.DigestInput `json:"digest"`
	// CatchupWindow is how late a run missed while the server was down may still start
	// (default 1 h).
	CatchupWindow time.Duration `json:"catchup_window,omitempty"`
	Paused        bool          `json:"paused,omitempty"`
	Note          string        `json:"note,omitempty"`
}

// Schedule is one digest schedule as it stands (apispec.ScheduleInfo, the body of GET
// /v1/schedules/{name}).
type Schedule = apispec.ScheduleInfo

// The states of a Schedule.
const (
	ScheduleActive = apispec.ScheduleActive
	SchedulePaused = apispec.SchedulePaused
)

// NoScheduleError is the error of a call on a schedule the server does not hold.
type NoScheduleError struct{ Name string }

func (e *NoScheduleError) Error() string { return fmt.Sprintf("no schedule named %q", e.Name) }

// ErrScheduleExists is CreateSchedule's error for a name taken.
var ErrScheduleExists = errors.New("schedule already exists")

// CreateSchedule creates a digest schedule. Runs never overlap (a run still going when the next
// is due makes that one skip), and a run missed while the server was down is caught up within
// the catch-up window.
func (c *Client) CreateSchedule(ctx context.Context, s ScheduleSpec) error {
	if err := c.check(); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(s.Cron) == "":
		return errors.New("a schedule needs a cron, e.g. \"0 7 * * *\" (every day at 07:00 in its time zone)")
	case !s.Digest.AsOf.IsZero():
		return errors.New("a schedule answers as of each run's own day or the index's last day, never one fixed day")
	case s.Digest.AsOfMode != "" && s.Digest.AsOfMode != "today" && s.Digest.AsOfMode != digest.AsOfLatest:
		return fmt.Errorf("as-of mode %q: use today or latest", s.Digest.AsOfMode)
	}
	s.Digest.Name = s.Name
	if s.TimeZone == "" {
		s.TimeZone = "UTC"
	}
	if s.Digest.TimeZone == "" {
		s.Digest.TimeZone = s.TimeZone
	}
	if s.CatchupWindow <= 0 {
		s.CatchupWindow = time.Hour
	}
	mode := s.Digest.AsOfMode
	if mode == "" {
		mode = "today"
	}
	id := ScheduleID(s.Name)
	_, err := c.Temporal.ScheduleClient().Create(ctx, temporal.ScheduleOptions{
		ID:            id,
		Spec:          temporal.ScheduleSpec{CronExpressions: []string{s.Cron}, TimeZoneName: s.TimeZone},
		Action:        &temporal.ScheduleWorkflowAction{ID: id, Workflow: workflows.Digest, Args: []any{s.Digest}, TaskQueue: workflows.TaskQueue},
		Overlap:       enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		CatchupWindow: s.CatchupWindow,
		Paused:        s.Paused,
		Note:          s.Note,
		Memo:          map[string]any{"cron": s.Cron, "index": s.Digest.Index, "topics": len(s.Digest.Topics), "as_of": mode},
	})
	if err != nil {
		var exists *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &exists) || strings.Contains(err.Error(), "already") {
			return fmt.Errorf("%w: %q", ErrScheduleExists, s.Name)
		}
		return fmt.Errorf("create schedule %q: %w", s.Name, err)
	}
	return nil
}

// Schedules describes every asof digest schedule, by name. Describe (not the visibility
// listing) gives the current state at once.
func (c *Client) Schedules(ctx context.Context) ([]Schedule, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	it, err := c.Temporal.ScheduleClient().List(ctx, temporal.ScheduleListOptions{PageSize: 100})
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	var out []Schedule
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("list schedules: %w", err)
		}
		name, ok := scheduleName(e.ID)
		if !ok {
			continue
		}
		d, err := c.Temporal.ScheduleClient().GetHandle(ctx, e.ID).Describe(ctx)
		if err != nil {
			continue // deleted meanwhile
		}
		out = append(out, describeSchedule(name, d))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// GetSchedule describes one digest schedule.
func (c *Client) GetSchedule(ctx context.Context, name string) (Schedule, error) {
	if err := c.check(); err != nil {
		return Schedule{}, err
	}
	d, err := c.Temporal.ScheduleClient().GetHandle(ctx, ScheduleID(name)).Describe(ctx)
	if err != nil {
		return Schedule{}, scheduleErr(name, err)
	}
	return describeSchedule(name, d), nil
}

func describeSchedule(name string, d *temporal.ScheduleDescription) Schedule {
	s := Schedule{Name: name, State: ScheduleActive, Cron: "(calendar)", Index: scheduleIndex(d), Runs: d.Info.NumActions}
	// The server turns cron expressions into calendar specs; create kept the expression in the memo.
	if d.Memo != nil {
		if p, ok := d.Memo.GetFields()["cron"]; ok {
			var cron string
			if converter.GetDefaultDataConverter().FromPayload(p, &cron) == nil {
				s.Cron = cron
			}
		}
	}
	if d.Schedule.Spec != nil {
		s.TimeZone = d.Schedule.Spec.TimeZoneName
	}
	if d.Schedule.State != nil {
		if d.Schedule.State.Paused {
			s.State = SchedulePaused
		}
		s.Note = d.Schedule.State.Note
	}
	if n := len(d.Info.RecentActions); n > 0 {
		t := d.Info.RecentActions[n-1].ActualTime.UTC()
		s.LastRun = &t
	}
	if len(d.Info.NextActionTimes) > 0 {
		t := d.Info.NextActionTimes[0].UTC()
		s.NextRun = &t
	}
	return s
}

// scheduleIndex is the index a digest schedule reads, from its action's input; "" when it
// cannot be read.
func scheduleIndex(d *temporal.ScheduleDescription) string {
	act, ok := d.Schedule.Action.(*temporal.ScheduleWorkflowAction)
	if !ok || len(act.Args) != 1 {
		return ""
	}
	p, ok := act.Args[0].(*commonpb.Payload)
	if !ok {
		return ""
	}
	var in workflows.DigestInput
	if converter.GetDefaultDataConverter().FromPayload(p, &in) != nil {
		return ""
	}
	return in.Index
}

// TriggerSchedule runs a schedule's digest now (as of its own day, even while another run
// goes) and returns the run it started once the schedule records it (within a minute).
func (c *Client) TriggerSchedule(ctx context.Context, name string) (*Run[workflows.DigestResult], error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	h := c.Temporal.ScheduleClient().GetHandle(ctx, ScheduleID(name))
	before, err := h.Describe(ctx)
	if err != nil {
		return nil, scheduleErr(name, err)
	}
	if err := h.Trigger(ctx, temporal.ScheduleTriggerOptions{Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL}); err != nil {
		return nil, fmt.Errorf("trigger %s: %w", name, err)
	}
	started, err := AwaitNewAction(ctx, h, before.Info.NumActions)
	if err != nil {
		return nil, err
	}
	return &Run[workflows.DigestResult]{c: c, run: c.Temporal.GetWorkflow(ctx, started.WorkflowID, started.FirstExecutionRunID), what: "digest " + name}, nil
}

// AwaitNewAction waits (up to a minute) for the schedule to record an action after the first
// `after`, and returns the workflow it started. A Describe that runs out of time or finds the
// server unavailable is polled again within that minute: describing a schedule queries its
// scheduler workflow, which a loaded machine can keep past the client's 10-second call limit.
func AwaitNewAction(ctx context.Context, h temporal.ScheduleHandle, after int) (*temporal.ScheduleWorkflowExecution, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		d, err := h.Describe(ctx)
		if err != nil && (ctx.Err() != nil || !slowServer(err) || time.Now().After(deadline)) {
			return nil, fmt.Errorf("wait for the triggered run: describe the schedule: %w", err)
		}
		if err == nil {
			if d.Info.NumActions > after && len(d.Info.RecentActions) > 0 {
				if r := d.Info.RecentActions[len(d.Info.RecentActions)-1].StartWorkflowResult; r != nil {
					return r, nil
				}
			}
			if time.Now().After(deadline) {
				return nil, errors.New("the schedule did not start a run within a minute")
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// slowServer reports whether err is a call that ran out of time or found the server briefly
// unavailable, which the next poll may not.
func slowServer(err error) bool {
	var late *serviceerror.DeadlineExceeded
	var down *serviceerror.Unavailable
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &late) || errors.As(err, &down)
}

// PauseSchedule pauses (pause true) or resumes a schedule; note says why (shown by Schedules).
func (c *Client) PauseSchedule(ctx context.Context, name string, pause bool, note string) error {
	if err := c.check(); err != nil {
		return err
	}
	h := c.Temporal.ScheduleClient().GetHandle(ctx, ScheduleID(name))
	var err error
	if pause {
		err = h.Pause(ctx, temporal.SchedulePauseOptions{Note: note})
	} else {
		err = h.Unpause(ctx, temporal.ScheduleUnpauseOptions{Note: note})
	}
	return scheduleErr(name, err)
}

// DeleteSchedule deletes a schedule; the digests it wrote stay.
func (c *Client) DeleteSchedule(ctx context.Context, name string) error {
	if err := c.check(); err != nil {
		return err
	}
	return scheduleErr(name, c.Temporal.ScheduleClient().GetHandle(ctx, ScheduleID(name)).Delete(ctx))
}

// scheduleErr names a missing schedule plainly (a *NoScheduleError).
func scheduleErr(name string, err error) error {
	if err == nil {
		return nil
	}
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return &NoScheduleError{Name: name}
	}
	return fmt.Errorf("schedule %s: %w", name, err)
}

// ScheduleSpecFrom is the schedule of a checked request (the body of POST /v1/schedules).
func ScheduleSpecFrom(s apispec.Schedule) ScheduleSpec {
	d := s.Digest
	return ScheduleSpec{Name: d.Name, Cron: s.Cron, TimeZone: d.TimeZone, CatchupWindow: s.CatchupWindow, Paused: s.Paused, Note: s.Note,
		Digest: workflows.DigestInput{Name: d.Name, Index: d.Index, Topics: d.Topics, TimeZone: d.TimeZone, AsOfMode: s.AsOfMode, History: d.History}}
}
