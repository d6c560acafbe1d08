// Package layout is the one description of asof's store: every object key and prefix, the
// rule for the names that become part of a key (index and digest names), and reading and
// writing the manifest an index is published by. Activities, workflows and the CLI build keys
// here and nowhere else, so the tree below is the whole store.
//
//	corpora/<sha256[:16]>/<file>                      inputs uploaded by the CLI, content-addressed (CorpusKey)
//	quarantine/<run-id>/rejects.parquet                every row an index build rejected, with its reason (QuarantineKey)
//	builds/inputs/<sha256[:16]>.json                   an index build's input file list, written by the CLI (InputListKey)
//	builds/<run-id>/plan.json                          an index build's plan: every period's shard (BuildPlanKey)
//	builds/<run-id>/files.json                         its per-file reconciliation table (BuildFilesKey)
//	indexes/<index>/                                   one index (IndexPrefix)
//	  CURRENT                                          {"manifest": "manifests/NNNNNN.json", "seq": N}: the live manifest,
//	                                                   moved by a conditional write (CurrentKey, Current, MoveCurrent)
//	  manifests/NNNNNN.json                            shard list, model, chunking, counts (ManifestKey, PutManifest)
//	  shards/<period>/<shard-id>/                      one immutable shard (ShardPrefix, relative to the index):
//	                                                   chunks.parquet vectors.f32 vectors.i8 bm25.zip, meta.json last
//	  lifecycle/<sha256[:24]>.parquet                  when each document version stops being current, content-addressed
//	  lifecycle/<sha256[:24]>.json                     the supersession links and warnings beside it (LifecycleKeys, relative)
//	  staging/<shard-id>/                              a shard being built, deleted once it is written (StagingPrefix):
//	    docs.parquet                                   the period's documents (StagingDocsKey)
//	    chunks.parquet                                 their chunks (StagingChunksKey)
//	    vectors/NNNNN.f32                              embedding parts, one per part size (VectorsPrefix, PartKey)
//	runs/<ask-run-id>/                                 one question (RunPrefix):
//	  candidates.parquet                               the judge pool (CandidatesKey)
//	  answer.json context.md                           the answer and its context (AnswerKey, ContextKey)
//	  rubric.json                                      the summaries evaluation's grade of the answer (RubricKey)
//	  timeline.json                                    a timeline run's result, in its own run (TimelineKey)
//	digests/<name>/                                    the digests of one name (DigestsPrefix):
//	  index.html                                       the archive page of every day (DigestArchiveKey)
//	  <YYYY-MM-DD>/digest.json digest.md digest.html   one day's digest (DigestPrefix, DigestJSONKey, …)
//	evals/<eval-id>/                                   one retrieval evaluation (EvalPrefix):
//	  vectors/NNNNN.f32                                a batch's query vectors (EvalVectorsKey)
//	  batches/NNNNN.parquet                            a batch's per-query rows (EvalBatchKey)
//	  summary.json per_query.parquet report.html       the results (EvalSummaryKey, EvalPerQueryKey, EvalReportKey)
//	evals/summaries/<eval-id>/                         one summaries evaluation (SummariesPrefix):
//	  summary.json table.md per_answer.parquet         its results (SummariesSummaryKey, …)
//	evals/summaries/study-rubric/<hash>/<system>/<query-id>.json
//	                                                   a grader's scores of a study summary (StudyRubricKey)
//	health/<run-id>.json                               the health check's probe, deleted after it is read back (HealthProbeKey)
//
// Keys are built with path.Join, so they never start or end with "/"; a caller listing a
// folder adds the trailing "/" itself. The index and digest names are checked by
// ValidateIndexName and ValidateDigestName before they become part of a key; run and eval ids
// come from workflow ids, and an id a person or a client gives to fetch what was written is
// checked by ValidateRunID or ValidateEvalID. This package does no I/O other than through a blob.Bucket it is given
// and imports nothing from Temporal.
package layout

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// HealthPrefix is the default folder of the health check's probe objects.
const HealthPrefix = "health"

// Files of a digest day and of a digest name (see the package tree).
const (
	DigestJSONFile     = "digest.json"
	DigestMarkdownFile = "digest.md"
	DigestHTMLFile     = "digest.html"
	// DigestArchiveFile is the archive page of a digest name, next to its day folders.
	DigestArchiveFile = "index.html"
)

// name is the rule for names that become one segment of a key: 1-63 lower-case letters,
// digits, '.', '_' or '-', starting with a letter or digit (so never "." or "..").
var name = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// ValidateIndexName checks an index name (lower-case letters, digits, ".", "_", "-").
func ValidateIndexName(index string) error {
	if !name.MatchString(index) {
		return fmt.Errorf("index name %q: use 1-63 lower-case letters, digits, '.', '_' or '-'", index)
	}
	return nil
}

// ValidateDigestName checks a digest (and schedule) name: it becomes a storage key.
func ValidateDigestName(digest string) error {
	if !name.MatchString(digest) {
		return fmt.Errorf("digest name %q: use lower-case letters, digits, '.', '_' and '-' (at most 63, starting with a letter or digit)", digest)
	}
	return nil
}

// MaxIDLen is the longest run or eval id ValidateRunID and ValidateEvalID accept, in bytes.
const MaxIDLen = 255

// ValidateRunID checks an Ask run id given to fetch its answer (runs/<run-id>/): the id is a
// workflow id, whose text may come from an index name, a digest name or a query id, so any
// printable text is accepted as long as it stays one key segment: 1-255 bytes of UTF-8, no
// "/" or "\", no control character, not "." or "..".
func ValidateRunID(id string) error { return validateID("run id", id) }

// ValidateEvalID checks an evaluation id given to fetch its results (evals/<eval-id>/ or
// evals/summaries/<eval-id>/), by the rule of ValidateRunID.
func ValidateEvalID(id string) error { return validateID("eval id", id) }

// validateID is the rule of ValidateRunID, its errors naming what of id breaks it.
func validateID(what, id string) error {
	const rule = "one path segment of 1-255 bytes: no '/' or '\\', no control character, not '.' or '..'"
	switch {
	case id == "" || len(id) > MaxIDLen:
		return fmt.Errorf("%s of %d bytes: %s", what, len(id), rule)
	case id == "." || id == "..":
		return fmt.Errorf("%s %q: %s", what, id, rule)
	case !utf8.ValidString(id):
		return fmt.Errorf("%s %q is not UTF-8: %s", what, id, rule)
	case strings.ContainsAny(id, "/\\"):
		return fmt.Errorf("%s %q has a '/' or '\\': %s", what, id, rule)
	case strings.ContainsFunc(id, unicode.IsControl):
		return fmt.Errorf("%s %q has a control character: %s", what, id, rule)
	}
	return nil
}

// CorpusKey is where the CLI uploads an input file: corpora/<sha256[:16]>/<file>, sum being
// the file's hex SHA-256 and file its base name, so the same bytes under the same name are
// uploaded once.
func CorpusKey(sum, file string) string {
	if len(sum) > 16 {
		sum = sum[:16]
	}
	return path.Join("corpora", sum, file)
}

// InputListKey is where the CLI stores an index build's input file list (JSON), sum being
// the list's hex SHA-256, so the workflow's input carries this key and not one entry per file.
func InputListKey(sum string) string {
	if len(sum) > 16 {
		sum = sum[:16]
	}
	return path.Join("builds", "inputs", sum+".json")
}

// BuildPlanKey holds the plan of the index build whose first run is runID: every period's
// shard, the ones already built with their meta, and the live shards an append keeps.
func BuildPlanKey(runID string) string { return path.Join("builds", runID, "plan.json") }

// BuildFilesKey holds the per-file reconciliation table of the index build whose first run is
// runID (read, indexed, skipped and quarantined rows of each input file).
func BuildFilesKey(runID string) string { return path.Join("builds", runID, "files.json") }

// QuarantineKey holds the rows an index build run rejected, with their reasons.
func QuarantineKey(runID string) string { return path.Join("quarantine", runID, "rejects.parquet") }

// IndexPrefix is the folder of an index in the store.
func IndexPrefix(index string) string { return path.Join("indexes", index) }

// CurrentKey is an index's CURRENT object, the pointer to its live manifest.
func CurrentKey(index string) string { return path.Join(IndexPrefix(index), "CURRENT") }

// ManifestName is manifest seq's key relative to its index (what CURRENT records).
func ManifestName(seq int) string { return fmt.Sprintf("manifests/%06d.json", seq) }

// ManifestKey is the key of an index's manifest number seq.
func ManifestKey(index string, seq int) string {
	return path.Join(IndexPrefix(index), ManifestName(seq))
}

// ShardPrefix is a shard's folder relative to its index: shards/<period>/<id>. A shard's
// meta.json names its objects relative to the index this way.
func ShardPrefix(period, id string) string { return path.Join("shards", period, id) }

// ShardKey is the key of one file of a shard (a name from internal/shard: chunks.parquet, …).
func ShardKey(index, period, id, file string) string {
	return path.Join(IndexPrefix(index), ShardPrefix(period, id), file)
}

// LifecycleKeys are an index's lifecycle table and its report, relative to the index folder
// (as the manifest names them), for a table whose bytes hash to sum (hex sha256).
func LifecycleKeys(sum string) (table, report string) {
	if len(sum) > 24 {
		sum = sum[:24]
	}
	return path.Join("lifecycle", sum+".parquet"), path.Join("lifecycle", sum+".json")
}

// IndexKey is key (relative to the index folder, as a manifest names its objects) from the
// store's root.
func IndexKey(index, key string) string { return path.Join(IndexPrefix(index), key) }

// StagingPrefix is the folder of a shard's staged documents, chunks and vector parts: more
// bytes than the shard itself, kept until the shard's meta.json is written so a build can
// resume, then deleted.
func StagingPrefix(index, shardID string) string {
	return path.Join(IndexPrefix(index), "staging", shardID)
}

// StagingDocsKey holds the documents of a shard being built.
func StagingDocsKey(index, shardID string) string {
	return path.Join(StagingPrefix(index, shardID), "docs.parquet")
}

// StagingChunksKey holds the chunk rows of a shard being built.
func StagingChunksKey(index, shardID string) string {
	return path.Join(StagingPrefix(index, shardID), "chunks.parquet")
}

// VectorsPrefix is where a shard's embedding parts are staged.
func VectorsPrefix(index, shardID string) string {
	return path.Join(StagingPrefix(index, shardID), "vectors")
}

// PartKey is embedding part p under a vectors prefix: <prefix>/<00000>.f32.
func PartKey(vectorsPrefix string, p int) string { return fmt.Sprintf("%s/%05d.f32", vectorsPrefix, p) }

// RunPrefix is where one question's artifacts go: runs/<run-id>/.
func RunPrefix(runID string) string { return path.Join("runs", runID) }

// CandidatesKey holds a question's judge pool.
func CandidatesKey(runID string) string { return path.Join(RunPrefix(runID), "candidates.parquet") }

// AnswerKey holds a question's answer (schemas.Answer as JSON).
func AnswerKey(runID string) string { return path.Join(RunPrefix(runID), "answer.json") }

// TimelineKey holds a timeline's run result (schemas.Timeline as JSON).
func TimelineKey(runID string) string { return path.Join(RunPrefix(runID), "timeline.json") }

// ContextKey holds the context an answer was written from, as Markdown.
func ContextKey(runID string) string { return path.Join(RunPrefix(runID), "context.md") }

// RubricKey holds the summaries evaluation's grade of a question's answer.
func RubricKey(runID string) string { return path.Join(RunPrefix(runID), "rubric.json") }

// DigestsPrefix is the folder of every digest of one name.
func DigestsPrefix(name string) string { return path.Join("digests", name) }

// DigestPrefix is where the digest of one name and day is written (the day of day in UTC).
func DigestPrefix(name string, day time.Time) string {
	return path.Join(DigestsPrefix(name), day.UTC().Format(time.DateOnly))
}

// DigestJSONKey is a day's digest as JSON (schemas.Digest).
func DigestJSONKey(name string, day time.Time) string {
	return path.Join(DigestPrefix(name, day), DigestJSONFile)
}

// DigestMarkdownKey is a day's digest as Markdown.
func DigestMarkdownKey(name string, day time.Time) string {
	return path.Join(DigestPrefix(name, day), DigestMarkdownFile)
}

// DigestHTMLKey is a day's digest as a self-contained HTML page.
func DigestHTMLKey(name string, day time.Time) string {
	return path.Join(DigestPrefix(name, day), DigestHTMLFile)
}

// DigestArchiveKey is the archive page of the digests of one name.
func DigestArchiveKey(name string) string { return path.Join(DigestsPrefix(name), DigestArchiveFile) }

// EvalPrefix is where one evaluation's files go.
func EvalPrefix(id string) string { return path.Join("evals", id) }

// EvalVectorsKey holds the query vectors of an evaluation's batch n.
func EvalVectorsKey(evalID string, n int) string {
	return path.Join(EvalPrefix(evalID), "vectors", fmt.Sprintf("%05d.f32", n))
}

// EvalPlanKey holds the questions of an evaluation's batch n (JSON), written by PlanEval so that
// no question list travels through the workflow's history.
func EvalPlanKey(evalID string, n int) string {
	return path.Join(EvalPrefix(evalID), "plan", fmt.Sprintf("%05d.json", n))
}

// EvalBatchKey holds the per-query rows of an evaluation's batch n; it is written last, so a
// rerun finds a finished batch by it.
func EvalBatchKey(evalID string, n int) string {
	return path.Join(EvalPrefix(evalID), "batches", fmt.Sprintf("%05d.parquet", n))
}

// EvalSummaryKey holds an evaluation's summary (JSON).
func EvalSummaryKey(evalID string) string { return path.Join(EvalPrefix(evalID), "summary.json") }

// EvalPerQueryKey holds an evaluation's per-query rows of every batch (Parquet).
func EvalPerQueryKey(evalID string) string { return path.Join(EvalPrefix(evalID), "per_query.parquet") }

// EvalReportKey holds an evaluation's HTML report.
func EvalReportKey(evalID string) string { return path.Join(EvalPrefix(evalID), "report.html") }

// SummariesPrefix is where one summaries evaluation writes: evals/summaries/<id>/.
func SummariesPrefix(evalID string) string { return path.Join("evals", "summaries", evalID) }

// SummariesSummaryKey holds a summaries evaluation's report (JSON).
func SummariesSummaryKey(evalID string) string {
	return path.Join(SummariesPrefix(evalID), "summary.json")
}

// SummariesTableKey holds a summaries evaluation's table (Markdown).
func SummariesTableKey(evalID string) string { return path.Join(SummariesPrefix(evalID), "table.md") }

// SummariesPerAnswerKey holds a summaries evaluation's per-answer rows (Parquet).
func SummariesPerAnswerKey(evalID string) string {
	return path.Join(SummariesPrefix(evalID), "per_answer.parquet")
}

// StudyRubricFolder is the folder of evals/summaries/ that holds StudyRubricKey's grades.
const StudyRubricFolder = "study-rubric"

// StudyRubricKey holds one grader's scores of the study's summary of a query by a system:
// evals/summaries/study-rubric/<hash>/<system>/<query-id>.json, hash the first 16 hex digits of
// the SHA-256 of the study file's key (content-addressed: CorpusKey) and the grader
// ("llm:<model>#<rubric prompt version>"), so every summaries evaluation graded by the same
// model and prompt on the same file shares them. The system and query id are path-escaped. The folder, StudyRubricFolder, is not
// an eval id (those are 16 hex digits).
func StudyRubricKey(studyKey, grader, system, queryID string) string {
	sum := sha256.Sum256([]byte(studyKey + "\x00" + grader))
	return path.Join(SummariesPrefix(StudyRubricFolder), hex.EncodeToString(sum[:8]),
		url.PathEscape(system), url.PathEscape(queryID)+".json")
}

// HealthProbeKey is the health check's probe object of one run under prefix (HealthPrefix by
// default; leading and trailing "/" are dropped).
func HealthProbeKey(prefix, runID string) string {
	return fmt.Sprintf("%s/%s.json", strings.Trim(prefix, "/"), runID)
}
