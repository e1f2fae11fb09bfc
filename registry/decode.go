package registry

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/registry/yamlstruct"
	"go.yaml.in/yaml/v3"
)

// DefaultMaxAttempts is Retry.MaxAttempts when the file is silent: transient
// model errors are retried twice before the invocation fails. The runtime
// uses this constant; it has no default of its own.
const DefaultMaxAttempts = 3

// Backoff policies for Retry.Backoff: the wait before retry n (counted from
// 1) is 0 (none), n × base (linear), 2^(n-1) × base (exponential) or base
// (constant); the runtime owns base.
const (
	BackoffNone        = "none"
	BackoffLinear      = "linear"
	BackoffExponential = "exponential"
	BackoffConstant    = "constant"
)

// DefaultBackoff is Retry.Backoff when the file is silent.
const DefaultBackoff = BackoffExponential

// Backoffs lists the Retry.Backoff values in the order a form offers them.
var Backoffs = []string{BackoffExponential, BackoffLinear, BackoffConstant, BackoffNone}

// facts are the line positions cross-file validation needs.
type facts struct {
	nameLine int   // the name: value's line; 0 when the id comes from the file name
	allow    []ref // explicit (non-pattern) subagent allow entries, first mention only
	skills   []ref // explicit (non-pattern) skills allow entries, for CheckSkills
}

// ref is an agent name mentioned at a file line.
type ref struct {
	name string
	line int
}

// Agent returns the typed view of the document and the problems found in
// this file alone: wrong types, unknown enum values, name rules, and tool
// names that map to no built-in tool (warnings). Cross-file problems need a
// Snapshot (see Snapshot.Check).
func (d *Document) Agent() (Agent, []Problem) {
	a, probs, _ := d.decode(BuiltinTools)
	return a, probs
}

// at is a decoded value with the file line of its key.
type at[T any] = yamlstruct.At[T]

// agentKeys are the keys agentry reads from an agent file, in the order
// near misses are matched (keys.go). Keys other tools write have no field:
// they stay in the Document as they are. Values of several shapes (a list
// or a comma string, a list or a mapping) are nodes the decoder reads.
type agentKeys struct {
	Name            at[string]        `yaml:"name"`
	Description     at[string]        `yaml:"description"`
	Model           at[*yaml.Node]    `yaml:"model"` // a string, or VS Code's list in order of preference
	Tools           at[*yaml.Node]    `yaml:"tools"` // a list, a "Read, Grep" string or toolKeys
	DisallowedTools at[*yaml.Node]    `yaml:"disallowedTools"`
	Subagents       at[*yaml.Node]    `yaml:"subagents"` // a list (allow) or subagentKeys
	Agents          at[*yaml.Node]    `yaml:"agents"`    // VS Code's allow list
	MaxTurns        at[int]           `yaml:"max_turns"`
	MaxTurnsCC      at[int]           `yaml:"maxTurns"` // Claude Code's spelling
	Timeout         at[time.Duration] `yaml:"timeout"`
	Retry           retryKeys         `yaml:"retry"`
	Enabled         at[bool]          `yaml:"enabled"`
	Budget          budgetKeys        `yaml:"budget"`
	Temperature     at[float64]       `yaml:"temperature"`
	MaxTokens       at[int]           `yaml:"max_tokens"`
	Orchestrator    at[bool]          `yaml:"orchestrator"`
	SubAgents       at[*yaml.Node]    `yaml:"sub_agents"` // seed 003's spelling of subagents
	Skills          at[*yaml.Node]    `yaml:"skills"`     // Claude Code's list (allow and preload) or {allow, deny}
	// VS Code's switches of who may start the agent: disable-model-invocation:
	// true and the older infer: false keep it from running as a sub-agent.
	DisableModelInvocation at[bool] `yaml:"disable-model-invocation"`
	Infer                  at[bool] `yaml:"infer"`
}

// toolKeys is the mapping form of tools:.
type toolKeys struct {
	Allow at[*yaml.Node] `yaml:"allow"`
	Deny  at[*yaml.Node] `yaml:"deny"`
	Ask   at[*yaml.Node] `yaml:"ask"`
}

// subagentKeys is the mapping form of subagents:.
type subagentKeys struct {
	Allow         at[*yaml.Node] `yaml:"allow"`
	Deny          at[*yaml.Node] `yaml:"deny"`
	Ask           at[*yaml.Node] `yaml:"ask"`
	Execution     at[string]     `yaml:"execution"`
	MaxConcurrent at[int]        `yaml:"max_concurrent"`
	Context       at[string]     `yaml:"context"`
	Nested        at[bool]       `yaml:"nested"`
	Dispatch      at[bool]       `yaml:"dispatch"`
}

// retryKeys is retry:.
type retryKeys struct {
	MaxAttempts at[int]    `yaml:"max_attempts"`
	Backoff     at[string] `yaml:"backoff"`
}

// decoder collects an Agent and its problems from the frontmatter.
type decoder struct {
	d     *Document
	known []string
	a     Agent
	facts facts
	probs []Problem
	allow *allowList // the tools allow list as written; nil without one
	// denyTask is where a deny list names the delegation tool itself.
	denyTask *yaml.Node
}

// allowList is a tools allow list as written, for writtenFor.
type allowList struct {
	node  *yaml.Node
	names []string
	comma bool // a comma string, Claude Code's form
}

func (d *Document) decode(known []string) (Agent, []Problem, facts) {
	dc := &decoder{d: d, known: known}
	dc.a = Agent{
		File:      d.file,
		Enabled:   true,
		Subagents: Subagents{Execution: Parallel, MaxConcurrent: DefaultMaxConcurrent, Context: ContextTaskOnly},
		Retry:     Retry{MaxAttempts: DefaultMaxAttempts, Backoff: DefaultBackoff},
		Prompt:    strings.TrimSpace(strings.ReplaceAll(d.body, "\r\n", "\n")),
	}
	var f agentKeys
	dc.decodeKeys(d.root, "", &f)
	dc.lenient()
	dc.ignored()
	dc.toolRefs()
	dc.apply(&f)
	dc.finish(f.Description)
	return dc.a, dc.probs, dc.facts
}

// decodeKeys decodes the mapping n, found at path, into out. Its problems
// are errors, except unknown keys: at the top level a near miss of a key
// agentry reads is an error (keys.go) and any other is kept silently for
// the tool that wrote it; inside a mapping agentry owns it is a warning.
func (dc *decoder) decodeKeys(n *yaml.Node, path string, out any) {
	for _, p := range yamlstruct.Decode(n, out, yamlstruct.Options{Path: path, LineOffset: dc.d.fileLine(0)}) {
		switch {
		case !p.Unknown:
			dc.add(SeverityError, p.Line, p.Path, p.Message)
		case p.Path == p.Key:
			dc.unknownKey(p)
		default:
			dc.add(SeverityWarning, p.Line, p.Path, p.Message)
		}
	}
}

// apply sets the agent from the decoded keys, checking what their types
// do not say (ranges, enums, names).
func (dc *decoder) apply(f *agentKeys) {
	if f.Name.Set() {
		dc.a.Name, dc.facts.nameLine = strings.TrimSpace(f.Name.Value), f.Name.Line
	}
	dc.a.Description = f.Description.Value
	if f.Model.Set() {
		dc.model(f.Model)
	}
	if f.Tools.Set() {
		dc.tools(f.Tools.Value)
	}
	if f.DisallowedTools.Set() {
		dc.a.Tools.Deny = append(dc.a.Tools.Deny, dc.toolList(f.DisallowedTools.Value, "tools.deny")...)
	}
	if s, _ := either(dc, f.Subagents, "subagents", f.SubAgents, "sub_agents", "are the same setting"); s.Set() {
		dc.subagents(s.Value)
	}
	if f.Skills.Set() {
		dc.skills(f.Skills.Value)
	}
	noAgents := false
	if f.Agents.Set() {
		agents := dc.agentList(f.Agents.Value, "subagents.allow", true)
		dc.a.Subagents.Rules.Allow = append(nonNil(dc.a.Subagents.Rules.Allow), agents...)
		noAgents = len(agents) == 0 // VS Code's agents: [], no sub-agents at all
	}
	dc.refused(f.DisallowedTools.Set(), noAgents)
	dc.toolTargets(f.DisallowedTools.Set())
	dc.a.MaxTurns, _ = dc.positive(either(dc, f.MaxTurns, "max_turns", f.MaxTurnsCC, "maxTurns", "both set the turn limit"))
	if f.Timeout.Set() {
		dc.a.Timeout = dc.positiveDuration(f.Timeout, "timeout")
	}
	if n, ok := dc.positive(f.Retry.MaxAttempts, "retry.max_attempts"); ok {
		dc.a.Retry.MaxAttempts = n
	}
	dc.a.Retry.Backoff = dc.enum(f.Retry.Backoff, "retry.backoff", dc.a.Retry.Backoff, Backoffs...)
	dc.budget(&f.Budget)
	if f.Enabled.Set() {
		dc.a.Enabled = f.Enabled.Value
	}
	switch {
	case f.DisableModelInvocation.Value:
		dc.a.NotSubagent = "disable-model-invocation: true"
	case f.Infer.Set() && !f.Infer.Value:
		dc.a.NotSubagent = "infer: false"
	}
	dc.temperature(f.Temperature)
	dc.a.Sampling.MaxTokens, _ = dc.positive(f.MaxTokens, "max_tokens")
	dc.a.Orchestrator = f.Orchestrator.Value
}

// either returns the one of two spellings of a setting (a, b) the file
// gives, with its key; given both, the later is an error and the earlier
// is used.
func either[T any](dc *decoder, a at[T], aKey string, b at[T], bKey, same string) (at[T], string) {
	if !a.Set() || !b.Set() {
		if a.Set() {
			return a, aKey
		}
		return b, bKey
	}
	if b.Line < a.Line {
		a, aKey, b, bKey = b, bKey, a, aKey
	}
	dc.add(SeverityError, b.Line, bKey, fmt.Sprintf("%s and %s %s (first on line %d): keep one", bKey, aKey, same, a.Line))
	return a, aKey
}

// finish applies the rules that depend on the whole file.
func (dc *decoder) finish(desc at[string]) {
	dc.identity()
	if !desc.Set() || strings.TrimSpace(desc.Value) == "" {
		sev := SeverityError
		if isVSCodeFile(dc.d.file) {
			sev = SeverityWarning // optional in VS Code's format
		}
		dc.add(sev, 1, "description", "description is missing: parent agents show it to the model to choose a sub-agent")
	}
	if dc.a.Name == reservedName {
		dc.add(SeverityWarning, max(dc.facts.nameLine, 1), "name", `the name "new" cannot be opened in the web editor, whose /agents/new creates agents: rename it`)
	}
	for i := range dc.probs {
		dc.probs[i].Agent = dc.a.Name
	}
}

// identity settles the agent's id (Agent.Name) and display name. The id is
// name: when that is a valid id; VS Code files are named by their file, and
// so is a file whose name: is not an id (with a warning): there name: is
// the display name.
func (dc *decoder) identity() {
	name, line := dc.a.Name, dc.facts.nameLine
	switch {
	case name != "" && !isVSCodeFile(dc.d.file) && ValidName(name):
		return
	case name != "" && !isVSCodeFile(dc.d.file):
		dc.add(SeverityWarning, line, "name", fmt.Sprintf("name %q is not a valid id (%s): the id is %q, from the file name, and the name is shown beside it", name, IDPattern, NameFromFile(dc.d.file)))
	}
	dc.a.Name, dc.facts.nameLine = NameFromFile(dc.d.file), 0
	if name != dc.a.Name {
		dc.a.DisplayName = name
	}
	if !ValidName(dc.a.Name) {
		dc.add(SeverityError, max(line, 1), "name", fmt.Sprintf("the file name gives no valid id (%s): rename the file", IDPattern))
	}
}

// reservedName is valid but taken by the web UI's route for a new agent (DESIGN §7).
const reservedName = "new"

// model reads a model or VS Code's prioritized list of models (the first
// that resolves wins; resolving is the runtime's job).
func (dc *decoder) model(m at[*yaml.Node]) {
	items := []*yaml.Node{m.Value}
	if m.Value.Kind == yaml.SequenceNode {
		items = m.Value.Content
	}
	for _, item := range items {
		s, ok := dc.str(item, "model")
		if !ok {
			continue
		}
		if s = strings.TrimSpace(s); s == "" {
			continue // model: "" is the global default, as an absent model is
		}
		if provider, model, found := strings.Cut(s, ":"); found && (provider == "" || model == "") {
			dc.errorf(item, "model", "model %q must be provider:model, an alias, a model name or inherit", s)
			continue
		}
		dc.a.Models = append(dc.a.Models, s)
	}
	if len(dc.a.Models) > 0 {
		dc.a.Model, dc.a.ModelLine = dc.a.Models[0], dc.d.line(m.Value)
	}
}

func (dc *decoder) tools(v *yaml.Node) {
	switch v.Kind {
	case yaml.SequenceNode, yaml.ScalarNode:
		dc.a.Tools.Allow = dc.toolList(v, "tools.allow")
	case yaml.MappingNode:
		var k toolKeys
		dc.decodeKeys(v, "tools", &k)
		if k.Allow.Set() {
			dc.a.Tools.Allow = dc.toolList(k.Allow.Value, "tools.allow")
		}
		if k.Deny.Set() {
			dc.a.Tools.Deny = append(dc.a.Tools.Deny, dc.toolList(k.Deny.Value, "tools.deny")...)
		}
		if k.Ask.Set() {
			dc.a.Tools.Ask = append(dc.a.Tools.Ask, dc.toolList(k.Ask.Value, "tools.ask")...)
		}
	default:
		dc.errorf(v, "tools", "tools must be a list, a comma-separated string or {allow, deny}")
	}
}

func (dc *decoder) subagents(v *yaml.Node) {
	s := &dc.a.Subagents
	if v.Kind == yaml.SequenceNode {
		s.Rules.Allow = append(nonNil(s.Rules.Allow), dc.agentList(v, "subagents.allow", true)...)
		return
	}
	if v.Kind != yaml.MappingNode {
		dc.errorf(v, "subagents", "subagents must be a mapping (%s)", strings.Join(yamlstruct.Keys(subagentKeys{}), ", "))
		return
	}
	var k subagentKeys
	dc.decodeKeys(v, "subagents", &k)
	if k.Allow.Set() {
		s.Rules.Allow = append(nonNil(s.Rules.Allow), dc.agentList(k.Allow.Value, "subagents.allow", true)...)
	}
	if k.Deny.Set() {
		s.Rules.Deny = append(s.Rules.Deny, dc.agentList(k.Deny.Value, "subagents.deny", false)...)
	}
	if k.Ask.Set() {
		s.Rules.Ask = append(s.Rules.Ask, dc.agentList(k.Ask.Value, "subagents.ask", false)...)
	}
	s.Execution = dc.enum(k.Execution, "subagents.execution", s.Execution, Parallel, ParallelStreaming, Sequential)
	s.Context = dc.enum(k.Context, "subagents.context", s.Context, ContextTaskOnly, ContextSummary, ContextFull, ContextFullHistory)
	if s.Context == ContextFullHistory {
		s.Context = ContextFull
	}
	if n, ok := dc.positive(k.MaxConcurrent, "subagents.max_concurrent"); ok {
		s.MaxConcurrent = n
	}
	s.Nested, s.Dispatch = k.Nested.Value, k.Dispatch.Value
}

// temperature checks a sampling temperature is between 0 and 2, the widest
// range the providers accept (Anthropic's is 0 to 1; it answers for itself).
func (dc *decoder) temperature(t at[float64]) {
	if !t.Set() {
		return
	}
	if t.Value < 0 || t.Value > 2 {
		dc.add(SeverityError, t.Line, "temperature", fmt.Sprintf("temperature must be between 0 and 2, got %v", t.Value))
		return
	}
	f := t.Value
	dc.a.Sampling.Temperature = &f
}

// toolList reads a list or a comma string of tool names, mapped to agentry
// names through the tool table (MapTool). Names agentry has nothing for are
// warnings and left out; delegation entries (Task, Agent(a, b), agent,
// runSubagent) go to Agent.Delegation, or in tools.ask to the subagents ask
// list. The result is never nil.
func (dc *decoder) toolList(v *yaml.Node, field string) []string {
	out := []string{}
	deny := field == "tools.deny"
	anyTarget := false
	var names []string
	for name, n := range dc.toolItems(v, field) {
		names = append(names, name)
		t := dc.mapTool(name)
		switch {
		case t.Delegate && deny && t.Targets == nil:
			dc.a.Delegation.Denied, dc.denyTask = true, n
		case t.Delegate && deny:
			dc.a.Delegation.DeniedTargets = append(dc.a.Delegation.DeniedTargets, t.Targets...)
		case t.Delegate && field == "tools.ask":
			// Asking before delegating is subagents.ask's: Task asks for
			// every target, Agent(a, b) for a and b. Like any ask, it
			// allows nothing the allow lists do not.
			targets := t.Targets
			if targets == nil {
				targets = []string{"*"}
			}
			dc.a.Subagents.Rules.Ask = append(dc.a.Subagents.Rules.Ask, targets...)
		case t.Delegate:
			dc.a.Delegation.Listed = true
			anyTarget = anyTarget || t.Targets == nil
			dc.a.Delegation.Targets = append(dc.a.Delegation.Targets, t.Targets...)
		case t.Unavailable || t.Narrowed && !deny:
			dc.warnf(n, field, "not available in agentry: %s (%s)", name, t.Reason)
		default:
			if t.Narrowed {
				dc.warnf(n, field, "%s: %s; the whole tool is denied", name, t.Reason)
			}
			for _, tool := range t.Tools {
				if why := CommandPatternProblem(tool); why != "" {
					dc.errorf(n, field, "%s", why)
				}
				switch {
				case matchesAny(tool, dc.known):
				case t.dialect != dialectAgentry: // mcp__server__tool, server/*: a server not configured here
					server, _, _ := strings.Cut(tool, ".")
					dc.warnf(n, field, "not available in agentry: %s (MCP server %q is not configured; the rule applies once it is)", name, server)
				default:
					dc.warnf(n, field, "tool %q matches no known tool%s", tool, nearestTool(tool, dc.known))
				}
				if !slices.Contains(out, tool) {
					out = append(out, tool)
				}
			}
		}
	}
	if anyTarget {
		dc.a.Delegation.Targets = nil
	}
	if field == "tools.allow" {
		dc.allow = &allowList{node: v, names: names, comma: v.Kind == yaml.ScalarNode}
		if v.Kind == yaml.ScalarNode && len(names) == 0 {
			dc.warnf(v, field, "tools is an empty string, which allows no tool (and, as a Claude Code list, no delegating): leave tools out to allow every tool")
		}
	}
	return out
}

// mapTool reads a tool name as the file's tool lists are written: a VS Code
// file's in VS Code's names, any other's in agentry's (mapTool).
func (dc *decoder) mapTool(name string) ToolName {
	vocab := dialectAgentry
	if isVSCodeFile(dc.d.file) {
		vocab = dialectVSCode
	}
	return mapTool(name, dc.known, vocab)
}

// refused records when the file's lists refuse the agent delegating at
// all, where they are all it may use (permissions.ToolLimit.Refused): an
// allow list written for Claude Code or VS Code (writtenFor; claudeKeys:
// the file has disallowedTools) that names no delegation tool, Task and
// runSubagent included; or VS Code's agents: [], which there means no
// sub-agents at all (noAgents). An allow list in agentry's names says
// nothing of delegating: subagents decides, as DESIGN §3 has it. A file
// that allows sub-agents it cannot reach gets a warning.
func (dc *decoder) refused(claudeKeys, noAgents bool) {
	allows := len(dc.a.Subagents.Rules.Allow) > 0
	if dc.denyTask != nil && allows {
		dc.warnf(dc.denyTask, "tools.deny", "the tool deny list names the delegation tool, so this agent may not delegate to the sub-agents it allows")
	}
	if noAgents {
		dc.a.Delegation.Refused = "its agents list is empty"
	}
	if dc.allow == nil || dc.a.Delegation.Listed || slices.Contains(dc.allow.names, "*") { // "*": every tool, Task too
		return
	}
	names, add := "", ""
	switch writtenFor(dc.d.file, dc.allow.names, dc.allow.comma || claudeKeys) {
	case dialectClaude:
		names, add = "Task or Agent", "Agent"
	case dialectVSCode:
		names, add = "agent or runSubagent", "agent"
	default:
		return
	}
	dc.a.Delegation.Refused = "its tools list names no " + names
	if allows {
		dc.warnf(dc.allow.node, "tools.allow", "the tools list names no %s, so this agent may not delegate to the sub-agents it allows: add %s to tools", names, add)
	}
}

// toolTargets gives an allow list written for Claude Code or VS Code that
// names the delegation tool the sub-agents that tool gives there, when the
// file has no allow list of sub-agents of its own (subagents.allow,
// agents:): Claude Code's Agent(a, b) names a and b; a bare Agent or Task
// (Claude Code's main agent may then start any sub-agent) and VS Code's
// agent or runSubagent without agents: (any custom agent) allow every
// agent, "*". Files that name no delegation tool, and lists in agentry's
// own names, stay opt-in: subagents decides (claudeKeys: the file has
// disallowedTools, as for refused).
func (dc *decoder) toolTargets(claudeKeys bool) {
	d := dc.a.Delegation
	if dc.allow == nil || !d.Listed || d.Refused != "" || dc.a.Subagents.Rules.Allow != nil ||
		writtenFor(dc.d.file, dc.allow.names, dc.allow.comma || claudeKeys) == dialectAgentry {
		return
	}
	if d.Targets == nil {
		dc.a.Subagents.Rules.Allow = []string{"*"}
		return
	}
	dc.a.Subagents.Rules.Allow = slices.Clone(d.Targets)
}

// toolItems is stringItems for tool names: a comma string is split outside
// parentheses, so "Agent(a, b), Read" is two names.
func (dc *decoder) toolItems(v *yaml.Node, field string) func(func(string, *yaml.Node) bool) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return dc.stringItems(v, field)
	}
	return func(yield func(string, *yaml.Node) bool) {
		for _, name := range splitToolNames(v.Value) {
			if !yield(name, v) {
				return
			}
		}
	}
}

// agentList reads a list of agent names or patterns; allow entries are
// remembered with their lines for cross-file validation.
func (dc *decoder) agentList(v *yaml.Node, field string, allow bool) []string {
	out := []string{}
	for name, n := range dc.stringItems(v, field) {
		if allow && !isPattern(name) {
			if !slices.ContainsFunc(dc.facts.allow, func(r ref) bool { return r.name == name }) {
				dc.facts.allow = append(dc.facts.allow, ref{name, dc.d.line(n)})
			}
		}
		out = append(out, name)
	}
	return out
}

// stringItems yields the non-empty strings of a sequence or of a comma
// separated scalar, each with the node to report problems at.
func (dc *decoder) stringItems(v *yaml.Node, field string) func(func(string, *yaml.Node) bool) {
	return func(yield func(string, *yaml.Node) bool) {
		switch v.Kind {
		case yaml.ScalarNode:
			if v.Tag != "!!str" {
				dc.errorf(v, field, "%s must be a list of names or a comma-separated string, got %q", field, v.Value)
				return
			}
			for _, part := range strings.Split(v.Value, ",") {
				if part = strings.TrimSpace(part); part != "" && !yield(part, v) {
					return
				}
			}
		case yaml.SequenceNode:
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode || item.Tag != "!!str" || strings.TrimSpace(item.Value) == "" {
					dc.errorf(item, field, "%s entries must be names (strings)", field)
					continue
				}
				if !yield(strings.TrimSpace(item.Value), item) {
					return
				}
			}
		default:
			dc.errorf(v, field, "%s must be a list of names or a comma-separated string", field)
		}
	}
}

// str reads a string of a value of several shapes (a model list's entry).
func (dc *decoder) str(v *yaml.Node, field string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		dc.errorf(v, field, "%s must be a string, got %s", field, yamlstruct.Describe(v))
		return "", false
	}
	return v.Value, true
}

// positive returns n when the file gives it and it is at least 1.
func (dc *decoder) positive(n at[int], field string) (int, bool) {
	if !n.Set() {
		return 0, false
	}
	if n.Value < 1 {
		dc.add(SeverityError, n.Line, field, fmt.Sprintf("%s must be at least 1, got %d", field, n.Value))
		return 0, false
	}
	return n.Value, true
}

// positiveDuration returns t when it is more than zero.
func (dc *decoder) positiveDuration(t at[time.Duration], field string) time.Duration {
	if t.Value <= 0 {
		dc.add(SeverityError, t.Line, field, fmt.Sprintf("%s must be a positive duration such as \"2m\" or \"90s\", got %q", field, t.Value))
		return 0
	}
	return t.Value
}

// enum returns the value if it is one of allowed, else reports it and
// returns def (def too when the file is silent).
func (dc *decoder) enum(v at[string], field, def string, allowed ...string) string {
	if !v.Set() {
		return def
	}
	if slices.Contains(allowed, v.Value) {
		return v.Value
	}
	dc.add(SeverityError, v.Line, field, fmt.Sprintf("%s %q is not one of %s", field, v.Value, strings.Join(allowed, ", ")))
	return def
}

func (dc *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	dc.add(SeverityError, dc.d.line(n), field, fmt.Sprintf(format, args...))
}

func (dc *decoder) warnf(n *yaml.Node, field, format string, args ...any) {
	dc.add(SeverityWarning, dc.d.line(n), field, fmt.Sprintf(format, args...))
}

func (dc *decoder) add(sev string, line int, field, msg string) {
	dc.probs = append(dc.probs, Problem{File: dc.d.file, Severity: sev, Line: line, Field: field, Message: msg})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
