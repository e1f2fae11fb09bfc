package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/web/core"
	webskills "github.com/agentry/agentry/web/skills"
)

// Where skills and commands are read from (docs/skills.md): the skills
// folder (skills: in agentry.yaml, by default skills/ beside the agents
// folder), the folders Claude Code, VS Code and other clients keep skills
// and commands in under the workspace (.claude/skills, .github/skills,
// .agents/skills, .claude/commands), and the installed plugins. Earlier
// roots win a name two of them hold.

// libraryRoots lists the roots of the skills and commands library, in the
// order they win, each with its folder made absolute. Roots whose folder
// does not exist are listed too (ownState protects them before they are
// made); openLibrary awaits them when it watches and skips them when not.
func libraryRoots(cfg config.Config) []skills.Root {
	ws := cmp.Or(cfg.Workspace, ".")
	roots := []skills.Root{
		{Label: filepath.ToSlash(cfg.SkillsDir()), Kind: skills.RootSkills, Dir: cfg.SkillsDir()},
		{Label: ".claude/skills", Kind: skills.RootSkills, Dir: filepath.Join(ws, ".claude", "skills")},
		{Label: ".github/skills", Kind: skills.RootSkills, Dir: filepath.Join(ws, ".github", "skills")},
		{Label: ".agents/skills", Kind: skills.RootSkills, Dir: filepath.Join(ws, ".agents", "skills")},
		{Label: ".claude/commands", Kind: skills.RootCommands, Dir: filepath.Join(ws, ".claude", "commands")},
		{Label: filepath.ToSlash(cfg.PluginsDir()), Kind: skills.RootPlugins, Dir: cfg.PluginsDir()},
	}
	var out []skills.Root
	seen := map[string]bool{}
	for _, r := range roots {
		abs, err := filepath.Abs(r.Dir)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		r.Dir = abs
		out = append(out, r)
	}
	return out
}

// openLibrary loads every skills and commands root that exists into a new
// catalog, and the installed plugins' agents into reg. With watch, both
// follow their folders until close is called, roots not made yet included
// (folder.OpenAwaiting: a skill put in a new .claude/skills, or the first
// plugin added, shows without a restart), and folders holds each root's
// Folder by label (the skill editor saves through it); the changes
// of the skills roots' SKILL.md files then become versions when versions
// is not nil.
func openLibrary(cfg config.Config, reg *registry.Registry, watch bool, log *slog.Logger, versions *versionRecorder) (cat *skills.Catalog, folders map[string]*folder.Folder, close func() error, err error) {
	cat, folders = skills.NewCatalog(), map[string]*folder.Folder{}
	var closers []func() error
	closeAll := func() error {
		var errs []error
		for _, c := range closers {
			errs = append(errs, c())
		}
		return errors.Join(errs...)
	}
	var label string
	open := func(dir string, c folder.Contents) error {
		if !watch {
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return nil
			}
			closeFS, err := folder.LoadContents(dir, c)
			if err == nil {
				closers = append(closers, closeFS)
			}
			return err
		}
		f, err := folder.OpenAwaiting(dir, c, folder.Config{Log: log})
		if err == nil {
			closers = append(closers, f.Close)
			if label != "" {
				folders[label] = f
			}
		}
		return err
	}
	for _, r := range libraryRoots(cfg) {
		label = r.Label
		if err := open(r.Dir, versions.skillContents(cat, r)); err != nil {
			closeAll()
			return nil, nil, nil, err
		}
		label = ""
		if r.Kind == skills.RootPlugins && reg != nil {
			if err := open(r.Dir, folder.PluginAgents(reg, r.Dir)); err != nil {
				closeAll()
				return nil, nil, nil, err
			}
		}
	}
	return cat, folders, closeAll, nil
}

// skillsCommand is `agentry skills list`: the Agent Skills agents may be
// given (docs/skills.md).
func (s *session) skillsCommand() *cobra.Command {
	return group("skills COMMAND",
		"list the Agent Skills agents may be given, with the plugin each comes from",
		"agents")
}

// skillsListCommand lists the skills as the runtime serves them, with the
// plugin each comes from.
func (s *session) skillsListCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "list the skills: name, plugin and description (--json: path, root, files too)",
		Args:  noArgs,
		RunE: s.with(configOnly, func(cmd *cobra.Command, args []string, o *opened) error {
			cat, _, closeLib, err := openLibrary(o.cfg, nil, false, nil, nil)
			if err != nil {
				return err
			}
			defer closeLib()
			lib := cat.Snapshot()
			out := []skillJSON{}
			for _, sk := range lib.Skills() {
				out = append(out, skillJSON{ID: sk.ID, Name: sk.Name, Description: sk.Description, Path: sk.Path,
					Plugin: sk.Plugin, Root: sk.Root, Files: len(sk.Files), AllowedTools: sk.AllowedTools})
			}
			return s.jsonOrText(cmd, out, func() { printSkills(s.stdout, lib) })
		}),
	}
	jsonFlag(cmd.Flags(), nil, "print the skills as a JSON list: [{id, name, description, path, plugin, root, files}]")
	return cmd
}

// skillIDs are the ids of the skills the configuration's library serves.
func (s *session) skillIDs(cmd *cobra.Command) ([]string, error) {
	cfg, err := s.loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	cat, _, closeLib, err := openLibrary(cfg, nil, false, nil, nil)
	if err != nil {
		return nil, err
	}
	defer closeLib()
	var ids []string
	for _, sk := range cat.Snapshot().Skills() {
		ids = append(ids, sk.ID)
	}
	return ids, nil
}

// skillJSON is one skill as skills list --json prints it.
type skillJSON struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Path         string   `json:"path"`
	Plugin       string   `json:"plugin"`
	Root         string   `json:"root"`
	Files        int      `json:"files"`
	AllowedTools []string `json:"allowed_tools,omitempty"`
}

func printSkills(w io.Writer, lib *skills.Library) {
	skills := lib.Skills()
	if len(skills) == 0 {
		fmt.Fprintln(w, "no skills (put skill folders in skills/, .claude/skills/ or install a plugin: agentry plugins add PATH)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tPLUGIN\tDESCRIPTION")
	for _, sk := range skills {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", sk.ID, cmp.Or(sk.Plugin, "-"), progress.OneLine(sk.Description, 90))
	}
	tw.Flush()
	if n := len(lib.Problems()); n > 0 {
		fmt.Fprintf(w, "\n%s in skill and command files: agentry validate lists them\n", core.Count(n, "problem"))
	}
}

// skillFiles is the writer of the watched library root with that label,
// for the skill editor (its saves are versions from the web); nil for a
// root that is not watched.
func (s *session) skillFiles(label string) webskills.Files {
	if f, ok := s.libFolders[label]; ok {
		return folder.Sourced(f, registry.SourceWeb)
	}
	return nil
}
