package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/core"
)

// validateCommand checks every agent file. Exit 0: no errors (warnings are
// fine); 1: at least one error; 2: bad usage or an unreadable folder.
func validateCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("validate")
	asJSON := fs.Bool("json", false, "print problems as JSON")
	rest, code, ok := s.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return s.usageError(fs, "unexpected argument %q", rest[0])
	}
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	reg, closeAgents, err := s.openAgents(ctx, cfg, false)
	if err != nil {
		fmt.Fprintf(s.stderr, "agentry: %s\n", err)
		return 2
	}
	defer closeAgents()
	snap := reg.Snapshot()
	problems := append(snap.Problems(), s.modelProblems(fs, cfg, snap)...)
	var lib *registry.Library
	if s.lib != nil { // skills, commands and the agents' skills: entries (docs/skills.md)
		lib = s.lib.Snapshot()
		problems = append(append(problems, lib.Problems()...), registry.CheckSkills(snap, lib)...)
	}
	sortProblems(problems)
	if *asJSON {
		if problems == nil {
			problems = []registry.Problem{}
		}
		enc := json.NewEncoder(s.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(problems)
	} else {
		printProblems(s, snap, lib, problems)
	}
	for _, p := range problems {
		if p.Severity == registry.SeverityError {
			return 1
		}
	}
	return 0
}

func printProblems(s *session, snap *registry.Snapshot, lib *registry.Library, problems []registry.Problem) {
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
