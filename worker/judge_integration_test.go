package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/llm/llmtest"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
	"github.com/asofrag/asof/workflows"
)

// publishToyIndex writes one shard of n "key rate" chunks (one a day from 2024-03-01) and a
// manifest, so that Ask can run in bm25 mode without the embedding model.
func publishToyIndex(t *testing.T, b blob.Bucket, index string, n int) {
	t.Helper()
	ctx := context.Background()
	model := schemas.ModelRef{ID: "toy", SHA256: "toy", Dim: n}
	var chunks []schemas.Chunk
	vec := vecindex.New(n, model.ID)
	for i := range n {
		id := fmt.Sprintf("d%02d", i+1)
		words := []string{"inflation", "mortgages", "the krona", "exporters", "savers", "bond yields", "wages", "housing", "energy prices", "the budget", "credit growth", "consumer demand"}
		text := fmt.Sprintf("Key rate decision %d of the central bank: analysts discuss what it means for %s, and economist %c%c%c says the outlook for %s changed.",
			i+1, words[i%len(words)], 'A'+i, 'a'+2*i%26, 'b'+3*i%25, words[(i+5)%len(words)])
		chunks = append(chunks, schemas.Chunk{ChunkID: id + "#0", DocID: id, PublishedAt: time.Date(2024, 3, 1+i, 9, 0, 0, 0, time.UTC),
			Title: fmt.Sprintf("Key rate decision %d", i+1), Text: text, Source: "src" + fmt.Sprint(i%3), Lang: "en", DedupKey: text})
		v := make([]float32, n) // orthogonal: no two are near-duplicates
		v[i] = 1
		vec.Add(v)
	}
	dir := filepath.Join(t.TempDir(), "2024-03")
	meta, err := shard.Write(dir, "2024-03", "toy-2024-03", n, chunks, vec)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(shard.Files(meta), shard.MetaFile) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Put(ctx, path.Join(layout.IndexPrefix(index), layout.ShardPrefix("2024-03", meta.ID), name), f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b, Model: model}}
	env.RegisterActivity(acts)
	if _, err := env.ExecuteActivity(acts.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{Index: index, Period: "month", Model: model, Shards: []schemas.ShardMeta{meta}}}); err != nil {
		t.Fatal(err)
	}
}

var (
	docFence   = regexp.MustCompile(`<<<DOC (\d+) n=`)
	blockFence = regexp.MustCompile(`<<<DOC (\d+) n=\w+>>>\n\[\d+\] date=(\d{4}-\d{2}-\d{2})`)
)

// fakeLLM answers judge and summary requests like a well-behaved model, after the faults the
// test scripts: judge requests are numbered from 1 and fault(n) may replace the answer.
type fakeLLM struct {
	mu     sync.Mutex
	judged int
	fault  func(n int) *llmtest.Reply
}

func (f *fakeLLM) handle(req llmtest.ChatRequest) llmtest.Reply {
	user := req.Messages[len(req.Messages)-1].Content
	if strings.Contains(req.Messages[0].Content, "verdicts") {
		f.mu.Lock()
		f.judged++
		n := f.judged
		fault := f.fault
		f.mu.Unlock()
		if fault != nil {
			if r := fault(n); r != nil {
				return *r
			}
		}
		prompt := req.Messages[1].Content // the first user message holds the documents
		var v []string
		for _, m := range docFence.FindAllStringSubmatch(prompt, -1) {
			grade := 2
			if m[1] == "3" {
				grade = 0 // the third of every batch (batches are numbered 1..n) is irrelevant
			}
			v = append(v, fmt.Sprintf(`{"id":%s,"relevance":%d}`, m[1], grade))
		}
		return llmtest.Reply{Content: `{"verdicts":[` + strings.Join(v, ",") + `]}`}
	}
	m := blockFence.FindStringSubmatch(user)
	if m == nil {
		return llmtest.Reply{Content: `{"not_enough":true,"new":[],"timeline":[]}`}
	}
	return llmtest.Reply{Content: fmt.Sprintf(`{"not_enough":false,"new":[],"timeline":[{"date":%q,"text":"The central bank kept the key rate.","cites":[%s]}]}`, m[2], m[1])}
}

// TestAskJudgesThroughAFaultyLLM runs the Ask workflow on the real Temporal server and S3
// gateway with a worker whose LLM is a loopback OpenAI-protocol server injecting faults:
// a 500, malformed JSON, a non-JSON reply (repaired in the same attempt) and a hang past the
// client's timeout. Every batch ends judged after retries and nothing is lost; then, with a
// judge that always fails, the drop, keep and fail policies each do what they say.
func TestAskJudgesThroughAFaultyLLM(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "judge-it")
	publishToyIndex(t, b, "toy", 12)
	fake := &fakeLLM{}
	srv := llmtest.Start(t, fake.handle)
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "fake-judge", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cfg := config.Default().Worker
	cfg.ShutdownTimeout = 2 * time.Second
	go func() { done <- worker.Run(ctx, tc, cfg, worker.Deps{Bucket: b, LLM: c, Identity: "judge-it"}) }()
	defer func() { cancel(); <-done }()

	ask := func(id, failure string) (schemas.Answer, error) {
		t.Helper()
		rctx, rcancel := context.WithTimeout(ctx, 2*time.Minute)
		defer rcancel()
		run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.Ask, workflows.AskInput{
			Index: "toy", Query: "key rate decision", Mode: "bm25", AsOf: time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC),
			Judge: &workflows.JudgeOptions{Mode: "llm", Pool: 12, Batch: 4, Failure: failure, MaxAttempts: 3},
		})
		if err != nil {
			t.Fatal(err)
		}
		var ans schemas.Answer
		err = run.Get(rctx, &ans)
		return ans, err
	}

	// 1. Faults on the first judge requests; retries and the repair turn get every batch judged.
	fake.fault = func(n int) *llmtest.Reply {
		switch n {
		case 1:
			return &llmtest.Reply{Status: 500, Content: "overloaded"}
		case 2:
			return &llmtest.Reply{Raw: `{"choices": [`}
		case 3:
			return &llmtest.Reply{Content: "Sure! Here are my verdicts: all relevant."}
		case 5:
			return &llmtest.Reply{Delay: time.Minute} // a hang: the client times out
		}
		return nil
	}
	ans, err := ask("ask-judge-local", "keep")
	if err != nil {
		t.Fatal(err)
	}
	j := ans.Judge
	if j == nil || j.Method != "llm:fake-judge" || j.Batches != 3 || j.Judged != 12 || j.FailedBatches != 0 || j.Kept != 9 || j.Dropped != 3 {
		t.Fatalf("judge report %+v", j)
	}
	// 3 batches + a retry after the 500, after the malformed body and after the hang + the
	// repair turn after the non-JSON reply.
	if fake.judged != 7 {
		t.Fatalf("%d judge requests, want 7: each fault costs exactly one more request", fake.judged)
	}
	if ans.SummaryMethod != "llm:fake-judge" || ans.Brief == nil || len(ans.Brief.Timeline) != 1 {
		t.Fatalf("summary %s %+v", ans.SummaryMethod, ans.Brief)
	}
	if len(ans.Blocks) != 9 {
		t.Fatalf("%d context blocks, want the 9 judged relevant", len(ans.Blocks))
	}
	data, err := blob.ReadAll(ctx, b, "runs/ask-judge-local/answer.json")
	if err != nil {
		t.Fatal(err)
	}
	var saved schemas.Answer
	if err := json.Unmarshal(data, &saved); err != nil || saved.Judge == nil || saved.Judge.Judged != 12 {
		t.Fatalf("stored answer %+v %v", saved.Judge, err)
	}

	// The CPU-only steps ran as local activities, the LLM's (every judge attempt, the summary)
	// on asof-llm. ask-judge-faults.json was recorded by this test (ID ask-judge-faults) with
	// the code before local activities, and is kept for that path.
	scheduled, local := historySteps(t, "ask-judge-local")
	if !slices.Equal(local, []string{"ReadQuery", "Candidates", "Compose", "SaveAnswer"}) ||
		!slices.Equal(scheduled, []string{"Judge", "Judge", "Judge", "Summarize"}) {
		t.Fatalf("ask-judge-local ran activities %v and local activities %v", scheduled, local)
	}
	if *updateHistory {
		saveHistory(t, "ask-judge-local")
	}

	// 2. A judge that always fails: each policy, with every candidate accounted for.
	fake.fault = func(int) *llmtest.Reply { return &llmtest.Reply{Status: 503, Content: "down"} }
	for _, tc := range []struct {
		policy            string
		kept, dropped     int
		wantErr, noBlocks bool
	}{
		{policy: "drop", dropped: 12, noBlocks: true},
		{policy: "keep", kept: 12},
		{policy: "fail", wantErr: true},
	} {
		ans, err := ask("ask-judge-down-"+tc.policy, tc.policy)
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), "judge candidates") {
				t.Fatalf("%s: err %v", tc.policy, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.policy, err)
		}
		j := ans.Judge
		if j.Method != "llm (every batch failed)" || j.FailedBatches != 3 || j.Failed != 12 || j.Judged != 0 || j.Kept != tc.kept || j.Dropped != tc.dropped {
			t.Fatalf("%s: report %+v", tc.policy, j)
		}
		if (len(ans.Blocks) == 0) != tc.noBlocks {
			t.Fatalf("%s: %d context blocks", tc.policy, len(ans.Blocks))
		}
	}
}
