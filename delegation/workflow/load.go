package workflow

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/yamlstruct"
	"go.yaml.in/yaml/v3"
)

// Problem is one thing wrong with a workflow file, where it is. Its
// Severity is registry's word (registry.SeverityError or
// registry.SeverityWarning), as an agent file's problem's is.
type Problem struct {
	File     string `json:"file"`
	Workflow string `json:"workflow"`
	Severity string `json:"severity"`
	Line     int    `json:"line"`
	Message  string `json:"message"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Severity, p.Message)
}

// Problems is a list of problems; it is an error when one is an error.
type Problems []Problem

// HasErrors reports whether any problem is an error.
func (ps Problems) HasErrors() bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Severity == registry.SeverityError })
}

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Lookup reports whether a registry agent of that name exists; nil accepts any name.
type Lookup func(name string) bool

// LoadFile reads and parses one workflow file.
func LoadFile(path string, lookup Lookup) (*Workflow, Problems) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Problems{{File: path, Severity: registry.SeverityError, Message: err.Error()}}
	}
	return Parse(path, data, lookup)
}

// LoadDir parses every *.yaml and *.yml file directly in dir, by name.
func LoadDir(dir string, lookup Lookup) ([]*Workflow, Problems) {
	var files []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		files = append(files, m...)
	}
	sort.Strings(files)
	var wfs []*Workflow
	var probs Problems
	for _, f := range files {
		wf, ps := LoadFile(f, lookup)
		probs = append(probs, ps...)
		if wf != nil {
			wfs = append(wfs, wf)
		}
	}
	return wfs, probs
}

// Find resolves NAME or FILE: an existing file path, else a workflow named
// so (by its name or file stem) in dir.
func Find(ref, dir string, lookup Lookup) (*Workflow, Problems) {
	if st, err := os.Stat(ref); err == nil && !st.IsDir() {
		return LoadFile(ref, lookup)
	}
	for _, ext := range []string{".yaml", ".yml"} {
		p := filepath.Join(dir, ref+ext)
		if _, err := os.Stat(p); err == nil {
			return LoadFile(p, lookup)
		}
	}
	wfs, _ := LoadDir(dir, lookup)
	for _, wf := range wfs {
		if wf.Name == ref {
			return wf, nil
		}
	}
	return nil, Problems{{File: ref, Severity: registry.SeverityError, Message: fmt.Sprintf("no workflow %q (not a file, and not in %s)", ref, dir)}}
}

// loader collects problems while reading one file.
type loader struct {
	file   string
	wf     *Workflow
	probs  Problems
	lookup Lookup
}

func (l *loader) errf(line int, format string, a ...any) {
	l.probs = append(l.probs, Problem{File: l.file, Severity: registry.SeverityError, Line: line, Message: fmt.Sprintf(format, a...)})
}

func (l *loader) warnf(line int, format string, a ...any) {
	l.probs = append(l.probs, Problem{File: l.file, Severity: registry.SeverityWarning, Line: line, Message: fmt.Sprintf(format, a...)})
}

// Parse reads one workflow file's bytes. It returns the workflow when the
// file has no errors (warnings may come with it), else nil and the problems.
func Parse(file string, data []byte, lookup Lookup) (*Workflow, Problems) {
	return parse(file, data, hashOf(data), lookup)
}

// hashOf is registry.Hash, a variable so a test counts that a file is
// hashed once as it loads: the catalog hashes it to see whether it changed
// and passes that hash on.
var hashOf = registry.Hash

// parse is Parse of data whose hash the caller has.
func parse(file string, data []byte, hash string, lookup Lookup) (*Workflow, Problems) {
	l := &loader{file: file, lookup: lookup, wf: &Workflow{File: file, Hash: hash, Agents: map[string]*Agent{}}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		msg := err.Error()
		if _, rest, ok := strings.Cut(msg, "line "); ok {
			n, _, _ := strings.Cut(rest, ":")
			line, _ = strconv.Atoi(n)
		}
		l.errf(line, "YAML syntax: %s (check the indentation and quoting on that line)", strings.TrimPrefix(msg, "yaml: "))
		return nil, l.probs
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		l.errf(1, "a workflow file is a YAML mapping with workflow, inputs, agents and steps")
		return nil, l.probs
	}
	var f fileKeys
	for _, p := range yamlstruct.Decode(doc.Content[0], &f, yamlstruct.Options{Lenient: true}) {
		if p.Unknown {
			l.warnf(p.Line, "%s (ignored)", p.Message)
		} else {
			l.errf(p.Line, "%s", p.Message)
		}
	}
	l.document(&f, doc.Content[0].Line)
	for i := range l.probs {
		l.probs[i].Workflow = l.wf.Name
	}
	if l.probs.HasErrors() {
		return nil, l.probs
	}
	return l.wf, l.probs
}

// at is a decoded value with the line of its key.
type at[T any] = yamlstruct.At[T]

// fileKeys are a workflow file's keys, as yamlstruct decodes them (its
// scalars by their text: version: 1.0 is "1.0", wait: 2 is "2").
type fileKeys struct {
	Workflow at[headerKeys]                `yaml:"workflow"`
	Inputs   []at[inputKeys]               `yaml:"inputs"`
	Agents   []yamlstruct.Entry[agentKeys] `yaml:"agents"` // by ID, in file order
	Steps    []at[stepKeys]                `yaml:"steps"`
}

type headerKeys struct {
	Name        string        `yaml:"name"`
	Description string        `yaml:"description"`
	Version     string        `yaml:"version"`
	Timeout     time.Duration `yaml:"timeout"`
}

type inputKeys struct {
	Name        string     `yaml:"name"`
	Type        at[string] `yaml:"type"`
	Required    bool       `yaml:"required"`
	Default     at[any]    `yaml:"default"`
	Description string     `yaml:"description"`
}

type agentKeys struct {
	Name       string         `yaml:"name"`
	Role       string         `yaml:"role"`
	Prompt     at[string]     `yaml:"prompt"`
	Tools      at[[]string]   `yaml:"tools"`
	Timeout    time.Duration  `yaml:"timeout"`
	Retry      retryKeys      `yaml:"retry"`
	OnFailure  at[string]     `yaml:"on_failure"`
	Validation validationKeys `yaml:"validation"`
}

type retryKeys struct {
	MaxAttempts at[int]    `yaml:"max_attempts"`
	Backoff     at[string] `yaml:"backoff"`
}

func (l *loader) document(f *fileKeys, line int) {
	l.header(f.Workflow)
	l.inputs(f.Inputs)
	for _, e := range f.Agents {
		a := l.agent(e.Key, e.Value, e.Line)
		l.wf.Agents[e.Key] = a
		l.wf.AgentOrder = append(l.wf.AgentOrder, e.Key)
	}
	if l.wf.Name == "" {
		l.errf(line, "workflow.name is required")
	}
	if f.Steps == nil {
		l.errf(line, "steps are required")
		return
	}
	l.steps(f.Steps)
	if !l.probs.HasErrors() {
		l.check()
	}
}

func (l *loader) header(h at[headerKeys]) {
	l.wf.Line = h.Line
	l.wf.Name, l.wf.Description, l.wf.Version, l.wf.Timeout = h.Value.Name, h.Value.Description, h.Value.Version, h.Value.Timeout
}

var inputTypes = []string{"string", "number", "boolean", "json", "file_path"}

// unique says when an input or step has no name (missing) or the name of
// an earlier one (twice, a format for the name), and marks it seen.
func (l *loader) unique(seen map[string]bool, name string, line int, missing, twice string) {
	switch {
	case name == "":
		l.errf(line, "%s", missing)
	case seen[name]:
		l.errf(line, twice, name)
	}
	seen[name] = true
}

func (l *loader) inputs(items []at[inputKeys]) {
	seen := map[string]bool{}
	for _, item := range items {
		k := item.Value
		in := Input{Name: k.Name, Type: "string", Required: k.Required, Description: k.Description, Line: item.Line,
			Default: k.Default.Value, HasDefault: k.Default.Set()}
		if k.Type.Set() {
			in.Type = k.Type.Value
			l.oneOf(k.Type, "input type", inputTypes)
		}
		l.unique(seen, in.Name, item.Line, "an input needs a name", "input %q is declared twice")
		l.wf.Inputs = append(l.wf.Inputs, in)
	}
}

// oneOf reports a value that is not one of allowed.
func (l *loader) oneOf(v at[string], what string, allowed []string) {
	if v.Set() && !slices.Contains(allowed, v.Value) {
		l.errf(v.Line, "%s %q is not one of %s", what, v.Value, strings.Join(allowed, ", "))
	}
}

func (l *loader) agent(id string, k agentKeys, line int) *Agent {
	a := &Agent{ID: id, Name: k.Name, Role: k.Role, Timeout: k.Timeout, Line: line,
		Retry: Retry{MaxAttempts: 1, Backoff: "none"}, OnFailure: "abort"}
	if k.Prompt.Set() {
		a.Prompt = l.tmpl(k.Prompt, "agent "+id+" prompt")
	}
	if k.Tools.Set() {
		l.tools(a, k.Tools)
	}
	l.retry(a, k.Retry)
	if k.OnFailure.Set() {
		l.onFailure(a, k.OnFailure)
	}
	l.validation(a, k.Validation)
	if a.Prompt == nil && !l.probs.HasErrors() {
		l.errf(line, "agent %s needs a prompt", id)
	}
	return a
}

func (l *loader) tools(a *Agent, names at[[]string]) {
	a.Tools = names.Value
	for _, name := range names.Value {
		t := registry.MapTool(name, registry.BuiltinTools)
		switch {
		case t.Delegate:
			l.warnf(names.Line, "agent %s: %s grants no tool in a workflow (steps do not delegate)", a.ID, name)
		case t.Unavailable:
			l.warnf(names.Line, "agent %s: tool %s is not available here: %s", a.ID, name, t.Reason)
		case t.Narrowed:
			a.Rules.Allow = append(a.Rules.Allow, t.Tools...)
			l.warnf(names.Line, "agent %s: %s is granted as the whole tool %s", a.ID, name, strings.Join(t.Tools, ", "))
		default:
			a.Rules.Allow = append(a.Rules.Allow, t.Tools...)
		}
	}
}

var backoffs = []string{"none", "linear", "exponential", "constant"}

func (l *loader) retry(a *Agent, r retryKeys) {
	if n := r.MaxAttempts; n.Set() {
		a.Retry.MaxAttempts = n.Value
		if n.Value < 1 {
			l.errf(n.Line, "retry.max_attempts must be at least 1")
		}
	}
	if r.Backoff.Set() {
		a.Retry.Backoff = r.Backoff.Value
		l.oneOf(r.Backoff, "retry.backoff", backoffs)
	}
}

func (l *loader) onFailure(a *Agent, v at[string]) {
	switch {
	case v.Value == "skip" || v.Value == "abort":
		a.OnFailure = v.Value
	case strings.HasPrefix(v.Value, "fallback:"):
		a.OnFailure, a.Fallback = "fallback", strings.TrimSpace(strings.TrimPrefix(v.Value, "fallback:"))
		if a.Fallback == "" {
			l.errf(v.Line, "on_failure fallback: names no agent")
		}
	default:
		l.errf(v.Line, "on_failure %q is not skip, abort or fallback:AGENT_ID", v.Value)
	}
}
