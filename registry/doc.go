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
// github.com/adrg/frontmatter finds the frontmatter; its YAML format decodes
// with yaml.v2 into Go values, so Document gives it a custom format whose
// unmarshal decodes into a go.yaml.in/yaml/v3 Node instead, which keeps key
// order, comments, unknown keys and lines. The body the library returns
// gives the frontmatter's byte extent, so Document keeps the original bytes
// of every part (a BOM, which the library does not look behind, is kept as
// a prefix). The library returns a file whose opening --- is never closed
// as having no frontmatter; Document detects that and reports the line.
// Re-encoding a whole yaml.v3 tree changes indentation, blank lines and
// comment placement, so an edit replaces only the lines of the one
// top-level entry it changes: that entry is re-encoded by yaml.v3 with the
// indentation detected in the file, everything else stays byte for byte. A
// value set equal to the current one changes nothing, so a form that
// submits every field leaves an unchanged file byte-identical.
//
// # Lenient YAML
//
// Claude Code loads files whose YAML is strictly invalid but whose intent is
// plain, mostly a one-line description with an unquoted ": " in it. Such a
// top-level line is read as if single-quoted (in a copy with the same line
// count, so positions stay right) with a warning naming the line; the file's
// bytes are not changed until that field is edited, which writes it quoted.
// Anything else that yaml.v3 rejects stays an error.
//
// # Loading fast
//
// yaml.v3 is most of the CPU of loading a folder. Frontmatter in the plain
// subset most files use (key: value lines, nested mappings, lists of words;
// no comments, quotes or multi-line values) is read by quickYAML into the
// very Node tree yaml.v3 builds, which tests and a fuzz target check node
// for node against yaml.v3; anything else goes to yaml.v3. Values are
// substrings of the file's text, which the snapshot keeps anyway.
//
// Issue 25 asked whether yaml.v3 alone would do now that yamlstruct decodes
// the keys: it would not. Without quickYAML, BenchmarkLoad10k took 1.9-2.1x
// main's CPU (880 against 420 ms per load; wall 830 against 420 ms, on the
// 2-core test machine; the guard is 400 ms), so it stays. Asked again in
// session 34, after the cuts below: 1.82x (964 against 516 cpu-ms per
// load, paired medians of 6): yaml.v3 costs about 30 µs and 15 KB for a
// typical 13-line frontmatter, quickYAML about 6 µs. The frontmatter
// library gets a pooled line reader that stops at the closing delimiter
// (splitFrontmatter) for the same reason. Files are read with ReadLimited:
// a buffer kept per worker saved 14 of 229 MB allocated per load and no
// time above the noise.
//
// Session 34 found some time in plain places, not the 1.8x quickYAML
// saves. The snapshot sorts ids rather than whole Agents: on the serial
// path after the reads, 8 instead of 66 ms for 10,000 agents (medians of
// 40, alternated in one process). files.Parallel's workers (Load's and
// the catalog's) take the next file from a shared counter rather than an
// unbuffered channel fed one file at a time by a third goroutine: 369
// against 418 ms wall for Load's reads in one A/B in one process, no
// difference in another (the machine was shared with other builds).
// yamlstruct lists a struct's keys for its unknown-key message once per
// type. BenchmarkLoad10k, main against this, alternated per run on the
// shared 2-core machine: 0.85-0.95x the CPU over four runs (medians of
// 6-8); in the quietest (load average 3), 380 against 423 ms wall (0.87x
// paired) and 543 against 582 cpu-ms per load. At the session's end, on a
// quiet machine (load about 1.3), against the session's first commit
// 5603fbc alternated 5 times: 294 against 385 ms (0.77x paired), 511
// against 596 cpu-ms; issue 25's guard is 400 ms.
//
// # Decoding
//
// The keys agentry reads are a struct (agentKeys) that yamlstruct decodes
// from the frontmatter node, one key at a time: each wrong type, key given
// twice or unknown key is a Problem with its file line, and decoding goes
// on, so a file with three mistakes shows three. Values that take several
// shapes (tools as a list, a "Read, Grep" string or {allow, deny, ask};
// subagents as a list or a mapping; model as a string or a list) are
// decoded as nodes and read here. Types are strict: `name: 42` is an
// error, not the name "42". Decoding never touches the node tree the
// Document edits, so unknown keys and comments stay in the file.
//
// # Identity
//
// An agent's id (Agent.Name, IDPattern) is name: when that is a valid id.
// VS Code files (*.agent.md, *.chatmode.md, any *.md in .github/agents) are
// named by their file, as VS Code does: there the id is the file stem
// lowercased and slugged, and name: is the display name. A file whose name: is not an id ("Research
// Coordinator") gets the same treatment with a warning. Everything that
// names an agent (lookups, delegate's enum, problems, traces) uses the id.
// VS Code files name their sub-agents by display name (agents: ['SWE']);
// when a snapshot is built, such an entry that is no agent's id but exactly
// one agent's display name is rewritten to that id in the served Agent (the
// file keeps its spelling).
//
// # Keys
//
// Unknown keys are kept (other tools write their own); those with which
// Claude Code or VS Code change what the agent does and which agentry cannot
// honour (hooks, mcpServers, permissionMode, handoffs, ...: ignoredKeys) are
// warned about, so nobody takes them for honoured. Near misses of
// a key agentry reads (tool, subagent, allowed_tools, model_name, ...,
// within a small edit distance or in an alias table): ignoring those could
// grant more than the author meant (tool: instead of tools: leaves the agent
// unrestricted), so they are errors with "did you mean". Keys other tools
// are known to write (hooks, handoffs, VS Code's agent:) are never taken
// for typos. For the same reason a tool pattern with an argument part
// that names anything but shell.run ("*(git *)", "web.fetch(x)") is an
// error naming its line (CommandPatternProblem): it would restrict
// nothing.
//
// # Broken files and duplicates
//
// Per-file errors (unreadable YAML, wrong types, near-miss keys) make a file
// broken: its last good version keeps being served, flagged Stale, until the
// file is fixed or deleted. Cross-file errors (duplicate ids,
// self-delegation, delegation cycles) are reported but do not unload agents.
// Of several files with one id, the one that served the id before keeps
// serving (a file that appears later never takes an agent over, so what
// runs never changes by adding a file); at start-up, with all present, the
// smallest path serves. Snapshot.Duplicates says which file is used and why,
// and Snapshot.ProblemsFor finds the problems of every file that defines or
// would define an id, even one too broken to parse, so `run X` can say why
// X is missing.
//
// # Decisions
//
// description is required (the delegate tool shows it), except in VS Code
// files where VS Code makes it optional: there a missing description is a
// warning. model: is a string or VS Code's prioritized list, kept in order
// (Agent.Models) with its line for warnings; resolving names to providers is
// the runtime's job. Retry defaults to DefaultMaxAttempts (3) attempts with
// DefaultBackoff; Retry.Delay is the one definition of the backoff policies
// (none, linear, exponential, constant). Options.Disabled only adds warnings
// for subagents.allow entries naming disabled agents; the runtime applies
// the disabled list itself. In Document.Set, nil and "" delete a key, and an
// empty list for tools.deny or subagents.deny equals an absent one, so form
// fields left blank do not add keys.
//
// Tool lists keep the meaning of the tool they were written for
// (writtenFor decides which, by their names, then the file, then the
// form). A Claude Code or VS Code allow list is all the agent may use
// there, so one that names no Task, Agent, agent or runSubagent, or VS
// Code's agents: [], refuses the agent delegating at all
// (ToolDelegation.Refused, which permissions.MayDelegate applies); a list
// in agentry's names says nothing of delegating, which subagents decides.
// One that names it, in a file with no sub-agent allow list of its own,
// allows what that tool allows there (toolTargets): Agent(a, b) a and b, a
// bare Agent, Task, agent or runSubagent every agent, as Claude Code's main
// agent and VS Code without agents: may call any. tools: "" is an empty list (Claude Code documents only a missing tools
// as every tool), with a warning. Task in an ask list asks before
// delegating (subagents ask) and allows nothing.
//
// Cross-file validation (duplicates, references, self-delegation, Tarjan
// strongly connected components for cycles) is linear in files plus allow
// entries; a snapshot rebuild after one change re-runs it but re-parses only
// the changed files.
//
// The package reads through io/fs and knows nothing about the OS or
// watching; registry/folder adapts a real directory. Agent Skills and
// slash commands are a library of their own, registry/skills, which reads
// its files with Parse and Fields (frontmatter read key by key with this
// decoder's readers) so their problems read like agent files'; registry
// never imports it. What both need that is neither (which paths of a
// folder count, parsing files in parallel, near misses of a key) is in
// registry/internal.
package registry
