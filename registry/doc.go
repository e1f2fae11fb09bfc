// Package registry turns a folder of Markdown agent files into typed agents
// and keeps them current.
//
// It exists so every other part of agentry (the runtime, the CLI, the web
// editor) sees the same agents, validated the same way, from one immutable
// Snapshot that can be swapped while readers keep using the old one.
//
// # Lossless files
//
// Agent files are edited by people, by other tools (Claude Code, VS Code) and
// by the web editor, so an edit must never rewrite what it did not touch.
// adrg/frontmatter cannot keep unknown keys, and re-encoding a whole yaml.v3
// tree changes indentation, blank lines and comment placement. So Document
// splits the frontmatter itself (byte offsets, CRLF aware) and keeps the
// original bytes of every part. An edit replaces only the lines of the one
// top-level entry it changes: that entry is re-encoded by yaml.v3 with the
// indentation detected in the file, everything else stays byte for byte. A
// value set equal to the current one changes nothing, so a form that submits
// every field leaves an unchanged file byte-identical.
//
// # Broken files
//
// Per-file errors (unreadable YAML, wrong types, bad names) make a file
// broken: its last good version keeps being served, flagged Stale, until the
// file is fixed or deleted. Cross-file errors (duplicate names,
// self-delegation, delegation cycles) are reported but do not unload agents;
// of two files with the same name the one with the smaller path is served.
//
// # Decisions
//
// description is required (the delegate tool shows it), except in VS Code
// *.agent.md files where VS Code makes it optional: there a missing
// description is a warning. Retry defaults to DefaultMaxAttempts (3)
// attempts with exponential backoff. Options.Disabled only adds warnings
// for subagents.allow entries naming disabled agents; the runtime applies
// the disabled list itself. In Document.Set, nil and "" delete a key, and an
// empty list for tools.deny or subagents.deny equals an absent one, so form
// fields left blank do not add keys.
//
// Cross-file validation (duplicates, references, self-delegation, Tarjan
// strongly connected components for cycles) is linear in files plus allow
// entries; a snapshot rebuild after one change re-runs it but re-parses only
// the changed files.
//
// The package reads through io/fs and knows nothing about the OS or
// watching; registry/folder adapts a real directory.
package registry
