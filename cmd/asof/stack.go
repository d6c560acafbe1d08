package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	asof "github.com/asofrag/asof/client"
	"github.com/asofrag/asof/internal/blob"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/infra/stackfile"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/redact"
)

// usesStackKey marks (in cobra's Annotations) a command, or a parent of commands, that
// starts or connects to a stack: on a data dir where `asof dev` or `asof server` runs, it
// uses that stack instead of starting its own.
const usesStackKey = "asof.uses-stack"

// usesStack marks cmd as one that uses the data dir's running stack; it returns cmd.
func usesStack(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[usesStackKey] = "yes"
	return cmd
}

// wantsStack reports whether cmd or one of its parents is marked by usesStack.
func wantsStack(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[usesStackKey] != "" {
			return true
		}
	}
	return false
}

// stackProbeTimeout bounds each connection that tells a live stack from a stale record.
const stackProbeTimeout = time.Second

// attachStack points the parts of a.cfg that would start embedded servers (no --temporal, no
// --store, nor their ASOF_* variables) at the stack `asof dev` or `asof server` runs on this
// data dir, when one runs, and says so on stderr in one line. Explicit settings win; a stale
// record is ignored. With an explicit --temporal that is the running stack's, only its Web UI
// address is taken (for the lines that say where to look).
func (a *app) attachStack(ctx context.Context) error {
	if !a.cfg.Temporal.Embedded() && !a.cfg.Store.Embedded() {
		if r, err := stackfile.Find(ctx, a.cfg.DataDir, stackProbeTimeout); err == nil && r.Temporal == a.cfg.Temporal.Address {
			a.stackUI = r.UI
		}
		return nil
	}
	r, err := stackfile.Find(ctx, a.cfg.DataDir, stackProbeTimeout)
	if err != nil {
		return nil // none, or stale: this command starts its own
	}
	var parts []string
	if a.cfg.Temporal.Embedded() {
		a.cfg.Temporal.Address, a.cfg.Temporal.Namespace = r.Temporal, r.Namespace
		a.stackUI = r.UI
		a.stackWorkerless = len(r.TaskQueues) == 0
		a.stackBy = r.By
		parts = append(parts, "temporal "+redact.URL(r.Temporal))
	}
	if a.cfg.Store.Embedded() {
		id, secret, err := r.Keys()
		if err != nil {
			return fmt.Errorf("%w (it belongs to the %s running on %s, pid %d)", err, r.By, a.cfg.DataDir, r.PID)
		}
		a.cfg.Store = config.Store{
			URL: r.Store, Endpoint: r.S3Endpoint, Region: r.S3Region, PathStyle: r.S3Endpoint != "",
			AccessKeyID: id, SecretAccessKey: secret, GatewayPort: a.cfg.Store.GatewayPort,
		}
		if r.S3Endpoint != "" {
			parts = append(parts, "s3 "+redact.URL(r.S3Endpoint)+" bucket "+r.Bucket)
		} else {
			parts = append(parts, "store "+redact.URL(r.Store))
		}
	}
	if r.UI != "" {
		parts = append(parts, "Web UI "+r.UI)
	}
	printf(a.stderr, "using the running %s on this data dir (pid %d): %s\n", r.By, r.PID, strings.Join(parts, ", "))
	return nil
}

// uiHint says where the Web UI that shows a workflow is, for the failure lines: the running
// stack's when this command uses one, else what webUIHint knows from the configuration.
func (a *app) uiHint() string { return webUIHint(a.cfg, a.stackUI) }

// runsWorker reports whether this command must run a worker itself: its Temporal server is
// embedded in this process (nobody else serves it), or the data dir's running stack is an
// `asof server`, which runs none.
func (a *app) runsWorker(st *infra.Stack) bool {
	return st.Embedded.TemporalLog != "" || a.stackWorkerless
}

// refuseSecondStack returns an error when dev or server (who) would start embedded servers on
// a data dir where another live stack runs: their ports and SQLite file would clash.
func (a *app) refuseSecondStack(ctx context.Context, who string) error {
	if !a.cfg.Temporal.Embedded() && !a.cfg.Store.Embedded() {
		return nil
	}
	r, err := stackfile.Find(ctx, a.cfg.DataDir, stackProbeTimeout)
	if err != nil {
		return nil
	}
	where := "temporal " + redact.URL(r.Temporal)
	if r.UI != "" {
		where += ", Web UI " + r.UI
	}
	return fmt.Errorf("%s already runs on data dir %s (pid %d; %s): every asof command with this --data-dir uses it; stop it first (Ctrl-C where it runs) to start %s here, or give %s another --data-dir",
		r.By, a.cfg.DataDir, r.PID, where, who, who)
}

// recordStack writes where st listens into its data dir (stackfile), for the other commands
// on it; queues are the queues this process's worker polls (none for asof server). The
// returned func removes the record again; it is never nil.
func recordStack(st *infra.Stack, who string, queues []string) (remove func(), err error) {
	if st.Embedded.TemporalLog == "" && st.Embedded.S3Endpoint == "" {
		return func() {}, nil // nothing of this data dir's runs here
	}
	c := st.Config
	r := stackfile.Record{
		By: who, PID: os.Getpid(), Started: time.Now().UTC().Truncate(time.Second),
		Temporal: c.Temporal.Address, Namespace: c.Temporal.Namespace, UI: st.Embedded.UIURL,
		Store: c.Store.URL, S3Endpoint: c.Store.Endpoint, S3Region: c.Store.Region,
		TaskQueues: queues,
	}
	if st.Embedded.S3Endpoint != "" {
		r.Bucket, r.S3KeysFile = config.DefaultBucket, c.GatewayCredsPath()
	}
	if err := stackfile.Write(c.DataDir, r); err != nil {
		return func() {}, err
	}
	return func() { _ = stackfile.Remove(c.DataDir, r.PID) }, nil
}

// portClash turns a port another process holds into the fix a person can apply: for dev and
// server (withFlags) other ports by flag; for the other commands, which start their own
// servers only when no asof dev runs on their data dir, that other data dir or other ports.
func portClash(err error, withFlags bool) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	if withFlags {
		return fmt.Errorf("%w; stop the process that holds it (an asof dev or server on another data dir?), or choose free ports with --temporal-port, --s3-port, --ui-port", err)
	}
	return fmt.Errorf("%w; no asof dev runs on this data dir, so this command starts its own servers: to use an asof dev or server that runs elsewhere pass its --data-dir, else choose free ports with ASOF_TEMPORAL_PORT and ASOF_S3_PORT", err)
}

// client is asof's client of a started stack: its Temporal client and store, failures pointed
// at this stack's Web UI.
func (a *app) client(st *infra.Stack) *asof.Client {
	c := asof.New(st.Client, st.Bucket)
	c.UI = a.uiHint()
	return c
}

// s3Options are the configured S3 settings, for s3:// URLs outside the store (--corpus).
func (a *app) s3Options() blob.S3Options {
	s := a.cfg.Store
	return blob.S3Options{Endpoint: s.Endpoint, Region: s.Region, PathStyle: s.PathStyle, AccessKeyID: s.AccessKeyID, SecretAccessKey: s.SecretAccessKey}
}
