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
	"go.yaml.in/yaml/v3"
)

// Severities of a Problem.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Problem is one thing wrong with a workflow file, where it is.
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
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Severity == SeverityError })
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
		return nil, Problems{{File: path, Severity: SeverityError, Message: err.Error()}}
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
	return nil, Problems{{File: ref, Severity: SeverityError, Message: fmt.Sprintf("no workflow %q (not a file, and not in %s)", ref, dir)}}
}

// loader collects problems while reading one file.
type loader struct {
	file   string
	wf     *Workflow
	probs  Problems
	lookup Lookup
}

func (l *loader) errf(line int, format string, a ...any) {
	l.probs = append(l.probs, Problem{File: l.file, Severity: SeverityError, Line: line, Message: fmt.Sprintf(format, a...)})
}

func (l *loader) warnf(line int, format string, a ...any) {
	l.probs = append(l.probs, Problem{File: l.file, Severity: SeverityWarning, Line: line, Message: fmt.Sprintf(format, a...)})
}

// Parse reads one workflow file's bytes. It returns the workflow when the
// file has no errors (warnings may come with it), else nil and the problems.
func Parse(file string, data []byte, lookup Lookup) (*Workflow, Problems) {
	l := &loader{file: file, lookup: lookup, wf: &Workflow{File: file, Agents: map[string]*Agent{}}}
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
	l.document(doc.Content[0])
	for i := range l.probs {
		l.probs[i].Workflow = l.wf.Name
	}
	if l.probs.HasErrors() {
		return nil, l.probs
	}
	return l.wf, l.probs
}

func (l *loader) document(root *yaml.Node) {
	var steps *yaml.Node
	for _, kv := range pairs(root) {
		switch kv.key {
		case "workflow":
			l.header(kv.val)
		case "inputs":
			l.inputs(kv.val)
		case "agents":
			l.agents(kv.val)
		case "steps":
			steps = kv.val
		default:
			l.warnf(kv.line, "unknown key %q (ignored)", kv.key)
		}
	}
	if l.wf.Name == "" {
		l.errf(root.Line, "workflow.name is required")
	}
	if steps == nil {
		l.errf(root.Line, "steps are required")
		return
	}
	l.steps(steps)
	if !l.probs.HasErrors() {
		l.check()
	}
}

type kv struct {
	key  string
	line int
	val  *yaml.Node
}

func pairs(n *yaml.Node) []kv {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]kv, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, kv{n.Content[i].Value, n.Content[i].Line, n.Content[i+1]})
	}
	return out
}

func (l *loader) str(n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode {
		l.errf(n.Line, "%s must be a string", what)
		return ""
	}
	return n.Value
}

func (l *loader) integer(n *yaml.Node, what string) int {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 {
		l.errf(n.Line, "%s must be a whole number, not %q", what, n.Value)
	}
	return v
}

func (l *loader) boolean(n *yaml.Node, what string) bool {
	var b bool
	if err := n.Decode(&b); err != nil {
		l.errf(n.Line, "%s must be true or false, not %q", what, n.Value)
	}
	return b
}

func (l *loader) duration(n *yaml.Node, what string) time.Duration {
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		l.errf(n.Line, "%s must be a duration such as \"30s\", \"15m\" or \"2h\", not %q", what, n.Value)
	}
	return d
}

func (l *loader) header(n *yaml.Node) {
	l.wf.Line = n.Line
	if n.Kind != yaml.MappingNode {
		l.errf(n.Line, "workflow must be a mapping with name, description, version, timeout")
		return
	}
	for _, kv := range pairs(n) {
		switch kv.key {
		case "name":
			l.wf.Name = l.str(kv.val, "workflow.name")
		case "description":
			l.wf.Description = l.str(kv.val, "workflow.description")
		case "version":
			l.wf.Version = l.str(kv.val, "workflow.version")
		case "timeout":
			l.wf.Timeout = l.duration(kv.val, "workflow.timeout")
		default:
			l.warnf(kv.line, "unknown key workflow.%s (ignored)", kv.key)
		}
	}
}

var inputTypes = []string{"string", "number", "boolean", "json", "file_path"}

func (l *loader) inputs(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		l.errf(n.Line, "inputs must be a list")
		return
	}
	seen := map[string]bool{}
	for _, item := range n.Content {
		in := Input{Type: "string", Line: item.Line}
		for _, kv := range pairs(item) {
			switch kv.key {
			case "name":
				in.Name = l.str(kv.val, "input name")
			case "type":
				in.Type = l.str(kv.val, "input type")
				if !slices.Contains(inputTypes, in.Type) {
					l.errf(kv.line, "input type %q is not one of %s", in.Type, strings.Join(inputTypes, ", "))
				}
			case "required":
				in.Required = l.boolean(kv.val, "required")
			case "default":
				var v any
				if err := kv.val.Decode(&v); err != nil {
					l.errf(kv.line, "default: %v", err)
				}
				in.Default, in.HasDefault = v, true
			case "description":
				in.Description = l.str(kv.val, "description")
			default:
				l.warnf(kv.line, "unknown input key %q (ignored)", kv.key)
			}
		}
		switch {
		case in.Name == "":
			l.errf(item.Line, "an input needs a name")
		case seen[in.Name]:
			l.errf(item.Line, "input %q is declared twice", in.Name)
		}
		seen[in.Name] = true
		l.wf.Inputs = append(l.wf.Inputs, in)
	}
}

func (l *loader) agents(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		l.errf(n.Line, "agents must be a mapping from agent ID to its definition")
		return
	}
	for _, kv := range pairs(n) {
		a := l.agent(kv.key, kv.val)
		a.Line = kv.line
		l.wf.Agents[kv.key] = a
		l.wf.AgentOrder = append(l.wf.AgentOrder, kv.key)
	}
}

func (l *loader) agent(id string, n *yaml.Node) *Agent {
	a := &Agent{ID: id, Retry: Retry{MaxAttempts: 1, Backoff: "none"}, OnFailure: "abort"}
	for _, kv := range pairs(n) {
		switch kv.key {
		case "name":
			a.Name = l.str(kv.val, "name")
		case "role":
			a.Role = l.str(kv.val, "role")
		case "prompt":
			a.Prompt = l.tmpl(kv.val, "agent "+id+" prompt")
		case "tools":
			l.tools(a, kv.val)
		case "timeout":
			a.Timeout = l.duration(kv.val, "agent timeout")
		case "retry":
			l.retry(a, kv.val)
		case "on_failure":
			l.onFailure(a, kv.val)
		case "validation":
			l.validation(a, kv.val)
		default:
			l.warnf(kv.line, "unknown key %q in agent %s (ignored)", kv.key, id)
		}
	}
	if a.Prompt == nil && !l.probs.HasErrors() {
		l.errf(n.Line, "agent %s needs a prompt", id)
	}
	return a
}

func (l *loader) tools(a *Agent, n *yaml.Node) {
	var names []string
	if err := n.Decode(&names); err != nil {
		l.errf(n.Line, "tools must be a list of tool names")
		return
	}
	a.Tools = names
	for _, name := range names {
		t := registry.MapTool(name, registry.BuiltinTools)
		switch {
		case t.Delegate:
			l.warnf(n.Line, "agent %s: %s grants no tool in a workflow (steps do not delegate)", a.ID, name)
		case t.Unavailable:
			l.warnf(n.Line, "agent %s: tool %s is not available here: %s", a.ID, name, t.Reason)
		case t.Narrowed:
			a.Rules.Allow = append(a.Rules.Allow, t.Tools...)
			l.warnf(n.Line, "agent %s: %s is granted as the whole tool %s", a.ID, name, strings.Join(t.Tools, ", "))
		default:
			a.Rules.Allow = append(a.Rules.Allow, t.Tools...)
		}
	}
}

var backoffs = []string{"none", "linear", "exponential", "constant"}

func (l *loader) retry(a *Agent, n *yaml.Node) {
	for _, kv := range pairs(n) {
		switch kv.key {
		case "max_attempts":
			a.Retry.MaxAttempts = l.integer(kv.val, "retry.max_attempts")
			if a.Retry.MaxAttempts < 1 {
				l.errf(kv.line, "retry.max_attempts must be at least 1")
			}
		case "backoff":
			a.Retry.Backoff = l.str(kv.val, "retry.backoff")
			if !slices.Contains(backoffs, a.Retry.Backoff) {
				l.errf(kv.line, "retry.backoff %q is not one of %s", a.Retry.Backoff, strings.Join(backoffs, ", "))
			}
		default:
			l.warnf(kv.line, "unknown key retry.%s (ignored)", kv.key)
		}
	}
}

func (l *loader) onFailure(a *Agent, n *yaml.Node) {
	v := l.str(n, "on_failure")
	switch {
	case v == "skip" || v == "abort":
		a.OnFailure = v
	case strings.HasPrefix(v, "fallback:"):
		a.OnFailure, a.Fallback = "fallback", strings.TrimSpace(strings.TrimPrefix(v, "fallback:"))
		if a.Fallback == "" {
			l.errf(n.Line, "on_failure fallback: names no agent")
		}
	default:
		l.errf(n.Line, "on_failure %q is not skip, abort or fallback:AGENT_ID", v)
	}
}
