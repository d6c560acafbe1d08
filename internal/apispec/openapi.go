package apispec

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/jsonschema"
	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
)

// Version is the major version of the HTTP API, the first segment of its paths (/v1/...).
const Version = "v1"

// ErrorBody is every error's body: {"error": "..."}, with a 4xx or 5xx status.
type ErrorBody struct {
	Error string `json:"error"`
}

// Started is the answer to a request that starts a workflow and does not wait for it.
type Started struct {
	// WorkflowID is the workflow's id: its status is GET /v1/evals/{workflow_id} for an eval
	// (its stored results GET /v1/evals/{eval id}/report), its output the digest's day for a
	// digest.
	WorkflowID string `json:"workflow_id"`
}

// Workflow states of a Status.
const (
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// Status is a workflow's state, as GET /v1/evals/{workflow_id} reports it.
type Status struct {
	WorkflowID string `json:"workflow_id"`
	// Status is running, completed or failed (a cancelled, terminated or timed-out run is
	// failed, Error says how).
	Status string `json:"status"`
	// Result is the workflow's result when completed (for an eval: eval-result.json).
	Result json.RawMessage `json:"result,omitempty"`
	// Progress is a running index build's progress (its progress query's answer).
	Progress json.RawMessage `json:"progress,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// Param is a path or query parameter of an operation.
type Param struct {
	Name, In, Description string
	Enum                  []string
}

// Operation is one endpoint of the API: the OpenAPI document is made from the list of them,
// Operations, and the server registers the same paths.
type Operation struct {
	Method, Path, ID, Summary string
	// Request is the JSON body's type (nil: none); Response the 2xx body's and Status its code.
	Request, Response reflect.Type
	// OneOf, instead of Response, are the types the 2xx body may be, one of them.
	OneOf  []reflect.Type
	Status int
	Params []Param
	// Alternatives are other media types of the response (text/markdown, text/html).
	Alternatives []string
	// OptionalBody: the request body may be left out.
	OptionalBody bool
}

var (
	nameParam   = Param{Name: "name", In: "path"}
	formatParam = Param{Name: "format", In: "query", Description: "json (default), md or html", Enum: []string{"json", "md", "html"}}
	listParams  = []Param{{Name: "index", In: "query", Description: "only those of this index"},
		{Name: "limit", In: "query", Description: "how many, newest first: 1 to 1000 (default 20)"}}
)

// Operations are the endpoints of /v1, in the order the document lists them.
var Operations = []Operation{
	{Method: "POST", Path: "/v1/ask", ID: "ask", Summary: "Answer a question as of a day (runs the Ask workflow and waits for it)",
		Request: reflect.TypeFor[AskRequest](), Response: reflect.TypeFor[schemas.Answer](), Status: 200},
	{Method: "POST", Path: "/v1/timeline", ID: "timeline", Summary: "A topic's dated events as of a day: the days many sources report, with their sentences and citations (runs the Timeline workflow and waits for it)",
		Request: reflect.TypeFor[TimelineRequest](), Response: reflect.TypeFor[schemas.Timeline](), Status: 200},
	{Method: "GET", Path: "/v1/indexes", ID: "listIndexes", Summary: "The indexes in the store, each from its live manifest",
		Response: reflect.TypeFor[[]catalog.Index](), Status: 200},
	{Method: "GET", Path: "/v1/indexes/{name}", ID: "getIndex", Summary: "One index: documents per source, shards, build counts",
		Response: reflect.TypeFor[catalog.Index](), Status: 200, Params: []Param{nameParam}},
	{Method: "GET", Path: "/v1/digests", ID: "listDigests", Summary: "The stored digests: each name with its first and last day",
		Response: reflect.TypeFor[[]catalog.DigestName](), Status: 200},
	{Method: "POST", Path: "/v1/digests", ID: "startDigest", Summary: "Start a digest workflow (does not wait for it)",
		Request: reflect.TypeFor[DigestRequest](), Response: reflect.TypeFor[Started](), Status: 202},
	{Method: "GET", Path: "/v1/digests/{name}", ID: "listDigestDays", Summary: "The stored days of one digest",
		Response: reflect.TypeFor[[]catalog.DigestDay](), Status: 200, Params: []Param{nameParam}},
	{Method: "GET", Path: "/v1/digests/{name}/{day}", ID: "getDigest", Summary: "One stored digest day (YYYY-MM-DD, or latest) as JSON, Markdown or HTML",
		Response: reflect.TypeFor[schemas.Digest](), Status: 200, Alternatives: []string{"text/markdown", "text/html"},
		Params: []Param{nameParam, {Name: "day", In: "path", Description: "YYYY-MM-DD or latest"}, formatParam}},
	{Method: "GET", Path: "/v1/answers", ID: "listAnswers", Summary: "The stored answers (each Ask run's answer.json), newest first",
		Response: reflect.TypeFor[[]catalog.StoredAnswer](), Status: 200, Params: listParams},
	{Method: "GET", Path: "/v1/answers/{id}", ID: "getAnswer", Summary: "One stored answer by its run id, as JSON (answer.json), Markdown (as asof ask prints it) or an HTML page",
		Response: reflect.TypeFor[schemas.Answer](), Status: 200, Alternatives: []string{"text/markdown", "text/html"},
		Params: []Param{{Name: "id", In: "path", Description: "the Ask run id (the answer's run_id)"}, formatParam}},
	{Method: "GET", Path: "/v1/evals", ID: "listEvals", Summary: "The stored evaluations (retrieval and summaries), newest first",
		Response: reflect.TypeFor[[]catalog.StoredEval](), Status: 200, Params: listParams},
	{Method: "GET", Path: "/v1/evals/{id}/report", ID: "getEvalReport",
		Summary: "One stored evaluation's results by its eval id: summary.json as written (JSON), its tables (Markdown) or report.html (HTML; a retrieval evaluation only)",
		OneOf:   []reflect.Type{reflect.TypeFor[evalrun.SummaryFile](), reflect.TypeFor[sumeval.Report]()},
		Status:  200, Alternatives: []string{"text/markdown", "text/html"},
		Params: []Param{{Name: "id", In: "path", Description: "the eval id (asof evals list, or the id asof eval prints)"}, formatParam}},
	{Method: "GET", Path: "/v1/evals/{workflow_id}", ID: "getEval", Summary: "An eval workflow's status, and its result once completed",
		Response: reflect.TypeFor[Status](), Status: 200, Params: []Param{{Name: "workflow_id", In: "path"}}},
	{Method: "POST", Path: "/v1/indexes/{name}/build", ID: "startIndex",
		Summary: "Build or update an index from Parquet objects in the store (starts the IndexBuild workflow, or follows the same build running; 409 while another runs)",
		Request: reflect.TypeFor[IndexRequest](), Response: reflect.TypeFor[Started](), Status: 202, Params: []Param{nameParam}},
	{Method: "GET", Path: "/v1/indexes/{name}/build", ID: "getIndexBuild", Summary: "The index's latest build: running with its progress, or its result",
		Response: reflect.TypeFor[Status](), Status: 200, Params: []Param{nameParam}},
	{Method: "DELETE", Path: "/v1/indexes/{name}", ID: "deleteIndex", Summary: "Delete an index: its CURRENT first, then every object under indexes/<name>/ (409 while it is being built)",
		Response: reflect.TypeFor[DeletedIndex](), Status: 200, Params: []Param{nameParam}},
	{Method: "DELETE", Path: "/v1/indexes/{name}/docs/{doc_id}", ID: "takeDown",
		Summary:  "Take a document down (every version, from every answer as of any day), recorded in the manifest with ?reason= (required); with ?purge=true its text and vectors then leave the store (409 while a build runs); waits for the manifest",
		Response: reflect.TypeFor[schemas.TakeDownResult](), Status: 200,
		Params: []Param{nameParam, {Name: "doc_id", In: "path"}, {Name: "reason", In: "query", Description: "why (required; recorded in the manifest)"},
			{Name: "purge", In: "query", Description: "true: then remove its text and vectors from the store (asof docs delete --purge)"}}},
	{Method: "GET", Path: "/v1/indexes/{name}/history", ID: "indexHistory", Summary: "An index's manifests, oldest first: when, shards, counts, takedowns, which one is live",
		Response: reflect.TypeFor[[]ManifestInfo](), Status: 200, Params: []Param{nameParam}},
	{Method: "POST", Path: "/v1/indexes/{name}/rollback", ID: "rollbackIndex", Summary: "Publish an earlier manifest again (its shards, with the live takedowns kept); 409 while a build runs",
		Request: reflect.TypeFor[RollbackRequest](), Response: reflect.TypeFor[Rollback](), Status: 200, Params: []Param{nameParam}},
	{Method: "GET", Path: "/v1/indexes/{name}/takedowns", ID: "listTakedowns", Summary: "The documents taken down from an index: when, why, how many rows",
		Response: reflect.TypeFor[[]schemas.Takedown](), Status: 200, Params: []Param{nameParam}},
	{Method: "POST", Path: "/v1/evals", ID: "startEval", Summary: "Start a retrieval evaluation of question files in the store, or resume the one of equal inputs (GET /v1/evals/{workflow_id} follows it)",
		Request: reflect.TypeFor[EvalRequest](), Response: reflect.TypeFor[Started](), Status: 202},
	{Method: "GET", Path: "/v1/schedules", ID: "listSchedules", Summary: "The digest schedules: cron, state, last and next run",
		Response: reflect.TypeFor[[]ScheduleInfo](), Status: 200},
	{Method: "POST", Path: "/v1/schedules", ID: "createSchedule", Summary: "Create a digest schedule (409 when the name is taken)",
		Request: reflect.TypeFor[ScheduleRequest](), Response: reflect.TypeFor[ScheduleInfo](), Status: 201},
	{Method: "GET", Path: "/v1/schedules/{name}", ID: "getSchedule", Summary: "One digest schedule",
		Response: reflect.TypeFor[ScheduleInfo](), Status: 200, Params: []Param{nameParam}},
	{Method: "DELETE", Path: "/v1/schedules/{name}", ID: "deleteSchedule", Summary: "Delete a digest schedule (the digests it wrote stay)",
		Response: reflect.TypeFor[ScheduleInfo](), Status: 200, Params: []Param{nameParam}},
	{Method: "POST", Path: "/v1/schedules/{name}/trigger", ID: "triggerSchedule", Summary: "Run a schedule's digest now (does not wait for it)",
		Response: reflect.TypeFor[Started](), Status: 202, Params: []Param{nameParam}},
	{Method: "POST", Path: "/v1/schedules/{name}/pause", ID: "pauseSchedule", Summary: "Pause a schedule (the body's note, optional, says why)",
		Request: reflect.TypeFor[NoteRequest](), OptionalBody: true, Response: reflect.TypeFor[ScheduleInfo](), Status: 200, Params: []Param{nameParam}},
	{Method: "POST", Path: "/v1/schedules/{name}/unpause", ID: "unpauseSchedule", Summary: "Resume a paused schedule",
		Request: reflect.TypeFor[NoteRequest](), OptionalBody: true, Response: reflect.TypeFor[ScheduleInfo](), Status: 200, Params: []Param{nameParam}},
	{Method: "GET", Path: "/v1/openapi.json", ID: "openapi", Summary: "This document", Response: nil, Status: 200},
}

// OpenAPI is the API's OpenAPI 3.1 document, its schemas generated from the Go types of
// Operations by internal/jsonschema (the generator of schemas/jsonschema/*.json).
func OpenAPI(serverVersion string) ([]byte, error) {
	c := jsonschema.NewComponents()
	errRef := c.Schema(reflect.TypeFor[ErrorBody](), jsonschema.Output)
	paths := map[string]map[string]any{}
	for _, op := range Operations {
		o := map[string]any{"operationId": op.ID, "summary": op.Summary}
		if len(op.Params) > 0 {
			var ps []any
			for _, p := range op.Params {
				s := jsonschema.Schema{"type": "string"}
				if len(p.Enum) > 0 {
					s["enum"] = p.Enum
				}
				ps = append(ps, map[string]any{"name": p.Name, "in": p.In, "required": p.In == "path", "description": p.Description, "schema": s})
			}
			o["parameters"] = ps
		}
		if op.Request != nil {
			o["requestBody"] = map[string]any{"required": !op.OptionalBody, "content": map[string]any{
				"application/json": map[string]any{"schema": c.Schema(op.Request, jsonschema.Input)}}}
		}
		body := map[string]any{"schema": jsonschema.Schema{"type": "object"}}
		if op.Response != nil {
			body = map[string]any{"schema": c.Schema(op.Response, jsonschema.Output)}
		}
		if len(op.OneOf) > 0 {
			var refs []any
			for _, t := range op.OneOf {
				refs = append(refs, c.Schema(t, jsonschema.Output))
			}
			body = map[string]any{"schema": map[string]any{"oneOf": refs}}
		}
		content := map[string]any{"application/json": body}
		for _, alt := range op.Alternatives {
			content[alt] = map[string]any{"schema": jsonschema.Schema{"type": "string"}}
		}
		errResp := map[string]any{"content": map[string]any{"application/json": map[string]any{"schema": errRef}}}
		o["responses"] = map[string]any{
			itoa(op.Status): map[string]any{"description": "success", "content": content},
			"4XX":           mergeDesc(errResp, "the request is wrong: bad JSON, an unknown field, a bad day, no such index (401: no or a wrong bearer token)"),
			"5XX":           mergeDesc(errResp, "the server or the workflow failed"),
		}
		if paths[op.Path] == nil {
			paths[op.Path] = map[string]any{}
		}
		paths[op.Path][strings.ToLower(op.Method)] = o
	}
	doc := map[string]any{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": jsonschema.Draft,
		"info": map[string]any{"title": "asof HTTP API", "version": Version + " (asof " + serverVersion + ")",
			"description": "Answers as of a day over dated document streams; each call starts or queries the same Temporal workflows as the asof command line (docs/api.md)."},
		"paths":      paths,
		"components": map[string]any{"schemas": c.Schemas(), "securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}}},
		"security":   []any{map[string]any{"bearer": []string{}}, map[string]any{}},
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	return append(data, '\n'), err
}

func mergeDesc(m map[string]any, desc string) map[string]any {
	out := map[string]any{"description": desc}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
