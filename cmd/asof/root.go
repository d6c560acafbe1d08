package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/models"
)

// app carries the loaded configuration and output streams to every command.
type app struct {
	cfg    config.Config
	stdout io.Writer
	stderr io.Writer
	// flagSetters apply the flags a user actually typed, after file and environment.
	flagSetters []func(fs *pflag.FlagSet, c *config.Config) error
	cfgFile     string
	// modelSource names where embed.model was set ("--embed-model", "ASOF_EMBED_MODEL",
	// "embed.model in FILE"), for the line that says which model embeds; "" when unset.
	modelSource string
	// stackUI is the Web UI of the running stack this command uses (attachStack); "" when none.
	stackUI string
	// stackWorkerless is set when that stack runs no worker (asof server): the command then
	// runs one itself, as it would on its own embedded server.
	stackWorkerless bool
	// stackBy names the command that runs that stack ("asof dev"); "" when none.
	stackBy string
	// serving is set by asof serve, whose worker answers every index (followIndexes).
	serving bool
}

const rootLong = `asof answers questions "as of" a date over dated document streams (news and
Telegram channels, parliamentary records, regulatory circulars): it uses only what was
published by that date, prefers what was fresh then, and keeps the history that explains it.
Pipelines run as durable Temporal workflows; artifacts live in S3-compatible storage.

Configuration is read in layers, each overriding the one before:
  built-in defaults  <  --config FILE (YAML)  <  ASOF_* environment  <  command-line flags
Run 'asof config' to see the result. With no --temporal and no --store, asof starts an
embedded Temporal server (SQLite file) and an embedded S3 gateway under --data-dir.`

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	a := &app{cfg: config.Default(), stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "asof",
		Short:         "Temporal RAG that answers as of a date",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.load(cmd)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	def := config.Default()
	pf := root.PersistentFlags()
	pf.StringVar(&a.cfgFile, "config", "", "YAML config file (env ASOF_CONFIG)")
	a.str(pf, "data-dir", def.DataDir, "folder for the embedded server's SQLite file, the embedded S3 data and models", func(c *config.Config, v string) { c.DataDir = v })
	a.str(pf, "temporal", "", "Temporal frontend host:port; empty starts the embedded server", func(c *config.Config, v string) { c.Temporal.Address = v })
	a.str(pf, "namespace", def.Temporal.Namespace, "Temporal namespace", func(c *config.Config, v string) { c.Temporal.Namespace = v })
	a.str(pf, "store", "", "artifact store: s3://bucket/prefix, file:///path; empty starts the embedded S3 gateway", func(c *config.Config, v string) { c.Store.URL = v })
	a.str(pf, "s3-endpoint", "", "custom S3 endpoint (MinIO, versitygw, ...); implies path-style", func(c *config.Config, v string) { c.Store.Endpoint = v })
	a.str(pf, "s3-region", "", "S3 region (default: from the AWS config chain, else us-east-1)", func(c *config.Config, v string) { c.Store.Region = v })
	a.str(pf, "model-dir", "", "folder for embedding models (default: <data-dir>/models when it holds the model, else the shared cache <user cache dir>/asof/models, where models are pulled)", func(c *config.Config, v string) { c.ModelDir = v })
	a.str(pf, "log-format", def.LogFormat, "text (for people) or json (one JSON object a line, for log collectors): asof's own log and the Temporal SDK's", func(c *config.Config, v string) { c.LogFormat = v })
	a.str(pf, "log-level", def.LogLevel, "debug, info, warn or error: asof's own log, the Temporal SDK's (client and worker) and the embedded servers' (Temporal's log file, versitygw's request log at debug)", func(c *config.Config, v string) { c.LogLevel = v })

	root.AddCommand(newDevCmd(a), newServerCmd(a), usesStack(newWorkerCmd(a)), usesStack(newIndexCmd(a)), usesStack(newIndexesCmd(a)),
		usesStack(newAskCmd(a)), usesStack(newEvalCmd(a)), usesStack(newTuneCmd(a)), usesStack(newDemoCmd(a)), usesStack(newDigestCmd(a)),
		usesStack(newAnswersCmd(a)), usesStack(newEvalsCmd(a)), usesStack(newScheduleCmd(a)), usesStack(newDocsCmd(a)), usesStack(newTimelineCmd(a)), usesStack(newQuarantineCmd(a)), usesStack(newServeCmd(a)), newModelsCmd(a), newConfigCmd(a), usesStack(newPingCmd(a)), newNamespaceCmd(a), newVersionCmd(a))
	return root
}

// pathFlags are the commands' flags that name local files or folders (besides --data-dir and
// --model-dir): they are made absolute before anything starts, because the embedded S3 gateway
// changes the process's working directory (infra/s3gw), and "--out out" would otherwise be
// written inside the store's folder.
var pathFlags = []string{"out", "corpus", "questions", "qrels", "queries", "study", "topics", "timelines"}

// absPathFlags makes the set pathFlags of fs absolute; URLs (s3://, file://) stay as given.
func absPathFlags(fs *pflag.FlagSet) error {
	abs := func(v string) (string, error) {
		if v == "" || strings.Contains(v, "://") {
			return v, nil
		}
		return filepath.Abs(v)
	}
	for _, name := range pathFlags {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vs := sv.GetSlice()
			for i := range vs {
				var err error
				if vs[i], err = abs(vs[i]); err != nil {
					return fmt.Errorf("--%s %s: %w", name, vs[i], err)
				}
			}
			if err := sv.Replace(vs); err != nil {
				return fmt.Errorf("--%s: %w", name, err)
			}
			continue
		}
		v, err := abs(f.Value.String())
		if err != nil {
			return fmt.Errorf("--%s %s: %w", name, f.Value.String(), err)
		}
		if err := f.Value.Set(v); err != nil {
			return fmt.Errorf("--%s: %w", name, err)
		}
	}
	return nil
}

// load builds the effective configuration: defaults, file, environment, then typed flags.
func (a *app) load(cmd *cobra.Command) error {
	c := config.Default()
	file := a.cfgFile
	if file == "" {
		file = os.Getenv("ASOF_CONFIG")
	}
	if file != "" {
		if err := c.LoadFile(file); err != nil {
			return err
		}
	}
	if err := c.ApplyEnv(os.LookupEnv); err != nil {
		return err
	}
	for _, set := range a.flagSetters {
		if err := set(cmd.Flags(), &c); err != nil {
			return err
		}
	}
	if err := c.Validate(); err != nil {
		return err
	}
	a.modelSource = modelSource(cmd.Flags(), c, file)
	// Paths are relative to where the user stands now; the embedded S3 gateway changes the
	// process's working directory later (see infra/s3gw).
	abs, err := filepath.Abs(c.DataDir)
	if err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	c.DataDir = abs
	if c.ModelDir != "" {
		if c.ModelDir, err = filepath.Abs(c.ModelDir); err != nil {
			return fmt.Errorf("model dir: %w", err)
		}
	}
	if err := absPathFlags(cmd.Flags()); err != nil {
		return err
	}
	a.cfg = c
	slog.SetDefault(infra.NewLogger(a.stderr, c))
	if wantsStack(cmd) {
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		return a.attachStack(ctx)
	}
	return nil
}

// modelSource names the layer that set embed.model: the flag, the environment or the config
// file; "" when none did (the command then follows the index, or takes the default).
func modelSource(fs *pflag.FlagSet, c config.Config, file string) string {
	switch {
	case c.Embed.Model == "":
		return ""
	case fs.Lookup("embed-model") != nil && fs.Lookup("embed-model").Changed:
		return "--embed-model"
	case os.Getenv("ASOF_EMBED_MODEL") != "":
		return "ASOF_EMBED_MODEL"
	}
	return "embed.model in " + file
}

func (a *app) str(fs *pflag.FlagSet, name, def, usage string, set func(*config.Config, string)) {
	fs.String(name, def, usage)
	a.flagSetters = append(a.flagSetters, func(f *pflag.FlagSet, c *config.Config) error {
		if fl := f.Lookup(name); fl != nil && fl.Changed {
			set(c, fl.Value.String())
		}
		return nil
	})
}

func (a *app) num(fs *pflag.FlagSet, name string, def int, usage string, set func(*config.Config, int)) {
	fs.Int(name, def, usage)
	a.flagSetters = append(a.flagSetters, func(f *pflag.FlagSet, c *config.Config) error {
		if fl := f.Lookup(name); fl != nil && fl.Changed {
			v, err := f.GetInt(name)
			if err != nil {
				return err
			}
			set(c, v)
		}
		return nil
	})
}

func (a *app) list(fs *pflag.FlagSet, name string, def []string, usage string, set func(*config.Config, []string)) {
	fs.String(name, strings.Join(def, ","), usage)
	a.flagSetters = append(a.flagSetters, func(f *pflag.FlagSet, c *config.Config) error {
		if fl := f.Lookup(name); fl != nil && fl.Changed {
			set(c, config.SplitList(fl.Value.String()))
		}
		return nil
	})
}

func (a *app) dur(fs *pflag.FlagSet, name string, def time.Duration, usage string, set func(*config.Config, time.Duration)) {
	fs.Duration(name, def, usage)
	a.flagSetters = append(a.flagSetters, func(f *pflag.FlagSet, c *config.Config) error {
		if fl := f.Lookup(name); fl != nil && fl.Changed {
			v, err := f.GetDuration(name)
			if err != nil {
				return err
			}
			set(c, v)
		}
		return nil
	})
}

// embeddedFlags adds the ports of the embedded servers to cmd (the Web UI's when ui is set).
func (a *app) embeddedFlags(cmd *cobra.Command, ui bool) {
	def := config.Default()
	fs := cmd.Flags()
	a.num(fs, "temporal-port", def.Temporal.Port, "port of the embedded Temporal frontend (127.0.0.1 only)", func(c *config.Config, v int) { c.Temporal.Port = v })
	a.num(fs, "s3-port", def.Store.GatewayPort, "port of the embedded S3 gateway (127.0.0.1 only)", func(c *config.Config, v int) { c.Store.GatewayPort = v })
	if !ui {
		return
	}
	a.num(fs, "ui-port", def.Temporal.UIPort, "port of the Temporal Web UI (127.0.0.1 only; 0 disables it)", func(c *config.Config, v int) { c.Temporal.UIPort = v })
}

// embedFlags adds the embedding model and backend settings to cmd.
func (a *app) embedFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	a.modelFlag(cmd)
	a.llmFlag(cmd)
	a.str(fs, "embed-backend", "auto", "embedding backend: auto (ONNX Runtime when built in and loadable, else pure Go), go, ort, or openai (a server at embed.base_url / ASOF_EMBED_BASE_URL)", func(c *config.Config, v string) { c.Embed.Backend = v })
	a.str(fs, "embed-device", "cpu", "embedding device: cpu, or cuda (ONNX Runtime's CUDA provider, after make setup-ort-gpu)", func(c *config.Config, v string) { c.Embed.Device = v })
	a.num(fs, "embed-threads", 0, "ONNX Runtime threads per model call (0: 1; calls at once = cores/threads, and one command spreads its batches over them)", func(c *config.Config, v int) { c.Embed.Threads = v })
	a.num(fs, "embed-batch-size", 0, "most texts per local model call (0: 16) or per server request (0: 32)", func(c *config.Config, v int) { c.Embed.BatchSize = v })
	a.num(fs, "embed-batch-tokens", 0, "most padded tokens per local model call, texts sorted by length first (0: 2048)", func(c *config.Config, v int) { c.Embed.BatchTokens = v })
}

// rerankFlags adds the reranker settings to cmd (docs/retrieval.md, "Reranking"); they
// configure the worker the command runs in process, or serves.
func (a *app) rerankFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	a.str(fs, "rerank-url", "", "rerank answers with a server speaking the rerank API at this root (POST <url>/rerank: TEI, vLLM, llama.cpp, Jina, Cohere, Voyage); off by default", func(c *config.Config, v string) { c.Rerank.BaseURL = v })
	a.str(fs, "rerank-api", "", "the rerank server's request shape: cohere (default; also Jina, vLLM, llama.cpp), voyage or tei", func(c *config.Config, v string) { c.Rerank.API = v })
	a.str(fs, "rerank-model", "", "with --rerank-url the model name the server serves; without it, a cross-encoder model folder (ONNX + tokenizer.json) run in process", func(c *config.Config, v string) { c.Rerank.Model = v })
	a.num(fs, "rerank-top", 0, "how many of the ranking's first results are reranked (0: 50)", func(c *config.Config, v int) { c.Rerank.Top = v })
	a.str(fs, "rerank-fuse", "", "rrf (default: the reranker's rank is one more list of the fusion, so the time preference stays) or replace (the reranker's order)", func(c *config.Config, v string) { c.Rerank.Fuse = v })
}

// modelFlag adds --embed-model to cmd.
func (a *app) modelFlag(cmd *cobra.Command) {
	a.str(cmd.Flags(), "embed-model", "", "embedding model: a catalogue id (asof models list), a model folder, or with --embed-backend openai the server's model name (default: the model an existing index was built with; for a new index "+models.DefaultID+" on ONNX Runtime, "+models.FloatDefaultID+" on pure Go)", func(c *config.Config, v string) { c.Embed.Model = v })
}

// llmFlag adds --llm local[:MODEL]: the worker this command runs (or is) judges and writes
// with a local model, llama.cpp's server started as its child (llm.local).
func (a *app) llmFlag(cmd *cobra.Command) {
	cmd.Flags().String("llm", "", "write summaries with a local language model: local (the default, "+models.DefaultLLM+") or local:MODEL (asof models list); after make setup-llm. The offline heuristic still judges (it measured better than the local models; --judge llm has the model judge too). An OpenAI-compatible endpoint is llm.base_url instead")
	a.flagSetters = append(a.flagSetters, func(f *pflag.FlagSet, c *config.Config) error {
		if fl := f.Lookup("llm"); fl != nil && fl.Changed {
			v, err := config.ParseLLMFlag(fl.Value.String())
			if err != nil {
				return err
			}
			c.LLM.Local = v
		}
		return nil
	})
}

// workerFlags adds worker settings to cmd.
func (a *app) workerFlags(cmd *cobra.Command) {
	def := config.Default()
	fs := cmd.Flags()
	a.list(fs, "task-queues", def.Worker.TaskQueues, "comma-separated task queues to poll", func(c *config.Config, v []string) { c.Worker.TaskQueues = v })
	a.num(fs, "max-concurrent-activities", 0, "activities run at once per queue (0: SDK default)", func(c *config.Config, v int) { c.Worker.MaxConcurrentActivities = v })
	a.dur(fs, "shutdown-timeout", def.Worker.ShutdownTimeout, "time running activities get to finish on stop", func(c *config.Config, v time.Duration) { c.Worker.ShutdownTimeout = v })
	a.embedFlags(cmd)
	a.rerankFlags(cmd)
}

func printf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, format, args...) }
