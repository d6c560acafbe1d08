package layout_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/layout"
)

// TestKeys holds every kind of key to the exact bytes stores written before this package
// existed hold: a change here moves objects, and old indexes, runs and digests stop being found.
func TestKeys(t *testing.T) {
	day := time.Date(2024, 3, 9, 23, 30, 0, 0, time.FixedZone("UTC-2", -2*3600)) // 2024-03-10 in UTC
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "corpus", got: layout.CorpusKey("0123456789abcdef0123456789abcdef", "news.parquet"), want: "corpora/0123456789abcdef/news.parquet"},
		{name: "quarantine", got: layout.QuarantineKey("asof-index-news/r1"), want: "quarantine/asof-index-news/r1/rejects.parquet"},
		{name: "input list", got: layout.InputListKey("0123456789abcdef0123456789abcdef"), want: "builds/inputs/0123456789abcdef.json"},
		{name: "build plan", got: layout.BuildPlanKey("r1"), want: "builds/r1/plan.json"},
		{name: "build files", got: layout.BuildFilesKey("r1"), want: "builds/r1/files.json"},
		{name: "index", got: layout.IndexPrefix("news"), want: "indexes/news"},
		{name: "current", got: layout.CurrentKey("news"), want: "indexes/news/CURRENT"},
		{name: "manifest name", got: layout.ManifestName(7), want: "manifests/000007.json"},
		{name: "manifest", got: layout.ManifestKey("news", 12), want: "indexes/news/manifests/000012.json"},
		{name: "manifest of current", got: layout.ManifestOf("news", layout.Current{Manifest: "manifests/000003.json", Seq: 3}), want: "indexes/news/manifests/000003.json"},
		{name: "shard prefix", got: layout.ShardPrefix("2024-03", "ab12"), want: "shards/2024-03/ab12"},
		{name: "shard file", got: layout.ShardKey("news", "2024-03", "ab12", "meta.json"), want: "indexes/news/shards/2024-03/ab12/meta.json"},
		{name: "staging", got: layout.StagingPrefix("news", "ab12"), want: "indexes/news/staging/ab12"},
		{name: "staging docs", got: layout.StagingDocsKey("news", "ab12"), want: "indexes/news/staging/ab12/docs.parquet"},
		{name: "staging chunks", got: layout.StagingChunksKey("news", "ab12"), want: "indexes/news/staging/ab12/chunks.parquet"},
		{name: "vectors", got: layout.VectorsPrefix("news", "ab12"), want: "indexes/news/staging/ab12/vectors"},
		{name: "vector part", got: layout.PartKey(layout.VectorsPrefix("news", "ab12"), 3), want: "indexes/news/staging/ab12/vectors/00003.f32"},
		{name: "run", got: layout.RunPrefix("r1"), want: "runs/r1"},
		{name: "candidates", got: layout.CandidatesKey("r1"), want: "runs/r1/candidates.parquet"},
		{name: "answer", got: layout.AnswerKey("r1"), want: "runs/r1/answer.json"},
		{name: "context", got: layout.ContextKey("r1"), want: "runs/r1/context.md"},
		{name: "timeline", got: layout.TimelineKey("r1"), want: "runs/r1/timeline.json"},
		{name: "rubric", got: layout.RubricKey("r1"), want: "runs/r1/rubric.json"},
		{name: "digests", got: layout.DigestsPrefix("daily"), want: "digests/daily"},
		{name: "digest day in UTC", got: layout.DigestPrefix("daily", day), want: "digests/daily/2024-03-10"},
		{name: "digest json", got: layout.DigestJSONKey("daily", day), want: "digests/daily/2024-03-10/digest.json"},
		{name: "digest markdown", got: layout.DigestMarkdownKey("daily", day), want: "digests/daily/2024-03-10/digest.md"},
		{name: "digest html", got: layout.DigestHTMLKey("daily", day), want: "digests/daily/2024-03-10/digest.html"},
		{name: "digest archive", got: layout.DigestArchiveKey("daily"), want: "digests/daily/index.html"},
		{name: "eval", got: layout.EvalPrefix("e1"), want: "evals/e1"},
		{name: "eval vectors", got: layout.EvalVectorsKey("e1", 4), want: "evals/e1/vectors/00004.f32"},
		{name: "eval batch", got: layout.EvalBatchKey("e1", 12345), want: "evals/e1/batches/12345.parquet"},
		{name: "eval summary", got: layout.EvalSummaryKey("e1"), want: "evals/e1/summary.json"},
		{name: "eval per query", got: layout.EvalPerQueryKey("e1"), want: "evals/e1/per_query.parquet"},
		{name: "eval report", got: layout.EvalReportKey("e1"), want: "evals/e1/report.html"},
		{name: "summaries", got: layout.SummariesPrefix("s1"), want: "evals/summaries/s1"},
		{name: "summaries summary", got: layout.SummariesSummaryKey("s1"), want: "evals/summaries/s1/summary.json"},
		{name: "summaries table", got: layout.SummariesTableKey("s1"), want: "evals/summaries/s1/table.md"},
		{name: "summaries per answer", got: layout.SummariesPerAnswerKey("s1"), want: "evals/summaries/s1/per_answer.parquet"},
		{name: "study rubric", got: layout.StudyRubricKey("corpora/0123456789abcdef/study.parquet", "llm:m", "rag filtered", "q/1"),
			want: "evals/summaries/study-rubric/" + hex16("corpora/0123456789abcdef/study.parquet\x00llm:m") + "/rag%20filtered/q%2F1.json"},
		{name: "health probe", got: layout.HealthProbeKey(layout.HealthPrefix, "run-1"), want: "health/run-1.json"},
		{name: "health probe, slashes trimmed", got: layout.HealthProbeKey("/probes/x/", "run-1"), want: "probes/x/run-1.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("key %q, want %q", tc.got, tc.want)
			}
		})
	}
}

// TestValidateNames checks the names that become a key segment, and what a person reads when
// one is refused.
func TestValidateNames(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		validate func(string) error
		wantErr  string // "" accepted
	}{
		{name: "index", in: "news", validate: layout.ValidateIndexName},
		{name: "index with digits and punctuation", in: "ru-tg_2024.v2", validate: layout.ValidateIndexName},
		{name: "index of 63", in: "a" + strings.Repeat("b", 62), validate: layout.ValidateIndexName},
		{name: "index of 64", in: "a" + strings.Repeat("b", 63), validate: layout.ValidateIndexName,
			wantErr: `index name "a` + strings.Repeat("b", 63) + `": use 1-63 lower-case letters, digits, '.', '_' or '-'`},
		{name: "empty index", in: "", validate: layout.ValidateIndexName, wantErr: `index name "": use 1-63 lower-case letters, digits, '.', '_' or '-'`},
		{name: "upper-case index", in: "News", validate: layout.ValidateIndexName, wantErr: `index name "News": use 1-63`},
		{name: "dot-dot index", in: "..", validate: layout.ValidateIndexName, wantErr: `index name "..": use 1-63`},
		{name: "index with a slash", in: "a/b", validate: layout.ValidateIndexName, wantErr: `index name "a/b": use 1-63`},
		{name: "index starting with a dash", in: "-a", validate: layout.ValidateIndexName, wantErr: `index name "-a": use 1-63`},
		{name: "digest", in: "daily", validate: layout.ValidateDigestName},
		{name: "digest with digits", in: "0-morning.ru", validate: layout.ValidateDigestName},
		{name: "digest with a space", in: "my digest", validate: layout.ValidateDigestName,
			wantErr: `digest name "my digest": use lower-case letters, digits, '.', '_' and '-' (at most 63, starting with a letter or digit)`},
		{name: "digest starting with a dot", in: ".hidden", validate: layout.ValidateDigestName, wantErr: `digest name ".hidden": use lower-case`},
		{name: "digest with a slash", in: "../x", validate: layout.ValidateDigestName, wantErr: `digest name "../x": use lower-case`},
		{name: "ask run id", in: "asof-ask-news-20260325T101010.123Z-ABCD2345", validate: layout.ValidateRunID},
		{name: "digest topic run id", in: "asof-digest-morning-20260325T101010.123Z-t01", validate: layout.ValidateRunID},
		{name: "run id from a query id", in: "asof-sumeval-0123456789abcdef-q 7:ключ", validate: layout.ValidateRunID},
		{name: "run id of 255 bytes", in: strings.Repeat("r", 255), validate: layout.ValidateRunID},
		{name: "run id of 256 bytes", in: strings.Repeat("r", 256), validate: layout.ValidateRunID, wantErr: "run id of 256 bytes: one path segment of 1-255 bytes"},
		{name: "empty run id", in: "", validate: layout.ValidateRunID, wantErr: "run id of 0 bytes: one path segment"},
		{name: "run id climbing out", in: "../x", validate: layout.ValidateRunID, wantErr: `run id "../x" has a '/' or '\': one path segment`},
		{name: "run id dot-dot", in: "..", validate: layout.ValidateRunID, wantErr: `run id "..": one path segment`},
		{name: "run id with a backslash", in: `..\x`, validate: layout.ValidateRunID, wantErr: `run id "..\\x" has a '/' or '\'`},
		{name: "run id with a newline", in: "a\nb", validate: layout.ValidateRunID, wantErr: `run id "a\nb" has a control character`},
		{name: "run id not UTF-8", in: "a\xffb", validate: layout.ValidateRunID, wantErr: `run id "a\xffb" is not UTF-8`},
		{name: "eval id", in: "0123456789abcdef", validate: layout.ValidateEvalID},
		{name: "eval id climbing out", in: "../../indexes", validate: layout.ValidateEvalID, wantErr: `eval id "../../indexes" has a '/'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.validate(tc.in)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%q refused: %v", tc.in, err)
			case tc.wantErr != "" && err == nil:
				t.Errorf("%q accepted, want %q", tc.in, tc.wantErr)
			case tc.wantErr != "" && !strings.HasPrefix(err.Error(), tc.wantErr):
				t.Errorf("error %q, want it to start with %q", err, tc.wantErr)
			}
		})
	}
}

// FuzzValidateRunID checks that an accepted run id is always one key segment under runs/.
func FuzzValidateRunID(f *testing.F) {
	for _, s := range []string{"asof-ask-news-20260325T101010.123Z", "..", "../x", "a\\b", "", "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if layout.ValidateRunID(s) != nil {
			return
		}
		if got := layout.AnswerKey(s); got != "runs/"+s+"/answer.json" {
			t.Fatalf("accepted %q but its answer is at %q", s, got)
		}
	})
}

// FuzzValidateIndexName checks that an accepted name is always one clean key segment.
func FuzzValidateIndexName(f *testing.F) {
	for _, s := range []string{"news", "..", "a/b", "A", "", "x.y_z-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if layout.ValidateIndexName(s) != nil {
			return
		}
		if got := layout.IndexPrefix(s); got != "indexes/"+s {
			t.Fatalf("accepted %q but its prefix is %q", s, got)
		}
	})
}

// hex16 is the first 16 hex digits of s's SHA-256.
func hex16(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
