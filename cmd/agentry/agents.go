package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/suggest"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
)

// registryOptions is what validation needs to know beyond the files themselves.
func registryOptions(cfg config.Config) registry.Options {
	var remote []string
	for _, a := range cfg.A2A {
		if a.ID != "" { // an id the card gives is known only once it is fetched
			remote = append(remote, a.ID)
		}
	}
	return registry.Options{KnownTools: knownTools(cfg), Disabled: cfg.Permissions.DisabledAgents, Remote: remote}
}

// checkFolder refuses a folder the command must read that is not one: a
// configuration no command can use (exit 2), whichever command was given it.
// what is the folder's configuration key and flag; a folder that does not
// exist (a first run in an empty directory) says how to name one.
func checkFolder(what, dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return configError{fmt.Errorf("%s folder %q: not a readable folder: it does not exist here; create it, or name another with --%s DIR (or %s: in agentry.yaml)", what, dir, what, what)}
	case err != nil || !info.IsDir():
		return configError{fmt.Errorf("%s folder %q: not a readable folder", what, dir)}
	}
	return nil
}

// openAgents loads the agents folder. With watch, the registry follows the
// folder until close is called; without, it is a one-off snapshot.
func (s *session) openAgents(ctx context.Context, cfg config.Config, watch bool) (reg *registry.Registry, close func() error, err error) {
	if err := checkFolder("agents", cfg.Agents); err != nil {
		return nil, nil, err
	}
	log := slog.New(slog.NewTextHandler(s.stderr, nil))
	if !watch {
		snap, err := folder.Load(cfg.Agents, registryOptions(cfg)) // refuses links out of the folder
		if err != nil {
			return nil, nil, fmt.Errorf("load agents: %w", err)
		}
		reg = registry.New(snap)
		return reg, s.withLibrary(cfg, reg, false, log, nil, nil), nil
	}
	reg = registry.New(nil)
	f, err := folder.Open(cfg.Agents, reg, registryOptions(cfg), log)
	if err != nil {
		return nil, nil, fmt.Errorf("watch agents: %w", err)
	}
	return reg, s.withLibrary(cfg, reg, true, log, f.Close, nil), nil
}

// withLibrary opens the skills and commands library and the installed
// plugins' agents beside the agents (s.lib), and returns what closes both;
// a library that cannot be read is reported and left out, so the agents
// still work.
func (s *session) withLibrary(cfg config.Config, reg *registry.Registry, watch bool, log *slog.Logger, closeAgents func() error, versions *versionRecorder) func() error {
	if closeAgents == nil {
		closeAgents = func() error { return nil }
	}
	cat, folders, closeLib, err := openLibrary(cfg, reg, watch, log, versions)
	if err != nil {
		fmt.Fprintf(s.stderr, "agentry: warning: skills and plugins not loaded: %v\n", err)
		return closeAgents
	}
	s.lib, s.libFolders = cat, folders
	return func() error { return errors.Join(closeLib(), closeAgents()) }
}

// checkRunnable says why name cannot be run, before anything is recorded:
// the problems of its broken file (file, line, reason), or that no agent has
// that name, with the nearest names.
func checkRunnable(snap *registry.Snapshot, name string) error {
	if _, ok := snap.Agent(name); ok {
		return nil
	}
	var broken []string
	for _, p := range snap.ProblemsFor(name) {
		if p.Severity == registry.SeverityError {
			broken = append(broken, p.Error())
		}
	}
	if len(broken) > 0 {
		return fmt.Errorf("agent %q cannot run: its file is broken:\n  %s", name, strings.Join(broken, "\n  "))
	}
	var known []string
	for _, a := range snap.Agents() {
		if a.DisplayName != "" && strings.EqualFold(a.DisplayName, name) {
			return fmt.Errorf("unknown agent %q: that is the display name of %s; run it by its id", name, a.Name)
		}
		known = append(known, a.Name)
	}
	if hint := suggest.DidYouMean(name, known, ""); hint != "" {
		return fmt.Errorf("unknown agent %q%s", name, hint)
	}
	if len(known) == 0 {
		return fmt.Errorf("unknown agent %q: the agents folder has no agents", name)
	}
	if len(known) > 12 {
		known = append(known[:12], "...")
	}
	return fmt.Errorf("unknown agent %q (agents: %s)", name, strings.Join(known, ", "))
}

// checkStart is checkRunnable for the root of a run, which must also be
// enabled (enabled: false or permissions.disabled_agents refuse it), and
// whose explicitly chosen model, if any, must be usable here.
func (s *session) checkStart(snap *registry.Snapshot, cfg config.Config, name, modelSpec string) error {
	if err := checkRunnable(snap, name); err != nil {
		return err
	}
	a, _ := snap.Agent(name)
	if dec := cfg.DelegationPolicy().Runnable(a.Permissions()); !dec.Allowed {
		return fmt.Errorf("agent %q cannot run: %s", name, dec.Reason)
	}
	if modelSpec == "" {
		return nil
	}
	return s.checkModel(cfg, modelSpec)
}

// checkModel says why --model SPEC cannot be used here.
func (s *session) checkModel(cfg config.Config, modelSpec string) error {
	providers := modelProviders(cfg, s.getenv)
	if _, reasons := model.Check([]string{modelSpec}, cfg.Models.Aliases, providers); len(reasons) > 0 {
		return errors.New("--model: " + reasons[0] + modelHint(modelSpec, cfg.Models.Aliases, providers))
	}
	return nil
}

// modelHint is the "did you mean" of a misspelt model: a bare name near a
// provider that takes none (demo) or a configured alias, or a provider
// near a known one.
func modelHint(spec string, aliases map[string]string, providers model.Providers) string {
	if provider, _, ok := strings.Cut(spec, ":"); ok {
		if _, known := providers[provider]; known {
			return ""
		}
		return suggest.DidYouMean(provider, slices.Sorted(maps.Keys(providers)), "")
	}
	if _, err := model.Resolve(spec, aliases, providers); !errors.Is(err, model.ErrUnknownName) {
		return ""
	}
	return suggest.DidYouMean(spec, append(slices.Sorted(maps.Keys(aliases)), "demo"), "")
}

// agentIDs are the ids of the agents cmd's configuration names.
func (s *session) agentIDs(cmd *cobra.Command) ([]string, error) {
	o, err := s.open(cmd, agentsFolder)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	var ids []string
	for _, a := range o.reg.Snapshot().Agents() {
		ids = append(ids, a.Name)
	}
	return ids, nil
}

// duplicateNotes say, for every id that several files define, which file
// is used and why, so nobody wonders which file ran.
func duplicateNotes(snap *registry.Snapshot) []string {
	var notes []string
	for _, a := range snap.Agents() {
		if d, ok := snap.Duplicates(a.Name); ok {
			notes = append(notes, fmt.Sprintf("%d files define %s: using %s (%s); ignoring %s",
				len(d.Ignored)+1, d.ID, d.Served, d.Reason, strings.Join(d.Ignored, ", ")))
		}
	}
	return notes
}
