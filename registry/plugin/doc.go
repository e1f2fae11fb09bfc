// Package plugin installs Claude Code plugins and marketplaces into
// agentry's plugins folder and records what it installed in a lock file.
//
// A marketplace is a folder (a local clone, or a repository agentry clones
// with git) whose .claude-plugin/marketplace.json lists plugins and where
// each comes from: a path inside the marketplace ("./plugins/x"), another
// repository ({"source": "github", "repo": "o/r"}, {"source": "url",
// "url": …}) or a folder of one ({"source": "git-subdir", "url": …,
// "path": …}). A plugin is a folder with .claude-plugin/plugin.json and
// any of agents/, skills/NAME/SKILL.md, commands/, hooks/hooks.json and
// .mcp.json. `agentry plugins add PATH|GIT-URL [--plugin NAME]` installs a
// whole marketplace, some of its plugins, or one plugin folder.
//
// Decisions:
//
//   - Each plugin is copied into PLUGINS/NAME in the standard layout, so
//     the registry reads every installed plugin the same way (the agents
//     of PLUGINS/*/agents, the skills of PLUGINS/*/skills, the commands of
//     PLUGINS/*/commands) and one watcher follows them all. A component
//     list in plugin.json or the marketplace entry ("skills":
//     ["./skills/pdf"]) replaces that component's default folder: the
//     anthropics/skills marketplace gives three plugins the same source
//     ("./") and each its own skills, which is what its authors meant.
//     When the source is the marketplace's own root only the components
//     are copied (not the whole repository per plugin); otherwise the
//     whole plugin folder is, so hook scripts under ${CLAUDE_PLUGIN_ROOT}
//     are there.
//   - A remote source is fetched with `git clone --depth 1`, with no
//     terminal prompt and a timeout; when that fails (offline, no such
//     repository) the plugin is skipped with git's reason and the rest of
//     the marketplace is installed. A marketplace given as a URL is cloned
//     into PLUGINS/.sources, where `plugins update` fetches it again.
//   - The lock file (PLUGINS/plugins.lock.json) records per plugin its
//     name, version, source, the path in the source, the commit (of the
//     clone, or of a local marketplace that is a git checkout), and whether
//     a person enabled its hooks and MCP servers. Both start disabled: they
//     run code. An update that changes what they would run disables them
//     again and says so.
//   - Every change (add, update, remove, enable) holds an flock on the
//     plugins folder, and a plugin's new copy is built beside the old one
//     and swapped in with a rename, so a watcher never sees half a plugin.
package plugin
