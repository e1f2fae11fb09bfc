package main

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/web/core"
)

// validateCommand checks every agent file. Exit 0: no errors (warnings are
// fine); 1: at least one error; 2: bad usage or an unreadable folder.
func (s *session) validateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "check the agent files and report problems",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := s.open(cmd, agentsFolder)
			if err != nil {
				return configError{err} // the configuration, or the agents folder: exit 2
			}
			defer o.Close()
			cfg, snap := o.cfg, o.reg.Snapshot()
			s.recordVersionsIfStored(cmd.Context(), cfg, snap)
			problems := append(snap.Problems(), s.modelProblems(cfg, snap)...)
			var lib *skills.Library
			if s.lib != nil { // skills, commands and the agents' skills: entries (docs/skills.md)
				lib = s.lib.Snapshot()
				problems = append(append(problems, lib.Problems()...), skills.CheckAgents(snap, lib)...)
			}
			sortProblems(problems)
			s.jsonOrText(cmd, orEmpty(problems), func() { printProblems(s, snap, lib, problems) })
			for _, p := range problems {
				if p.Severity == registry.SeverityError {
					return exitCode(1)
				}
			}
			return nil
		},
	}
	jsonFlag(cmd.Flags(), nil, "print problems as JSON")
	addConfigFlags(cmd.Flags(), "agents")
	return cmd
}

func printProblems(s *session, snap *registry.Snapshot, lib *skills.Library, problems []registry.Problem) {
	errors, warnings := 0, 0
	for _, p := range problems {
		fmt.Fprintf(s.stdout, "%s %s\n", p.Severity, p.Error())
		if p.Severity == registry.SeverityError {
			errors++
		} else {
			warnings++
		}
	}
	files, more := len(snap.Files()), ""
	if lib != nil && len(lib.Files()) > 0 {
		files += len(lib.Files())
		more = ", " + core.Count(len(lib.Skills()), "skill") + ", " + core.Count(len(lib.Commands()), "command")
	}
	fmt.Fprintf(s.stdout, "%s%s in %s: %s, %s\n", core.Count(len(snap.Agents()), "agent"), more, core.Count(files, "file"),
		core.Count(errors, "error"), core.Count(warnings, "warning"))
}

// sortProblems orders problems by file and line, so the model warnings
// validate adds sit among the registry's own.
func sortProblems(problems []registry.Problem) {
	sort.SliceStable(problems, func(i, j int) bool {
		a, b := problems[i], problems[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
}
