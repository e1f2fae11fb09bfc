package registry

import (
	"io/fs"
	"path"
	"strings"

	"github.com/agentry/agentry/registry/internal/files"
)

// toolFolders are the hidden folders, at the top of the agents folder,
// where other tools keep agent files, with the suffix a file there must
// have. Pointing agentry at a project root thus finds its Claude Code
// sub-agents and VS Code custom agents and chat modes; every other hidden
// folder (.git, .vscode, ...) is skipped, as is node_modules anywhere.
var toolFolders = []struct{ dir, suffix string }{
	{".claude/agents", ".md"},             // Claude Code sub-agents
	{".github/agents", ".md"},             // VS Code custom agents (*.agent.md, and any *.md there)
	{".github/chatmodes", ".chatmode.md"}, // VS Code chat modes (the older name)
}

// IsAgentFolder reports whether agent files are looked for in the folder
// at slash path p, relative to the agents folder ("." is the folder
// itself). The watcher uses it to decide which folders to watch.
func IsAgentFolder(p string) bool {
	if p == "." {
		return true
	}
	for _, tf := range toolFolders {
		if p == tf.dir || isParent(p, tf.dir) {
			return true // on the way to a tool folder
		}
		if rest, ok := strings.CutPrefix(p, tf.dir+"/"); ok {
			return files.Plain(rest)
		}
	}
	return files.Plain(p)
}

// IsAgentFile reports whether a slash path, relative to the agents folder,
// names an agent file: a *.md file in the folder or an ordinary subfolder,
// or a file with the tool's suffix in one of the tools' folders. Hidden
// files never are.
func IsAgentFile(p string) bool {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	if base == "" || strings.HasPrefix(base, ".") || !IsAgentFolder(dir) {
		return false
	}
	for _, tf := range toolFolders {
		if dir == tf.dir || strings.HasPrefix(dir, tf.dir+"/") {
			return strings.HasSuffix(base, tf.suffix) && len(base) > len(tf.suffix)
		}
	}
	return strings.HasSuffix(base, ".md") && files.Plain(p)
}

// agentPaths lists the agent files under fsys, sorted.
func agentPaths(fsys fs.FS) ([]string, error) {
	return files.List(fsys, ".", "agent", IsAgentFolder, IsAgentFile)
}

// isParent reports whether p is a proper ancestor folder of dir.
func isParent(p, dir string) bool { return strings.HasPrefix(dir, p+"/") }

// unreadableEntry is a file that is there but not read: it serves no
// agent, and its one problem says why.
func unreadableEntry(p string, err error) *entry {
	e := &entry{path: p, own: []Problem{fileProblem(p, 0, "", "cannot read file: "+err.Error())}}
	e.own[0].Agent = NameFromFile(p)
	return e
}

// sameUnreadable reports whether e is already the unreadable entry err
// would make, so re-reporting it changes nothing.
func sameUnreadable(e *entry, err error) bool {
	return !e.parsed && e.text == "" && len(e.own) == 1 && e.own[0].Message == "cannot read file: "+err.Error()
}
