package skills

import (
	"path"
	"strings"

	"github.com/agentry/agentry/registry/internal/files"
)

// Kinds of library root: what its files are and where they sit.
const (
	// RootSkills holds skill folders: NAME/SKILL.md beside the skill's
	// other files (skills/, .claude/skills/, .github/skills/,
	// .agents/skills/).
	RootSkills = "skills"
	// RootCommands holds Claude Code slash commands: *.md, subfolders
	// allowed (.claude/commands/).
	RootCommands = "commands"
	// RootPlugins holds installed plugins, one folder each:
	// PLUGIN/skills/NAME/SKILL.md and PLUGIN/commands/*.md here, and
	// PLUGIN/agents/*.md for the agents registry (registry.PluginAgentPath).
	RootPlugins = "plugins"
)

// Root is one folder the library reads skills or commands from.
type Root struct {
	// Label is the folder as the configuration names it ("skills",
	// ".claude/skills", ".agentry/plugins"): problems name files under it,
	// and Skill.Root and Command.Root show it.
	Label string
	// Kind is RootSkills, RootCommands or RootPlugins.
	Kind string
	// Dir is the folder on disk, absolute: the base of Skill.Path.
	Dir string
}

// skillDirOf returns, for a slash path relative to a root of kind, the
// skill folder it lies in (relative to the root) and the plugin that
// ships it; ok is false when the path is in no skill folder.
func skillDirOf(kind, rel string) (dir, plugin string, ok bool) {
	parts := strings.Split(rel, "/")
	switch {
	case kind == RootSkills && len(parts) >= 2:
		return parts[0], "", true
	case kind == RootPlugins && len(parts) >= 4 && parts[1] == "skills":
		return path.Join(parts[:3]...), parts[0], true
	}
	return "", "", false
}

// commandOf returns, for a slash path relative to a root of kind that
// names a command file, the file relative to its commands folder and the
// plugin that ships it.
func commandOf(kind, rel string) (file, plugin string, ok bool) {
	switch kind {
	case RootCommands:
		return rel, "", IsCommandFile(rel)
	case RootPlugins:
		p, rest, _ := strings.Cut(rel, "/")
		if f, found := strings.CutPrefix(rest, "commands/"); found && IsCommandFile(f) {
			return f, p, true
		}
	}
	return "", "", false
}

// isLibraryFile reports whether a slash path relative to a root of kind is
// a file the library keeps: a SKILL.md or another file of a skill folder,
// or a command. Hidden files and folders never are (saves stage hidden
// temp files beside their targets).
func isLibraryFile(kind, rel string) bool {
	if !files.Plain(rel) {
		return false
	}
	if _, _, ok := skillDirOf(kind, rel); ok {
		return true
	}
	_, _, ok := commandOf(kind, rel)
	return ok
}

// isLibraryFolder reports whether a folder of a root of kind can hold the
// library's files, so the watcher watches it.
func isLibraryFolder(kind, rel string) bool {
	if rel == "." {
		return true
	}
	if !files.Plain(rel) {
		return false
	}
	if kind != RootPlugins {
		return true
	}
	parts := strings.Split(rel, "/")
	return len(parts) == 1 || parts[1] == "skills" || parts[1] == "commands"
}
