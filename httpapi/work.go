package httpapi

// The handlers of the long-running use cases: index builds, evaluations and digest schedules.
// Each checks its request with internal/apispec and makes one call of the client package, as
// the matching asof command does.

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	asof "github.com/asofrag/asof/client"
	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// indexName is the checked {name} of an index path; false when it answered 400.
func indexName(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := r.PathValue("name")
	if err := layout.ValidateIndexName(name); err != nil {
		writeError(w, http.StatusBadRequest, "index name: "+err.Error())
		return "", false
	}
	return name, true
}

// scheduleName is the checked {name} of a schedule path (a digest name); false when it
// answered 400.
func scheduleName(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := r.PathValue("name")
	if err := layout.ValidateDigestName(name); err != nil {
		writeError(w, http.StatusBadRequest, "schedule name: "+err.Error())
		return "", false
	}
	return name, true
}

func (s *server) startIndex(w http.ResponseWriter, r *http.Request) {
	name, ok := indexName(w, r)
	if !ok {
		return
	}
	ix, ok := request(s, w, r, func(q apispec.IndexRequest) (apispec.Index, error) { return q.Check(name, apispec.JSONLabel) })
	if !ok {
		return
	}
	run, err := s.c.StartIndexFromStore(r.Context(), ix)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, apispec.Started{WorkflowID: run.ID()})
}

func (s *server) getIndexBuild(w http.ResponseWriter, r *http.Request) {
	name, ok := indexName(w, r)
	if !ok {
		return
	}
	st, err := s.c.IndexBuildStatus(r.Context(), name)
	if errors.Is(err, asof.ErrNoWorkflow) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("index %s has no build (POST /v1/indexes/%s/build starts one)", name, name))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *server) deleteIndex(w http.ResponseWriter, r *http.Request) {
	name, ok := indexName(w, r)
	if !ok {
		return
	}
	gone, err := s.c.DeleteIndex(r.Context(), name, nil)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, gone)
}

func (s *server) startEval(w http.ResponseWriter, r *http.Request) {
	e, ok := request(s, w, r, func(q apispec.EvalRequest) (apispec.Eval, error) { return q.Check(apispec.JSONLabel) })
	if !ok {
		return
	}
	run, err := s.c.StartEvalFromStore(r.Context(), e)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, apispec.Started{WorkflowID: run.ID()})
}

func (s *server) listSchedules(w http.ResponseWriter, r *http.Request) {
	l, err := s.c.Schedules(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if l == nil {
		l = []asof.Schedule{}
	}
	writeJSON(w, http.StatusOK, l)
}

func (s *server) createSchedule(w http.ResponseWriter, r *http.Request) {
	checked, ok := request(s, w, r, func(q apispec.ScheduleRequest) (apispec.Schedule, error) { return q.Check(apispec.JSONLabel) })
	if !ok {
		return
	}
	ctx := r.Context()
	if err := s.c.CreateSchedule(ctx, asof.ScheduleSpecFrom(checked)); err != nil {
		s.fail(w, r, err)
		return
	}
	sched, err := s.c.GetSchedule(ctx, checked.Digest.Name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, sched)
}

func (s *server) getSchedule(w http.ResponseWriter, r *http.Request) {
	name, ok := scheduleName(w, r)
	if !ok {
		return
	}
	sched, err := s.c.GetSchedule(r.Context(), name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sched)
}

func (s *server) deleteSchedule(w http.ResponseWriter, r *http.Request) {
	name, ok := scheduleName(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	sched, err := s.c.GetSchedule(ctx, name)
	if err == nil {
		err = s.c.DeleteSchedule(ctx, name)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sched)
}

func (s *server) triggerSchedule(w http.ResponseWriter, r *http.Request) {
	name, ok := scheduleName(w, r)
	if !ok {
		return
	}
	run, err := s.c.TriggerSchedule(r.Context(), name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, apispec.Started{WorkflowID: run.ID()})
}

// pauseSchedule answers POST …/pause (pause) and …/unpause; the body, a NoteRequest, may be
// left out.
func (s *server) pauseSchedule(pause bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, ok := scheduleName(w, r)
		if !ok {
			return
		}
		var req apispec.NoteRequest
		if r.ContentLength != 0 {
			if status, err := decode(w, r, &req); err != nil {
				writeError(w, status, err.Error())
				return
			}
		}
		ctx := r.Context()
		if err := s.c.PauseSchedule(ctx, name, pause, req.Note); err != nil {
			s.fail(w, r, err)
			return
		}
		sched, err := s.c.GetSchedule(ctx, name)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, sched)
	}
}

func (s *server) takeDown(w http.ResponseWriter, r *http.Request) {
	name, ok := indexName(w, r)
	if !ok {
		return
	}
	// ?reason= is required; the client checks it with the rest. ?purge=true purges as well.
	q := r.URL.Query()
	purge, err := strconv.ParseBool(cmp.Or(q.Get("purge"), "false"))
	if err != nil {
		s.fail(w, r, &apispec.InvalidError{Err: fmt.Errorf("purge: %q is not true or false", q.Get("purge"))})
		return
	}
	res, err := s.c.TakeDown(r.Context(), workflows.TakeDownInput{Index: name, DocIDs: []string{r.PathValue("doc_id")}, Reason: q.Get("reason"), Purge: purge})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *server) listTakedowns(w http.ResponseWriter, r *http.Request) {
	name, ok := indexName(w, r)
	if !ok {
		return
	}
	l, err := s.c.Takedowns(r.Context(), name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if l == nil {
		l = []schemas.Takedown{}
	}
	writeJSON(w, http.StatusOK, l)
}

func (s *server) indexHistory(w http.ResponseWriter, r *http.Request) {
	name, ok := indexName(w, r)
	if !ok {
		return
	}
	h, err := s.c.IndexHistory(r.Context(), name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h)
}

func (s *server) rollbackIndex(w http.ResponseWriter, r *http.Request) {
	name, ok := indexName(w, r)
	if !ok {
		return
	}
	req, ok := request(s, w, r, func(q apispec.RollbackRequest) (apispec.RollbackRequest, error) { return q, q.Check() })
	if !ok {
		return
	}
	res, err := s.c.RollbackIndex(r.Context(), name, req.Seq)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
