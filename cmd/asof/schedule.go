package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/workflows"
)

// scheduleID is the Temporal schedule of a named digest.
func scheduleID(name string) string { return "asof-digest-" + name }

func newScheduleCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule create|list|trigger|pause|unpause|delete",
		Short: "Run digests on a Temporal Schedule (daily digests)",
		Long: `schedule manages Temporal Schedules that run the Digest workflow: each run answers the
topics as of its own current day (in --time-zone; create --as-of today, the default) or as of
the index's last day (--as-of latest: the day of its newest document, for an archive no longer
fed), and writes digests/<name>/<day>/digest.{md,html,json}.
Runs never overlap (a run still going when the next is due makes that one skip), and a run
missed while the server was down is caught up within --catchup-window.

On the embedded default the schedule lives in the embedded server's SQLite file; it fires while
` + "`asof dev`" + ` (or ` + "`asof server`" + ` with a worker) is running. ` + "`asof schedule trigger`" + ` runs one
digest now and, on the embedded server, waits for it here.`,
		Example: `  asof schedule create --name morning --cron "0 7 * * *" --index news --topics topics.yaml --time-zone Europe/Moscow
  asof schedule list
  asof schedule trigger morning
  asof schedule pause morning
  asof schedule delete morning`,
	}
	cmd.AddCommand(newScheduleCreateCmd(a), newScheduleListCmd(a), newScheduleTriggerCmd(a),
		newSchedulePauseCmd(a, true), newSchedulePauseCmd(a, false), newScheduleDeleteCmd(a))
	return cmd
}

// withStack starts (or connects to) Temporal and the store for one schedule command.
func withStack(ctx context.Context, a *app, fn func(st *infra.Stack) error) error {
	st, err := infra.Start(ctx, a.cfg, infra.StartOptions{})
	if err != nil {
		return portClash(err, false)
	}
	defer st.Close()
	return fn(st)
}

type scheduleCreateFlags struct {
	digestFlags
	cron          string
	catchupWindow time.Duration
	paused        bool
	note          string
}

func newScheduleCreateCmd(a *app) *cobra.Command {
	var f scheduleCreateFlags
	cmd := &cobra.Command{
		Use:   `create --name NAME --cron "0 7 * * *" --index NAME --topics topics.yaml`,
		Short: "Create a schedule that writes a digest on a cron",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			mode := f.asOf
			f.asOf = "" // a schedule's day is chosen at each run: today or latest, never a fixed day
			in, err := f.input()
			if err != nil {
				return err
			}
			switch mode {
			case "today":
			case digest.AsOfLatest:
				in.AsOfMode = digest.AsOfLatest
			default:
				return fmt.Errorf("--as-of %q: a schedule answers as of today (each run's own day in --time-zone) or latest (the index's last day); for one day, run asof digest --as-of DAY", mode)
			}
			if strings.TrimSpace(f.cron) == "" {
				return errors.New("--cron is required, e.g. \"0 7 * * *\" (every day at 07:00 in --time-zone)")
			}
			return withStack(cmd.Context(), a, func(st *infra.Stack) error {
				_, err := st.Client.ScheduleClient().Create(cmd.Context(), client.ScheduleOptions{
					ID:            scheduleID(f.name),
					Spec:          client.ScheduleSpec{CronExpressions: []string{f.cron}, TimeZoneName: f.timeZone},
					Action:        &client.ScheduleWorkflowAction{ID: scheduleID(f.name), Workflow: workflows.Digest, Args: []any{in}, TaskQueue: workflows.TaskQueue},
					Overlap:       enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
					CatchupWindow: f.catchupWindow,
					Paused:        f.paused,
					Note:          f.note,
					Memo:          map[string]any{"cron": f.cron, "index": in.Index, "topics": len(in.Topics), "as_of": mode},
				})
				if err != nil {
					var exists *serviceerror.WorkflowExecutionAlreadyStarted
					if errors.As(err, &exists) || strings.Contains(err.Error(), "already") {
						return fmt.Errorf("schedule %q already exists (delete it first, or pick another --name)", f.name)
					}
					return fmt.Errorf("create schedule %q: %w", f.name, err)
				}
				printf(a.stdout, "schedule %s created: %q in %s, %d topics on index %s as of %s, digests under digests/%s/<day>/\n",
					f.name, f.cron, f.timeZone, len(in.Topics), in.Index, asOfWords(mode), f.name)
				return nil
			})
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.name, "name", "", "schedule and digest name (required)")
	fs.StringVar(&f.cron, "cron", "", `when to run, cron syntax in --time-zone (required), e.g. "0 7 * * *"`)
	fs.StringVar(&f.index, "index", "", "index to ask (required)")
	fs.StringVar(&f.topics, "topics", "", "topics YAML file (required; its content is stored in the schedule)")
	fs.StringVar(&f.timeZone, "time-zone", "UTC", "IANA time zone of the cron and of the digest's day")
	fs.StringVar(&f.asOf, "as-of", "today", "the day each run answers as of: today (the run's own day in --time-zone) or latest (the day of the index's newest document)")
	fs.DurationVar(&f.catchupWindow, "catchup-window", time.Hour, "how late a run missed while the server was down may still start")
	fs.BoolVar(&f.paused, "paused", false, "create it paused")
	fs.StringVar(&f.note, "note", "", "a note shown by list")
	fs.IntVar(&f.concurrency, "concurrency", 2, "topics answered at once")
	f.judge.register(fs)
	for _, n := range []string{"name", "cron", "index", "topics"} {
		_ = cmd.MarkFlagRequired(n)
	}
	a.embeddedFlags(cmd, false)
	return cmd
}

func newScheduleListCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List digest schedules: cron, state, last and next run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStack(cmd.Context(), a, func(st *infra.Stack) error {
				rows, err := listSchedules(cmd.Context(), st.Client)
				if err != nil {
					return err
				}
				if len(rows) == 0 {
					printf(a.stdout, "no digest schedules (create one with `asof schedule create`)\n")
					return nil
				}
				printf(a.stdout, "| name | cron | state | last run | next run | note |\n|---|---|---|---|---|---|\n")
				for _, r := range rows {
					printf(a.stdout, "| %s | %s | %s | %s | %s | %s |\n", r.name, r.cron, r.state, r.last, r.next, r.note)
				}
				return nil
			})
		},
	}
	a.embeddedFlags(cmd, false)
	return cmd
}

type scheduleRow struct{ name, cron, state, last, next, note string }

// listSchedules describes every asof digest schedule, by name. Describe (not the visibility
// listing) gives the current state at once.
func listSchedules(ctx context.Context, c client.Client) ([]scheduleRow, error) {
	it, err := c.ScheduleClient().List(ctx, client.ScheduleListOptions{PageSize: 100})
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	var rows []scheduleRow
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("list schedules: %w", err)
		}
		name, ok := strings.CutPrefix(e.ID, "asof-digest-")
		if !ok {
			continue
		}
		d, err := c.ScheduleClient().GetHandle(ctx, e.ID).Describe(ctx)
		if err != nil {
			continue // deleted meanwhile
		}
		r := scheduleRow{name: name, state: "active", last: "never", next: "–"}
		// The server turns cron expressions into calendar specs; create kept the expression in
		// the memo.
		r.cron = "(calendar)"
		if d.Memo != nil {
			if p, ok := d.Memo.GetFields()["cron"]; ok {
				var cron string
				if converter.GetDefaultDataConverter().FromPayload(p, &cron) == nil {
					r.cron = cron
				}
			}
		}
		if d.Schedule.Spec != nil && d.Schedule.Spec.TimeZoneName != "" {
			r.cron += " (" + d.Schedule.Spec.TimeZoneName + ")"
		}
		if d.Schedule.State != nil {
			if d.Schedule.State.Paused {
				r.state = "paused"
			}
			r.note = d.Schedule.State.Note
		}
		if n := len(d.Info.RecentActions); n > 0 {
			r.last = d.Info.RecentActions[n-1].ActualTime.UTC().Format(time.RFC3339)
		}
		if len(d.Info.NextActionTimes) > 0 {
			r.next = d.Info.NextActionTimes[0].UTC().Format(time.RFC3339)
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	return rows, nil
}

func newScheduleTriggerCmd(a *app) *cobra.Command {
	var (
		wait   bool
		out    string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "trigger NAME",
		Short: "Run a schedule's digest now (as of today) and wait for it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if out != "" && wait {
				var err error
				if out, err = checkOutDir("--out", out); err != nil {
					return err
				}
			}
			return withStack(ctx, a, func(st *infra.Stack) error {
				h := st.Client.ScheduleClient().GetHandle(ctx, scheduleID(args[0]))
				before, err := h.Describe(ctx)
				if err != nil {
					return scheduleNotFound(args[0], err)
				}
				stopWorker := func() {}
				if wait {
					// The digest embeds its topics with the model of the index it reads.
					if _, err := chooseModel(ctx, a, st, scheduleIndex(before), nil); err != nil {
						return err
					}
					if stopWorker, err = serveInProcess(ctx, a, st, nil); err != nil {
						return err
					}
				}
				defer stopWorker()
				began := time.Now()
				if err := h.Trigger(ctx, client.ScheduleTriggerOptions{Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL}); err != nil {
					return fmt.Errorf("trigger %s: %w", args[0], err)
				}
				if !wait {
					printf(a.stdout, "schedule %s triggered\n", args[0])
					return nil
				}
				run, err := awaitNewAction(ctx, h, before.Info.NumActions)
				if err != nil {
					return err
				}
				printf(a.stderr, "schedule %s: running digest workflow %s\n", args[0], run.WorkflowID)
				var res workflows.DigestResult
				if err := st.Client.GetWorkflow(ctx, run.WorkflowID, run.FirstExecutionRunID).Get(ctx, &res); err != nil {
					return fmt.Errorf("digest %s: %w", args[0], explainFailure(err, run.WorkflowID, a.uiHint()))
				}
				return showDigest(ctx, a, st.Bucket, res, out, asJSON, time.Since(began))
			})
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", true, "wait for the digest and print it (on the embedded server this process runs it)")
	cmd.Flags().StringVar(&out, "out", "", "with --wait: also write the digest files to this folder")
	cmd.Flags().BoolVar(&asJSON, "json", false, "with --wait: print the digest as JSON")
	a.embeddedFlags(cmd, false)
	a.embedFlags(cmd)
	return cmd
}

// scheduleIndex is the index a digest schedule reads, from its action's input; "" when it
// cannot be read (the worker then takes the configured or default model).
func scheduleIndex(d *client.ScheduleDescription) string {
	act, ok := d.Schedule.Action.(*client.ScheduleWorkflowAction)
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

// awaitNewAction waits (up to a minute) for the schedule to record an action after the first
// `after`, and returns the workflow it started. A Describe that runs out of time or finds the
// server unavailable is polled again within that minute: describing a schedule queries its
// scheduler workflow, which a loaded machine can keep past the client's 10-second call limit.
func awaitNewAction(ctx context.Context, h client.ScheduleHandle, after int) (*client.ScheduleWorkflowExecution, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		d, err := h.Describe(ctx)
		if err != nil && (ctx.Err() != nil || !slowServer(err) || time.Now().After(deadline)) {
			return nil, fmt.Errorf("wait for the triggered run: describe the schedule: %w", err)
		}
		if err != nil {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		if d.Info.NumActions > after && len(d.Info.RecentActions) > 0 {
			if r := d.Info.RecentActions[len(d.Info.RecentActions)-1].StartWorkflowResult; r != nil {
				return r, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, errors.New("the schedule did not start a run within a minute")
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

func newSchedulePauseCmd(a *app, pause bool) *cobra.Command {
	use, short := "pause NAME", "Pause a schedule (no runs until unpaused)"
	if !pause {
		use, short = "unpause NAME", "Resume a paused schedule"
	}
	var note string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return withStack(ctx, a, func(st *infra.Stack) error {
				h := st.Client.ScheduleClient().GetHandle(ctx, scheduleID(args[0]))
				var err error
				if pause {
					err = h.Pause(ctx, client.SchedulePauseOptions{Note: note})
				} else {
					err = h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: note})
				}
				if err != nil {
					return scheduleNotFound(args[0], err)
				}
				printf(a.stdout, "schedule %s %sd\n", args[0], strings.Fields(use)[0])
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&note, "note", "", "why (shown by list)")
	a.embeddedFlags(cmd, false)
	return cmd
}

func newScheduleDeleteCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a schedule (digests already written stay)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return withStack(ctx, a, func(st *infra.Stack) error {
				if err := st.Client.ScheduleClient().GetHandle(ctx, scheduleID(args[0])).Delete(ctx); err != nil {
					return scheduleNotFound(args[0], err)
				}
				printf(a.stdout, "schedule %s deleted\n", args[0])
				return nil
			})
		},
	}
	a.embeddedFlags(cmd, false)
	return cmd
}

// scheduleNotFound names a missing schedule plainly.
func scheduleNotFound(name string, err error) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("no schedule named %q (see `asof schedule list`)", name)
	}
	return fmt.Errorf("schedule %s: %w", name, err)
}

// asOfWords says which day a schedule's runs answer as of.
func asOfWords(mode string) string {
	if mode == digest.AsOfLatest {
		return "the index's last day"
	}
	return "the day of each run"
}
