package registry

import (
	"fmt"
	"slices"
	"strings"
	"time"

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

// decoder collects an Agent and its problems from the frontmatter nodes.
type decoder struct {
	d     *Document
	known []string
	a     Agent
	facts facts
	probs []Problem
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
	hasDesc := false
	seen := map[string]int{}
	for k, v := range pairs(d.root) {
		if first, dup := seen[k.Value]; dup {
			dc.errorf(k, k.Value, "key %q is set twice (first on line %d)", k.Value, first)
			continue
		}
		seen[k.Value] = d.line(k)
		dc.lenient(k)
		if isNull(v) {
			continue
		}
		switch k.Value {
		case "name":
			dc.name(v)
		case "description":
			hasDesc = true
			dc.a.Description, _ = dc.str(v, "description")
		case "model":
			dc.model(v)
		case "tools":
			dc.tools(v)
		case "disallowedTools":
			dc.a.Tools.Deny = append(dc.a.Tools.Deny, dc.toolList(v, "tools.deny")...)
		case "subagents", "sub_agents": // sub_agents is seed 003's spelling
			if other := map[string]string{"subagents": "sub_agents", "sub_agents": "subagents"}[k.Value]; seen[other] != 0 {
				dc.errorf(k, k.Value, "%s and %s are the same setting (first on line %d): keep one", k.Value, other, seen[other])
				continue
			}
			dc.subagents(v)
		case "skills":
			dc.skills(v)
		case "agents":
			dc.a.Subagents.Rules.Allow = append(nonNil(dc.a.Subagents.Rules.Allow), dc.agentList(v, "subagents.allow", true)...)
		case "max_turns", "maxTurns": // maxTurns is Claude Code's spelling
			if other := map[string]string{"max_turns": "maxTurns", "maxTurns": "max_turns"}[k.Value]; seen[other] != 0 {
				dc.errorf(k, k.Value, "%s and %s both set the turn limit (first on line %d): keep one", k.Value, other, seen[other])
				continue
			}
			dc.a.MaxTurns, _ = dc.positiveInt(v, k.Value)
		case "timeout":
			dc.a.Timeout = dc.duration(v, "timeout")
		case "retry":
			dc.retry(v)
		case "budget":
			dc.budget(v)
		case "enabled":
			if b, ok := dc.boolean(v, "enabled"); ok {
				dc.a.Enabled = b
			}
		case "temperature":
			dc.temperature(v)
		case "max_tokens":
			dc.a.Sampling.MaxTokens, _ = dc.positiveInt(v, "max_tokens")
		case "orchestrator":
			dc.a.Orchestrator, _ = dc.boolean(v, "orchestrator")
		default:
			dc.unknownKey(k)
		}
	}
	dc.finish(hasDesc)
	return dc.a, dc.probs, dc.facts
}

// finish applies the rules that depend on the whole file.
func (dc *decoder) finish(hasDesc bool) {
	dc.identity()
	if !hasDesc || strings.TrimSpace(dc.a.Description) == "" {
		sev := SeverityError
		if IsVSCodeFile(dc.d.file) {
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
	case name != "" && !IsVSCodeFile(dc.d.file) && ValidName(name):
		return
	case name != "" && !IsVSCodeFile(dc.d.file):
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

func (dc *decoder) name(v *yaml.Node) {
	if s, ok := dc.str(v, "name"); ok {
		dc.a.Name, dc.facts.nameLine = strings.TrimSpace(s), dc.d.line(v)
	}
}

// model reads a model or VS Code's prioritized list of models (the first
// that resolves wins; resolving is the runtime's job).
func (dc *decoder) model(v *yaml.Node) {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
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
		dc.a.Model, dc.a.ModelLine = dc.a.Models[0], dc.d.line(v)
	}
}

func (dc *decoder) tools(v *yaml.Node) {
	switch v.Kind {
	case yaml.SequenceNode, yaml.ScalarNode:
		dc.a.Tools.Allow = dc.toolList(v, "tools.allow")
	case yaml.MappingNode:
		for k, val := range pairs(v) {
			switch k.Value {
			case "allow":
				if !isNull(val) {
					dc.a.Tools.Allow = dc.toolList(val, "tools.allow")
				}
			case "deny":
				dc.a.Tools.Deny = append(dc.a.Tools.Deny, dc.toolList(val, "tools.deny")...)
			case "ask":
				dc.a.Tools.Ask = append(dc.a.Tools.Ask, dc.toolList(val, "tools.ask")...)
			default:
				dc.warnf(k, "tools", "unknown key tools.%s (expected allow, deny or ask)", k.Value)
			}
		}
	default:
		dc.errorf(v, "tools", "tools must be a list, a comma-separated string or {allow, deny}")
	}
}

func (dc *decoder) subagents(v *yaml.Node) {
	if v.Kind == yaml.SequenceNode {
		dc.a.Subagents.Rules.Allow = append(nonNil(dc.a.Subagents.Rules.Allow), dc.agentList(v, "subagents.allow", true)...)
		return
	}
	if v.Kind != yaml.MappingNode {
		dc.errorf(v, "subagents", "subagents must be a mapping (allow, deny, execution, max_concurrent, context, nested, dispatch)")
		return
	}
	s := &dc.a.Subagents
	for k, val := range pairs(v) {
		if isNull(val) {
			continue
		}
		field := "subagents." + k.Value
		switch k.Value {
		case "allow":
			s.Rules.Allow = append(nonNil(s.Rules.Allow), dc.agentList(val, field, true)...)
		case "deny":
			s.Rules.Deny = append(s.Rules.Deny, dc.agentList(val, field, false)...)
		case "ask":
			s.Rules.Ask = append(s.Rules.Ask, dc.agentList(val, field, false)...)
		case "execution":
			s.Execution = dc.enum(val, field, s.Execution, Parallel, ParallelStreaming, Sequential)
		case "context":
			s.Context = dc.enum(val, field, s.Context, ContextTaskOnly, ContextSummary, ContextFull, ContextFullHistory)
			if s.Context == ContextFullHistory {
				s.Context = ContextFull
			}
		case "dispatch":
			s.Dispatch, _ = dc.boolean(val, field)
		case "max_concurrent":
			if n, ok := dc.positiveInt(val, field); ok {
				s.MaxConcurrent = n
			}
		case "nested":
			s.Nested, _ = dc.boolean(val, field)
		default:
			dc.warnf(k, field, "unknown key %s", field)
		}
	}
}

// temperature reads a sampling temperature between 0 and 2, the widest
// range the providers accept (Anthropic's is 0 to 1; it answers for itself).
func (dc *decoder) temperature(v *yaml.Node) {
	var f float64
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") || v.Decode(&f) != nil {
		dc.errorf(v, "temperature", "temperature must be a number such as 0.2, got %s", describe(v))
		return
	}
	if f < 0 || f > 2 {
		dc.errorf(v, "temperature", "temperature must be between 0 and 2, got %v", f)
		return
	}
	dc.a.Sampling.Temperature = &f
}

func (dc *decoder) retry(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		dc.errorf(v, "retry", "retry must be a mapping {max_attempts, backoff}")
		return
	}
	for k, val := range pairs(v) {
		if isNull(val) {
			continue
		}
		field := "retry." + k.Value
		switch k.Value {
		case "max_attempts":
			if n, ok := dc.positiveInt(val, field); ok {
				dc.a.Retry.MaxAttempts = n
			}
		case "backoff":
			dc.a.Retry.Backoff = dc.enum(val, field, dc.a.Retry.Backoff, Backoffs...)
		default:
			dc.warnf(k, field, "unknown key %s", field)
		}
	}
}

// toolList reads a list or a comma string of tool names, mapped to agentry
// names through the tool table (MapTool). Names agentry has nothing for are
// warnings and left out; delegation entries (Task, Agent(a, b), agent,
// runSubagent) go to Agent.Delegation. The result is never nil.
func (dc *decoder) toolList(v *yaml.Node, field string) []string {
	out := []string{}
	deny := field == "tools.deny"
	anyTarget := false
	for name, n := range dc.toolItems(v, field) {
		t := MapTool(name, dc.known)
		switch {
		case t.Delegate && deny && t.Targets == nil:
			dc.a.Delegation.Denied = true
		case t.Delegate && deny:
			dc.a.Delegation.DeniedTargets = append(dc.a.Delegation.DeniedTargets, t.Targets...)
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
				if !matchesAny(tool, dc.known) {
					dc.warnf(n, field, "tool %q matches no known tool", tool)
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
	return out
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

func (dc *decoder) str(v *yaml.Node, field string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		dc.errorf(v, field, "%s must be a string, got %s", field, describe(v))
		return "", false
	}
	return v.Value, true
}

func (dc *decoder) positiveInt(v *yaml.Node, field string) (int, bool) {
	var n int
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&n) != nil {
		dc.errorf(v, field, "%s must be a whole number, got %s", field, describe(v))
		return 0, false
	}
	if n < 1 {
		dc.errorf(v, field, "%s must be at least 1, got %d", field, n)
		return 0, false
	}
	return n, true
}

func (dc *decoder) boolean(v *yaml.Node, field string) (bool, bool) {
	var b bool
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
		dc.errorf(v, field, "%s must be true or false, got %s", field, describe(v))
		return false, false
	}
	return b, true
}

func (dc *decoder) duration(v *yaml.Node, field string) time.Duration {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		dc.errorf(v, field, "%s must be a duration such as \"2m\" or \"90s\", got %s", field, describe(v))
		return 0
	}
	t, err := time.ParseDuration(v.Value)
	if err != nil || t <= 0 {
		dc.errorf(v, field, "%s must be a positive duration such as \"2m\" or \"90s\", got %q", field, v.Value)
		return 0
	}
	return t
}

// enum returns the value if it is one of allowed, else reports it and
// returns def.
func (dc *decoder) enum(v *yaml.Node, field, def string, allowed ...string) string {
	s, ok := dc.str(v, field)
	if !ok {
		return def
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	dc.errorf(v, field, "%s %q is not one of %s", field, s, strings.Join(allowed, ", "))
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

// pairs yields the key and value nodes of a mapping (nothing for nil).
func pairs(m *yaml.Node) func(func(*yaml.Node, *yaml.Node) bool) {
	return func(yield func(*yaml.Node, *yaml.Node) bool) {
		if m == nil || m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if !yield(m.Content[i], m.Content[i+1]) {
				return
			}
		}
	}
}

func isNull(v *yaml.Node) bool {
	return v == nil || v.Kind == yaml.ScalarNode && v.Tag == "!!null"
}

// describe names a node's value for a type error: `string "three"`, `a list`.
func describe(v *yaml.Node) string {
	switch v.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	kind := strings.TrimPrefix(v.Tag, "!!")
	if kind == "str" {
		kind = "string"
	}
	return fmt.Sprintf("%s %q", kind, v.Value)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
