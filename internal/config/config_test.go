package config

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestDefaultIsValid(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if !c.Temporal.Embedded() || !c.Store.Embedded() {
		t.Fatal("default config must run everything embedded")
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{"ok external", func(c *Config) { c.Temporal.Address = "10.0.0.1:7233"; c.Store.URL = "s3://b/p" }, ""},
		{"address without port", func(c *Config) { c.Temporal.Address = "temporal" }, "must be host:port"},
		{"bad store scheme", func(c *Config) { c.Store.URL = "gs://bucket" }, "use s3://"},
		{"plain path store", func(c *Config) { c.Store.URL = "/data/store" }, ""},
		{"port out of range", func(c *Config) { c.Temporal.Port = 70000 }, "not a TCP port"},
		{"unknown queue", func(c *Config) { c.Worker.TaskQueues = []string{"asof-gpu"} }, `unknown queue "asof-gpu"`},
		{"no queue", func(c *Config) { c.Worker.TaskQueues = nil }, "at least one queue"},
		{"bad log level", func(c *Config) { c.LogLevel = "loud" }, "log_level"},
		{"bad log format", func(c *Config) { c.LogFormat = "xml" }, "log_format"},
		{"json logs", func(c *Config) { c.LogFormat = "json" }, ""},
		{"metrics on loopback", func(c *Config) { c.MetricsAddr = "127.0.0.1:9464" }, ""},
		{"metrics on every interface", func(c *Config) { c.MetricsAddr = ":9464" }, ""},
		{"metrics without port", func(c *Config) { c.MetricsAddr = "127.0.0.1" }, "metrics_addr"},
		{"empty namespace", func(c *Config) { c.Temporal.Namespace = "" }, "namespace"},
		{"openai ok", func(c *Config) {
			c.Embed.Backend, c.Embed.BaseURL, c.Embed.Model = "openai", "http://127.0.0.1:8000/v1", "multilingual-e5-small-q4"
		}, ""},
		{"openai without url", func(c *Config) { c.Embed.Backend, c.Embed.Model = "openai", "m" }, "needs embed.base_url"},
		{"openai without model", func(c *Config) { c.Embed.Backend, c.Embed.BaseURL = "openai", "http://h/v1" }, "needs embed.model"},
		{"openai on cuda", func(c *Config) {
			c.Embed.Backend, c.Embed.BaseURL, c.Embed.Model, c.Embed.Device = "openai", "http://h/v1", "m", "cuda"
		}, "a server chooses its own device"},
		{"url without openai", func(c *Config) { c.Embed.BaseURL = "http://h/v1" }, "set embed.backend (--embed-backend) to openai"},
		{"unknown backend", func(c *Config) { c.Embed.Backend = "tei" }, "use auto, go, ort or openai"},
		{"negative batch", func(c *Config) { c.Embed.BatchTokens = -1 }, "must not be negative"},
		{"rerank server", func(c *Config) { c.Rerank.BaseURL, c.Rerank.Model = "http://127.0.0.1:8000/v1", "bge-reranker-v2-m3" }, ""},
		{"rerank tei needs no model", func(c *Config) { c.Rerank.BaseURL, c.Rerank.API = "http://127.0.0.1:8080", "tei" }, ""},
		{"rerank local folder", func(c *Config) { c.Rerank.Model, c.Rerank.Fuse = "/models/ms-marco-MiniLM-L-6-v2", "replace" }, ""},
		{"rerank server without model", func(c *Config) { c.Rerank.BaseURL = "http://127.0.0.1:8000/v1" }, "needs rerank.model"},
		{"rerank unknown api", func(c *Config) { c.Rerank.BaseURL, c.Rerank.Model, c.Rerank.API = "http://h", "m", "openai" }, "rerank.api"},
		{"rerank unknown fuse", func(c *Config) { c.Rerank.Model, c.Rerank.Fuse = "/m", "max" }, "rerank.fuse"},
		{"rerank negative top", func(c *Config) { c.Rerank.Model, c.Rerank.Top = "/m", -1 }, "rerank.top"},
		{"llm slots", func(c *Config) { c.LLM.Local, c.LLM.Slots = LocalDefault, 2 }, ""},
		{"llm slots negative", func(c *Config) { c.LLM.Slots = -1 }, "llm.slots (ASOF_LLM_SLOTS) -1: use 1 to 16"},
		{"llm slots too many", func(c *Config) { c.LLM.Slots = MaxLLMSlots + 1 }, "llm.slots (ASOF_LLM_SLOTS) 17"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(&c)
			err := c.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
			}
		})
	}
}

func TestApplyEnv(t *testing.T) {
	env := map[string]string{
		"ASOF_TEMPORAL":             "tmprl:7233",
		"ASOF_STORE":                "s3://bkt/pre",
		"ASOF_S3_ENDPOINT":          "http://127.0.0.1:9000",
		"ASOF_S3_PATH_STYLE":        "true",
		"ASOF_S3_SECRET_ACCESS_KEY": "s3cr3t",
		"ASOF_TEMPORAL_PORT":        "17233",
		"ASOF_TASK_QUEUES":          " asof-embed, ,asof-llm ",
		"ASOF_EMBED_MODEL":          "e5-small-v2-q",
		"ASOF_EMBED_TIMEOUT":        "90s",
		"ASOF_EMBED_BATCH_TOKENS":   "2048",
		"ASOF_RERANK_BASE_URL":      "http://127.0.0.1:8080",
		"ASOF_RERANK_API":           "tei",
		"ASOF_RERANK_TOP":           "30",
		"ASOF_RERANK_FUSE":          "replace",
		"ASOF_RERANK_WEIGHT":        "0.5",
		"ASOF_RERANK_TIMEOUT":       "5s",
		"ASOF_METRICS_ADDR":         "127.0.0.1:9464",
		"ASOF_LLM_SLOTS":            "2",
	}
	c := Default()
	if err := c.ApplyEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	if c.Temporal.Address != "tmprl:7233" || c.Store.URL != "s3://bkt/pre" || !c.Store.PathStyle ||
		c.Temporal.Port != 17233 || strings.Join(c.Worker.TaskQueues, ",") != "asof-embed,asof-llm" ||
		c.Embed.Model != "e5-small-v2-q" || c.Embed.Timeout != 90*time.Second || c.Embed.BatchTokens != 2048 ||
		c.Rerank.BaseURL != "http://127.0.0.1:8080" || c.Rerank.API != "tei" || c.Rerank.Top != 30 || c.Rerank.Fuse != "replace" ||
		c.Rerank.Weight != 0.5 || c.Rerank.Timeout != 5*time.Second || !c.Rerank.Enabled() || c.Rerank.Local() ||
		c.MetricsAddr != "127.0.0.1:9464" || c.LLM.Slots != 2 {
		t.Fatalf("env not applied: %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}

	for name, bad := range map[string]string{"ASOF_TEMPORAL_PORT": "seven", "ASOF_S3_PATH_STYLE": "maybe", "ASOF_EMBED_TIMEOUT": "soon", "ASOF_RERANK_WEIGHT": "heavy"} {
		c := Default()
		err := c.ApplyEnv(func(k string) (string, bool) { return bad, k == name })
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: err = %v, want one naming the variable", name, bad, err)
		}
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("temporal:\n  address: host:7233\nstore:\n  url: file:///srv/asof\nworker:\n  shutdown_timeout: 30s\n"), 0o644)
	c := Default()
	if err := c.LoadFile(good); err != nil {
		t.Fatal(err)
	}
	if c.Temporal.Address != "host:7233" || c.Store.URL != "file:///srv/asof" || c.Worker.ShutdownTimeout.Seconds() != 30 {
		t.Fatalf("file not applied: %+v", c)
	}
	if c.Temporal.Namespace != "default" {
		t.Fatalf("file cleared an unrelated default: namespace %q", c.Temporal.Namespace)
	}

	typo := filepath.Join(dir, "typo.yaml")
	os.WriteFile(typo, []byte("temporal:\n  adress: host:7233\n"), 0o644)
	if err := c.LoadFile(typo); err == nil || !strings.Contains(err.Error(), "adress") {
		t.Fatalf("typo: err = %v, want one naming the unknown key", err)
	}
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, nil, 0o644)
	if err := c.LoadFile(empty); err != nil {
		t.Fatalf("empty file: %v", err)
	}
	if err := c.LoadFile(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestRedacted(t *testing.T) {
	c := Default()
	c.Store.AccessKeyID = "AKIA"
	c.Store.SecretAccessKey = "very-secret"
	out := c.Redacted().YAML()
	if strings.Contains(out, "very-secret") || !strings.Contains(out, "***") {
		t.Fatalf("secret not redacted:\n%s", out)
	}
	if c.Store.SecretAccessKey != "very-secret" {
		t.Fatal("Redacted changed the original")
	}
}

// TestURLCredentials: credentials written inside an address are masked wherever the
// configuration is printed, and refused where asof would not use them (a store URL or S3
// endpoint: keys come from ASOF_S3_*), the refusal itself masked.
func TestURLCredentials(t *testing.T) {
	c := Default()
	c.Store.Endpoint = "https://minio:endpoint-secret@minio.local:9000"
	c.Temporal.Address = "temporal.local:7233"
	c.LLM.BaseURL = "http://user:llm-secret@127.0.0.1:8000/v1"
	c.Rerank.BaseURL, c.Rerank.Model = "http://127.0.0.1:8080?api_key=rerank-secret", "m"
	c.Embed.Backend, c.Embed.BaseURL, c.Embed.Model = "openai", "https://embed-secret@h/v1", "m"
	out := c.Redacted().YAML()
	for _, secret := range []string{"endpoint-secret", "llm-secret", "rerank-secret", "embed-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s printed:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"https://minio:***@minio.local:9000", "http://user:***@127.0.0.1:8000/v1", "temporal.local:7233"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%s not shown:\n%s", kept, out)
		}
	}
	if c.LLM.BaseURL != "http://user:llm-secret@127.0.0.1:8000/v1" {
		t.Error("Redacted changed the original")
	}
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{"store url with keys", func(c *Config) { c.Store.URL = "s3://AKIA:store-secret@bucket/p" }, `store.url (--store) "s3://AKIA:***@bucket/p" holds credentials`},
		{"endpoint with keys", func(c *Config) { c.Store.Endpoint = "http://k:store-secret@minio:9000" }, "ASOF_S3_SECRET_ACCESS_KEY"},
		{"temporal with keys", func(c *Config) { c.Temporal.Address = "u:store-secret@temporal:7233" }, `"u:***@temporal:7233" must be host:port`},
		{"bad scheme with keys", func(c *Config) { c.Store.URL = "gs://k:store-secret@bucket" }, "use s3://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "store-secret") {
				t.Fatalf("err = %v, want it to say %q without the secret", err, tt.wantErr)
			}
		})
	}
}

// TestModelDirs: a fresh data dir reads a model from the shared cache (the user cache dir's
// asof/models, here under a temporary XDG_CACHE_HOME), where models are pulled; a data dir
// that holds the model itself keeps reading its own copy; --model-dir wins over both.
func TestModelDirs(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir()) // macOS: ~/Library/Caches
	shared := SharedModelsDir()
	if shared == "" {
		t.Fatal("no shared cache dir")
	}
	if runtime.GOOS == "linux" && shared != filepath.Join(cache, "asof", "models") {
		t.Fatalf("SharedModelsDir = %s, want it under XDG_CACHE_HOME %s", shared, cache)
	}
	if err := os.MkdirAll(filepath.Join(shared, "multilingual-e5-small"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Default()
	c.DataDir = filepath.Join(t.TempDir(), "fresh")
	if got := c.ModelsDirFor("multilingual-e5-small"); got != shared {
		t.Errorf("a fresh data dir reads the model from %s, want the shared cache %s", got, shared)
	}
	if got := c.ModelsDir(); got != shared {
		t.Errorf("models are pulled to %s, want the shared cache %s", got, shared)
	}
	if got := c.ModelsDirFor("e5-small-v2"); got != shared {
		t.Errorf("a model pulled nowhere is looked for in %s, want the shared cache %s (where a pull puts it)", got, shared)
	}
	own := filepath.Join(c.DataDir, "models")
	if err := os.MkdirAll(filepath.Join(own, "multilingual-e5-small"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := c.ModelsDirFor("multilingual-e5-small"); got != own {
		t.Errorf("a data dir holding the model reads it from %s, want its own %s", got, own)
	}
	c.ModelDir = filepath.Join(t.TempDir(), "mine")
	if got := c.ModelsDirFor("multilingual-e5-small"); got != c.ModelDir {
		t.Errorf("--model-dir: the model is read from %s, want %s", got, c.ModelDir)
	}
	if got := c.ModelsDir(); got != c.ModelDir {
		t.Errorf("--model-dir: models are pulled to %s, want %s", got, c.ModelDir)
	}
	if got := c.ModelDirs(); len(got) != 1 || got[0] != c.ModelDir {
		t.Errorf("--model-dir: ModelDirs = %v, want it alone", got)
	}
}

// TestLocalProfile: a local LLM gets the local defaults where the configuration leaves a field
// unset, and a set field wins.
func TestLocalProfile(t *testing.T) {
	tests := []struct {
		name string
		in   LLM
		want LLM
	}{
		{"all unset", LLM{}, LLM{Slots: 1, JSONSchema: true, Judge: "heuristic", JudgePerCall: 1, Timeout: LocalLLMTimeout, MaxTokens: LocalLLMMaxTokens}},
		{"set fields win", LLM{Slots: 2, Judge: "llm", JudgePerCall: 8, Timeout: time.Minute, MaxTokens: 256},
			LLM{Slots: 2, JSONSchema: true, Judge: "llm", JudgePerCall: 8, Timeout: time.Minute, MaxTokens: 256}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.LocalProfile(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("LocalProfile = %+v, want %+v", got, tt.want)
			}
		})
	}
}
