package workflows

import (
	"errors"
	"strings"

	"go.temporal.io/sdk/temporal"
)

// RunFailure is a failed workflow run as a person reads it: Error is the root cause, said
// once; Where names the workflow to look up. The SDK's chain stays behind Unwrap, for
// errors.Is/As and for logs.
type RunFailure struct {
	Cause string
	Where string
	Err   error
}

func (e *RunFailure) Error() string { return e.Cause }

// Unwrap is the SDK's error.
func (e *RunFailure) Unwrap() error { return e.Err }

// wrapperMarks start the text the SDK's wrapper errors put in Error(); a workflow's
// fmt.Errorf("read query: %w", err) copies them, and the cause they carry, into its message.
// The child's mark comes before the one it contains.
var wrapperMarks = []string{"child workflow execution error (type: ", "workflow execution error (type: ", "activity error (type: "}

// ExplainFailure turns the error a workflow run returned (Get on a client.WorkflowRun) into
// two short lines: the root cause once, with the context the workflow added ("read query:
// unknown mode …"), and where to look: the workflow that failed (a child's own id when a
// child failed, and the activity) in the Web UI at ui. workflowID is the run's id, which
// WorkflowExecutionError does not expose. An error that is no workflow failure (a lost
// connection, a cancelled context) comes back as it is.
func ExplainFailure(err error, workflowID, ui string) error {
	if err == nil {
		return nil
	}
	var wee *temporal.WorkflowExecutionError
	if !errors.As(err, &wee) {
		return err
	}
	var parts []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !strings.Contains(strings.Join(parts, ": "), s) {
			parts = append(parts, s)
		}
	}
	id, activity := workflowID, ""
	for e := error(wee); e != nil; e = errors.Unwrap(e) {
		switch x := e.(type) {
		case *temporal.WorkflowExecutionError:
		case *temporal.ChildWorkflowExecutionError:
			id, activity = x.WorkflowID(), ""
		case *temporal.ActivityError:
			activity = x.ActivityType().GetName()
		case *temporal.ApplicationError:
			add(ownText(x.Message()))
		case *temporal.TimeoutError:
			msg := ownText(x.Message())
			if msg == "" {
				msg = "timed out"
			}
			add(msg + " (" + timeoutName(x) + ")")
		case *temporal.CanceledError:
			add("canceled")
		case *temporal.TerminatedError:
			add("terminated")
		case *temporal.PanicError:
			add("panic: " + x.Error())
		default:
			add(ownText(e.Error()))
		}
	}
	if len(parts) == 0 {
		parts = []string{"failed"}
	}
	where := "see workflow " + id
	if activity != "" {
		where += " (activity " + activity + ")"
	}
	return &RunFailure{Cause: strings.Join(parts, ": "), Where: strings.TrimSpace(where + " " + ui), Err: err}
}

// ownText is a message without the wrapper text and causes a workflow's fmt.Errorf copied in.
func ownText(msg string) string {
	for _, m := range wrapperMarks {
		if i := strings.Index(msg, m); i >= 0 {
			msg = msg[:i]
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(msg), ":")
}

func timeoutName(e *temporal.TimeoutError) string {
	name := e.TimeoutType().String()
	return strings.ToLower(strings.TrimPrefix(name, "TIMEOUT_TYPE_"))
}

// webUIHint says where the Web UI that shows a workflow is: the one this process serves,
