package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagHelpNamesNoValueFromBackquotes: cobra takes a back-quoted word in a flag's usage as
// the name of its value, so "as `asof ask` does" rendered "--summaries asof ask" in eval's
// help. No flag of any command names its value with more than one word.
func TestFlagHelpNamesNoValueFromBackquotes(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(f); strings.ContainsAny(name, " \t") {
				t.Errorf("asof %s --%s: its help names the value %q (a back-quoted phrase in its usage)", c.CommandPath(), f.Name, name)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.PersistentFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
	code, out, _ := runCLI(t, nil, "eval", "--help")
	if code != 0 || strings.Contains(out, "--summaries asof ask") || !strings.Contains(out, `as "asof ask" does`) {
		t.Errorf("eval --help renders --summaries as:\n%s", out)
	}
}

// TestScheduleCreateHelpStatesTheAsOf: schedule create's --as-of says what each run answers as
// of and that today is the default.
func TestScheduleCreateHelpStatesTheAsOf(t *testing.T) {
	code, out, _ := runCLI(t, nil, "schedule", "create", "--help")
	if code != 0 || !strings.Contains(out, "--as-of string") || !strings.Contains(out, "today (the run's own day in --time-zone) or latest") || !strings.Contains(out, `(default "today")`) {
		t.Errorf("schedule create --help:\n%s", out)
	}
}
