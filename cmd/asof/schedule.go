package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	asof "github.com/asofrag/asof/client"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/digest"
)

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
				err := a.client(st).CreateSchedule(cmd.Context(), asof.ScheduleSpec{Name: f.name, Cron: f.cron, TimeZone: f.timeZone, Digest: in,
					CatchupWindow: f.catchupWindow, Paused: f.paused, Note: f.note})
				if errors.Is(err, asof.ErrScheduleExists) {
					return fmt.Errorf("schedule %q already exists (delete it first, or pick another --name)", f.name)
				}
				if err != nil {
					return err
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
	fs.IntVar(&f.history, "history", 0, "each run also shows each topic's history: its timeline of this many days as of the run's day (0: none)")
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
				rows, err := a.client(st).Schedules(cmd.Context())
				if err != nil {
					return err
				}
				if len(rows) == 0 {
					printf(a.stdout, "no digest schedules (create one with `asof schedule create`)\n")
					return nil
				}
				printf(a.stdout, "| name | cron | state | last run | next run | note |\n|---|---|---|---|---|---|\n")
				for _, r := range rows {
					cron := r.Cron
					if r.TimeZone != "" {
						cron += " (" + r.TimeZone + ")"
					}
					printf(a.stdout, "| %s | %s | %s | %s | %s | %s |\n", r.Name, cron, r.State, timeOr(r.LastRun, "never"), timeOr(r.NextRun, "–"), r.Note)
				}
				return nil
			})
		},
	}
	a.embeddedFlags(cmd, false)
	return cmd
}

// timeOr is t in RFC 3339 (UTC), or none when nil.
func timeOr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return t.UTC().Format(time.RFC3339)
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
				c := a.client(st)
				sched, err := c.GetSchedule(ctx, args[0])
				if err != nil {
					return scheduleNotFound(err)
				}
				stopWorker := func() {}
				if wait {
					// The digest embeds its topics with the model of the index it reads.
					if _, err := chooseModel(ctx, a, st, sched.Index, nil); err != nil {
						return err
					}
					if stopWorker, err = serveInProcess(ctx, a, st, nil); err != nil {
						return err
					}
				}
				defer stopWorker()
				began := time.Now()
				run, err := c.TriggerSchedule(ctx, args[0])
				if err != nil {
					return scheduleNotFound(err)
				}
				if !wait {
					printf(a.stdout, "schedule %s triggered (digest workflow %s)\n", args[0], run.ID())
					return nil
				}
				printf(a.stderr, "schedule %s: running digest workflow %s\n", args[0], run.ID())
				res, err := run.Wait(ctx)
				if err != nil {
					return err
				}
				return showDigest(ctx, a, c, res, out, asJSON, time.Since(began))
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
				if err := a.client(st).PauseSchedule(ctx, args[0], pause, note); err != nil {
					return scheduleNotFound(err)
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
				if err := a.client(st).DeleteSchedule(ctx, args[0]); err != nil {
					return scheduleNotFound(err)
				}
				printf(a.stdout, "schedule %s deleted\n", args[0])
				return nil
			})
		},
	}
	a.embeddedFlags(cmd, false)
	return cmd
}

// scheduleNotFound points a missing schedule at the listing.
func scheduleNotFound(err error) error {
	var nf *asof.NoScheduleError
	if errors.As(err, &nf) {
		return fmt.Errorf("%w (see `asof schedule list`)", err)
	}
	return err
}

// asOfWords says which day a schedule's runs answer as of.
func asOfWords(mode string) string {
	if mode == digest.AsOfLatest {
		return "the index's last day"
	}
	return "the day of each run"
}
