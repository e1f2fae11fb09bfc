package registry

import (
	"cmp"
	"errors"
	"slices"
)

// Options configure validation of a snapshot.
type Options struct {
	// KnownTools are the tool names that exist, for "maps to no known tool"
	// warnings; nil means BuiltinTools. An entry "group.*" accepts every name
	// in that group, for MCP servers whose tools are listed only at run time.
	KnownTools []string
	// Disabled are agent names disabled globally; naming one in
	// subagents.allow is a warning.
	Disabled []string
	// Remote are the ids of agents that run elsewhere (a2a: in
	// agentry.yaml): naming one in subagents.allow is no warning.
	Remote []string
}

func (o Options) known() []string {
	if o.KnownTools == nil {
		return BuiltinTools
	}
	return o.KnownTools
}

// File is the state of one agent file in a snapshot.
type File struct {
	// Path is relative to the agents folder, slash-separated.
	Path string `json:"path"`
	// Hash is Hash of the content read from disk, for conflict checks.
	Hash string `json:"hash"`
	// Agent is the name of the agent the file defines ("" if unreadable).
	Agent    string    `json:"agent"`
	Problems []Problem `json:"problems"`
	// Stale is true when the file is broken and its last good version is
	// still being served.
	Stale bool `json:"stale"`
	// Plugin is the installed plugin the file comes from ("" for the
	// agents folder's own files); such a file's Path is absolute.
	Plugin string `json:"plugin,omitempty"`
}

// Change is one file's new content for Snapshot.Apply.
type Change struct {
	Path    string
	Data    []byte
	Deleted bool
	// Err means the file is there but is not read (a symbolic link out of
	// the folder, no permission): it is listed with Err as its problem.
	Err error
	// Plugin names the installed plugin an agent file comes from; its Path
	// is then the file's absolute path, which no file of the agents folder
	// (always relative) can share (plugin.go).
	Plugin string
	// Source says who made the change, and Note why ("restore of
	// 3f2a9c1d"), for its version (version.go); "" is SourceFiles. A
	// snapshot ignores both.
	Source Source
	Note   string
}

// version is one successfully decoded content of a file.
type version struct {
	agent Agent
	facts facts
}

// entry is one file's content and what was made of it; immutable.
type entry struct {
	path    string
	plugin  string // the plugin it comes from; "" for the agents folder
	base    string // a plugin agent's id before renamePluginAgents; "" when not renamed
	text    string
	hash    string
	parsed  bool
	own     []Problem
	name    string
	current *version // nil when the content has per-file errors
	served  *version // current, or the last good version when broken
}

func (e *entry) stale() bool { return e.current == nil && e.served != nil }

// newEntry decodes one file's content; prev (may be nil) supplies the last
// good version when the new content is broken.
func newEntry(path string, data []byte, prev *entry, opts Options) *entry {
	e := &entry{path: path, text: string(data), hash: Hash(data)}
	d, err := parseText(path, e.text)
	if err != nil {
		var p Problem
		if !errors.As(err, &p) {
			p = fileProblem(path, 0, "", err.Error())
		}
		e.own = []Problem{p}
	} else {
		e.parsed = true
		a, probs, f := d.decode(opts.known())
		a.Version = e.hash
		e.own, e.name = probs, a.Name
		if !HasError(probs) {
			e.current = &version{agent: a, facts: f}
		}
	}
	e.served = e.current
	if e.served == nil && prev != nil {
		e.served = prev.served
		if prev.base != "" { // a plugin agent served under a prefix: its own id
			e.served = renamedVersion(prev.served, prev.base)
		}
	}
	if e.name == "" && e.served != nil {
		e.name = e.served.agent.Name
	}
	SortProblems(e.own)
	for i := range e.own {
		if e.own[i].Agent == "" {
			e.own[i].Agent = cmp.Or(e.name, guessID(path, e.text))
		}
	}
	return e
}

// Snapshot is one consistent, immutable view of all agent files; any
// number of goroutines may read it.
type Snapshot struct {
	version  uint64
	opts     Options
	entries  map[string]*entry
	byName   map[string]*entry   // id → the file serving it
	served   map[string]*version // id → what it serves, references resolved (resolve.go)
	agents   []Agent
	files    []File
	fileIdx  map[string]int
	problems []Problem
	dups     map[string]Duplicate
}

// Empty returns a snapshot without files.
func Empty(opts Options) *Snapshot { return build(0, opts, map[string]*entry{}, nil) }

// Version increases by one with every Apply that changed something.
func (s *Snapshot) Version() uint64 { return s.version }

// Options returns the options the snapshot was validated with.
func (s *Snapshot) Options() Options { return s.opts }

// Agent returns the agent with that name, including the last good version
// of a broken file.
func (s *Snapshot) Agent(name string) (Agent, bool) {
	v, ok := s.served[name]
	if !ok {
		return Agent{}, false
	}
	return cloneAgent(v.agent), true
}

// Agents returns every served agent sorted by name.
func (s *Snapshot) Agents() []Agent {
	out := make([]Agent, len(s.agents))
	for i, a := range s.agents {
		out[i] = cloneAgent(a)
	}
	return out
}

// Files returns every agent file sorted by path.
func (s *Snapshot) Files() []File {
	out := make([]File, len(s.files))
	for i, f := range s.files {
		out[i] = cloneFile(f)
	}
	return out
}

// File returns the state of the file at path.
func (s *Snapshot) File(path string) (File, bool) {
	i, ok := s.fileIdx[path]
	if !ok {
		return File{}, false
	}
	return cloneFile(s.files[i]), true
}

// FileFor returns the file a name addresses: the file serving the agent
// with that id, else a file named after it (name.md, a broken file whose
// agent is not served). The web's editor and the API address files so.
func (s *Snapshot) FileFor(name string) (File, bool) {
	if a, ok := s.Agent(name); ok {
		if f, ok := s.File(a.File); ok {
			return f, true
		}
	}
	for _, f := range s.files {
		if NameFromFile(f.Path) == name {
			return cloneFile(f), true
		}
	}
	return File{}, false
}

// Document returns a fresh Document of the file at path for the caller to
// edit; false when there is no such file or it cannot be parsed (see Raw).
func (s *Snapshot) Document(path string) (*Document, bool) {
	e, ok := s.entries[path]
	if !ok || !e.parsed {
		return nil, false
	}
	d, err := parseString(path, e.text)
	if err != nil {
		return nil, false
	}
	d.known = s.opts.known()
	return d, true
}

// Raw returns the bytes of the file at path as last read, also for files
// that do not parse.
func (s *Snapshot) Raw(path string) ([]byte, bool) {
	e, ok := s.entries[path]
	if !ok {
		return nil, false
	}
	return []byte(e.text), true
}

// Problems returns every problem of every file, sorted by file then line.
func (s *Snapshot) Problems() []Problem { return slices.Clone(s.problems) }

// Apply returns a new snapshot with the changes applied, or s itself when
// nothing changed (same content hashes, deletions of absent files). A
// changed file that is broken keeps serving its last good version.
func (s *Snapshot) Apply(changes ...Change) *Snapshot {
	var next map[string]*entry
	for _, c := range changes {
		prev, had := s.entries[c.Path]
		if c.Deleted && !had || c.Err == nil && !c.Deleted && had && prev.hash == Hash(c.Data) {
			continue
		}
		if c.Err != nil && had && sameUnreadable(prev, c.Err) {
			continue
		}
		if next == nil {
			next = make(map[string]*entry, len(s.entries)+len(changes))
			for p, e := range s.entries {
				next[p] = e
			}
		}
		if c.Err != nil {
			next[c.Path] = unreadableEntry(c.Path, c.Err)
			next[c.Path].plugin = c.Plugin
			continue
		}
		if c.Deleted {
			delete(next, c.Path)
			continue
		}
		next[c.Path] = newEntry(c.Path, c.Data, prev, s.opts)
		next[c.Path].plugin = c.Plugin
	}
	if next == nil {
		return s
	}
	return build(s.version+1, s.opts, next, s)
}

// Check returns the problems the file at path would have if it held d:
// its own problems and the cross-file ones (duplicate names, unknown or
// disabled sub-agents, self-delegation, cycles). The editor calls it before
// saving.
func (s *Snapshot) Check(path string, d *Document) []Problem {
	next := s.Apply(Change{Path: path, Data: d.Bytes()})
	f, _ := next.File(path)
	return f.Problems
}

// build indexes entries and runs the cross-file validation. prev, the
// snapshot this one replaces (nil at start-up), decides which of several
// files with one id is served: the one that served it before.
func build(ver uint64, opts Options, entries map[string]*entry, prev *Snapshot) *Snapshot {
	s := &Snapshot{version: ver, opts: opts, entries: entries, byName: make(map[string]*entry, len(entries)), fileIdx: make(map[string]int, len(entries))}
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	renamePluginAgents(entries, paths)
	groups := map[string][]string{} // ids defined by more than one file, paths sorted
	for _, p := range paths {
		e := entries[p]
		if e.served == nil {
			continue
		}
		name := e.served.agent.Name
		if first, taken := s.byName[name]; taken {
			if groups[name] == nil {
				groups[name] = []string{first.path}
			}
			groups[name] = append(groups[name], p)
			continue
		}
		s.byName[name] = e
	}
	s.dups = make(map[string]Duplicate, len(groups))
	for name, ps := range groups {
		d := chooseServed(name, ps, prev)
		s.dups[name] = d
		s.byName[name] = entries[d.Served]
	}
	s.served = resolveDisplayNames(s.byName)
	s.agents = make([]Agent, 0, len(s.served))
	for _, v := range s.served {
		s.agents = append(s.agents, v.agent)
	}
	slices.SortFunc(s.agents, func(a, b Agent) int { return cmp.Compare(a.Name, b.Name) })
	cross := crossCheck(s, paths)
	s.files = make([]File, len(paths))
	for i, p := range paths {
		e := entries[p]
		probs := e.own
		if c := cross[p]; len(c) > 0 {
			probs = append(slices.Clone(e.own), c...)
			SortProblems(probs)
		}
		s.files[i] = File{Path: p, Hash: e.hash, Agent: e.name, Problems: probs, Stale: e.stale(), Plugin: e.plugin}
		s.fileIdx[p] = i
		s.problems = append(s.problems, probs...)
	}
	return s
}

// SortProblems orders problems by file, then line, keeping the order of
// those on one line.
func SortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
}

// HasError reports whether any of the problems is an error (and not a
// warning): the file they belong to is not served.
func HasError(ps []Problem) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Severity == SeverityError })
}

func cloneAgent(a Agent) Agent {
	a.Models = slices.Clone(a.Models)
	a.Tools.Allow = slices.Clone(a.Tools.Allow)
	a.Tools.Deny = slices.Clone(a.Tools.Deny)
	a.Tools.Ask = slices.Clone(a.Tools.Ask)
	a.Skills.Allow = slices.Clone(a.Skills.Allow)
	a.Skills.Deny = slices.Clone(a.Skills.Deny)
	a.Preload = slices.Clone(a.Preload)
	a.Subagents.Rules.Ask = slices.Clone(a.Subagents.Rules.Ask)
	a.Subagents.Rules.Allow = slices.Clone(a.Subagents.Rules.Allow)
	a.Subagents.Rules.Deny = slices.Clone(a.Subagents.Rules.Deny)
	return a
}

func cloneFile(f File) File {
	f.Problems = slices.Clone(f.Problems)
	return f
}
