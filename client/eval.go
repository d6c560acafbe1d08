package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/workflows"
)

// StartEval starts a retrieval evaluation (the Eval workflow) on the live version of its index,
// or finds the run of equal inputs on that version again: in.EvalID is set to EvalResumeID, so a
// rerun resumes from the finished batches (or follows the run still going).
func (c *Client) StartEval(ctx context.Context, in workflows.EvalInput) (*Run[workflows.EvalResult], error) {
	cur, err := c.current(ctx, in.Index)
	if err != nil {
		return nil, err
	}
	in.EvalID = EvalResumeID(in, cur, c.codeVersion())
	run, err := start[workflows.EvalResult](ctx, c, "eval "+in.Index, EvalID(in.EvalID), false, workflows.Eval, in)
	if err != nil {
		return nil, fmt.Errorf("start eval: %w", err)
	}
	return run, nil
}

// StartSummariesEval starts a summaries evaluation (the EvalSummaries workflow), resumed like
// StartEval. The rubric is not part of the resume id, so grading with the LLM after a plain run
// grades the answers already there.
func (c *Client) StartSummariesEval(ctx context.Context, in workflows.EvalSummariesInput) (*Run[workflows.EvalSummariesResult], error) {
	cur, err := c.current(ctx, in.Index)
	if err != nil {
		return nil, err
	}
	rubric := in.Rubric
	in.Rubric = ""
	in.EvalID = EvalResumeID(in, cur, c.codeVersion())
	in.Rubric = rubric
	run, err := start[workflows.EvalSummariesResult](ctx, c, "summaries eval "+in.Index, SummariesEvalID(in.EvalID), false, workflows.EvalSummaries, in)
	if err != nil {
		return nil, fmt.Errorf("start summaries eval: %w", err)
	}
	return run, nil
}

// current is the index's CURRENT (the key of its live manifest): the version an evaluation
// runs on.
func (c *Client) current(ctx context.Context, index string) ([]byte, error) {
	if err := c.checkStore(); err != nil {
		return nil, err
	}
	if err := c.RequireIndex(ctx, index); err != nil {
		return nil, err
	}
	return blob.ReadAll(ctx, c.Store, layout.CurrentKey(index))
}

// EvalResumeID names an evaluation by its inputs, the index version it runs on (the index's
// CURRENT) and the code that scores it: equal inputs on the same version by the same code give
// the same id, so a rerun finds the finished work and resumes, and never resumes batches that
// another build of asof scored.
func EvalResumeID[T any](in T, current []byte, code string) string {
	h := sha256.New()
	json.NewEncoder(h).Encode(struct {
		In      T
		Current string
		Code    string
	}{in, string(current), code})
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func (c *Client) codeVersion() string {
	if c.Code != "" {
		return c.Code
	}
	return ExecutableVersion()
}

// ExecutableVersion identifies the running program (the sha256 of its executable): the code
// version an evaluation's resume id holds unless Client.Code says another.
var ExecutableVersion = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
})

// ErrNoWorkflow is WorkflowStatus's error for an id the server does not know.
var ErrNoWorkflow = errors.New("no such workflow")

// WorkflowStatus describes the latest run of workflowID, with its result once completed.
func (c *Client) WorkflowStatus(ctx context.Context, workflowID string) (apispec.Status, error) {
	st := apispec.Status{WorkflowID: workflowID}
	if err := c.check(); err != nil {
		return st, err
	}
	d, err := c.Temporal.DescribeWorkflowExecution(ctx, workflowID, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return st, fmt.Errorf("%w: %q", ErrNoWorkflow, workflowID)
	}
	if err != nil {
		return st, fmt.Errorf("describe workflow %s: %w", workflowID, err)
	}
	switch d.GetWorkflowExecutionInfo().GetStatus() {
	case enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
		st.Status = apispec.StatusRunning
		return st, nil
	case enums.WORKFLOW_EXECUTION_STATUS_COMPLETED, enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		st.Status = apispec.StatusCompleted
	default:
		st.Status = apispec.StatusFailed
	}
	var res json.RawMessage
	if err := c.Temporal.GetWorkflow(ctx, workflowID, "").Get(ctx, &res); err != nil {
		st.Status, st.Error = apispec.StatusFailed, workflows.ExplainFailure(err, workflowID, c.UI).Error()
	} else {
		st.Result = res
	}
	return st, nil
}

// Download copies the stored object key to the local file dst (its folder made).
func (c *Client) Download(ctx context.Context, key, dst string) error {
	if err := c.checkStore(); err != nil {
		return err
	}
	if err := copyObject(ctx, c.Store, key, dst); err != nil {
		return fmt.Errorf("copy %s to %s: %w", key, dst, err)
	}
	return nil
}

// EvalInput is the Eval workflow's input for a checked request (the body of POST /v1/evals),
// its files being keys in the store.
func EvalInput(e apispec.Eval) workflows.EvalInput {
	in := workflows.EvalInput{Index: e.Index, Systems: e.Systems, Unlabelled: e.Unlabelled, Limit: e.Limit, Seed: e.Seed,
		From: e.From, To: e.To, BatchSize: e.BatchSize, Concurrency: e.Concurrency}
	if e.Unlabelled {
		in.QuestionsKey = e.Queries
	} else {
		in.QuestionsKey, in.QrelsKey = e.Questions, e.Qrels
	}
	return in
}

// StartEvalFromStore starts (or resumes) an evaluation of question files already in the store
// (a checked request): a missing file is an *apispec.InvalidError naming it.
func (c *Client) StartEvalFromStore(ctx context.Context, e apispec.Eval) (*Run[workflows.EvalResult], error) {
	if err := c.checkStore(); err != nil {
		return nil, err
	}
	for _, k := range []string{e.Questions, e.Qrels, e.Queries} {
		if k == "" {
			continue
		}
		ok, err := c.Store.Exists(ctx, k)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &apispec.InvalidError{Err: fmt.Errorf("no object %s in the store", k)}
		}
	}
	return c.StartEval(ctx, EvalInput(e))
}
