package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/asofrag/asof/internal/suggest"
)

// flagAliases are names people type for a flag that has another name.
var flagAliases = map[string]string{"asof": "as-of", "date": "as-of", "day": "as-of", "as-of-date": "as-of", "anchor": "as-of"}

// flagError rewrites pflag's "unknown flag: --asof" into one line that names the command and
// the flag meant, when one is near.
func flagError(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	if near := nearestFlag(cmd, name); near != "" {
		return fmt.Errorf("unknown flag --%s for %q: did you mean --%s?", name, cmd.CommandPath(), near)
	}
	return fmt.Errorf("unknown flag --%s for %q (see %s --help)", name, cmd.CommandPath(), cmd.CommandPath())
}

// nearestFlag is the flag of cmd that name most likely meant: an alias, else
// suggest.Nearest of the flag names; "" when none.
func nearestFlag(cmd *cobra.Command, name string) string {
	if to, ok := flagAliases[name]; ok && cmd.Flags().Lookup(to) != nil {
		return to
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return suggest.Nearest(name, names)
}

var unknownCommandRE = regexp.MustCompile(`^unknown command "([^"]*)" for "([^"]*)"`)

// unknownCommand rewrites cobra's unknown-command error (a paragraph with a tab-indented
// suggestion list) into one line with the commands meant.
func unknownCommand(root *cobra.Command, err error) error {
	m := unknownCommandRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	typed := m[1]
	msg := fmt.Sprintf("unknown command %q for %q", typed, m[2])
	if s := root.SuggestionsFor(typed); len(s) > 0 {
		return errors.New(msg + ": did you mean " + strings.Join(s, " or ") + "? (asof --help lists the commands)")
	}
	return errors.New(msg + " (asof --help lists the commands)")
}
