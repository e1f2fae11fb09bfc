// Package skills is agentry's library of Agent Skills and Claude Code slash
// commands: the SKILL.md folders and commands/*.md files of several roots
// (the project's skills folders, .claude/commands, installed plugins), read
// into one immutable Library that a Catalog swaps while readers keep the
// one they hold (docs/skills.md, docs/plugins.md).
//
// # Why a package of its own
//
// Skills and commands are not agents: they have their own files, their
// own identity rules (the Agent Skills spec's names, "plugin.name" when
// two roots hold one name) and their own catalog, and most of agentry
// that reads agents never reads a skill. Inside registry they were a
// quarter of its 107 exported names, between the agent files' own. Here
// the call sites read as what they are: skills.Library, skills.Skill,
// skills.Command, skills.Catalog, skills.Root, skills.Parse for a SKILL.md
// and skills.ParseCommand for a command. Names do not repeat the package:
// FileName (SKILL.md), ValidName, MaxName; a file of a skill's folder is a
// Resource, and File is the state of one SKILL.md or command file, as
// registry.File is of an agent file.
//
// # What it borrows from registry
//
// The files are Markdown with YAML frontmatter like agent files, and their
// problems must read like agent files' (file, line, reason), so this
// package imports registry (registry never imports it): registry.Parse
// splits a file losslessly, registry.Fields reads its frontmatter key by
// key with the agent decoder's typed readers and lenient YAML, and
// problems are registry.Problem. allowed-tools maps Claude Code's tool
// names through registry's tool table (Fields.AllowedTools), so a skill
// and an agent file mean the same tools by the same name. An agent's
// skills: entries are decoded by registry with the agent;
// CheckAgents checks them against a Library. What both packages need that
// is neither agents nor skills (which paths of a folder are read, parsing
// files in parallel, near misses of a key) is in registry/internal.
//
// # Serving
//
// A broken SKILL.md or command keeps its last good version served, flagged
// Stale, as agent files do. A plugin's item keeps its name unless another
// item has it too, then it is "plugin.name"; of items still sharing an id
// the first root and then the smallest path serves, and both files get a
// problem saying so. Library.Open reads a skill's files confined to its
// folder; registry/folder watches each root and writes through Location.
package skills
