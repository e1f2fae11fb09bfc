package orchestrator

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace"
)

// GetSkillSpec is the get_skill tool, with which a dispatcher discovers
// the tools it may hand to agents.
func GetSkillSpec() model.Tool {
	return model.Tool{
		Name: loop.GetSkillTool,
		Description: "Discover the skills (tools) you may give to agents you dispatch. Without domain: the domains " +
			"(tool groups) and their tool names. With a domain (or one tool name): those tools' descriptions and parameters.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"domain":{"type":"string",` +
			`"description":"A domain such as filesystem or web, or one tool name; omit to list the domains."}},"required":[]}`),
	}
}

// GetAgentResultsSpec is the get_agent_results tool, with which an agent
// collects its background agents.
func GetAgentResultsSpec() model.Tool {
	return model.Tool{
		Name: loop.GetAgentResultsTool,
		Description: "Wait for agents you started in the background (dispatch_agent, or delegate with background: true) " +
			"and get their results. Without agent_ids it waits for every one whose result you have not had yet.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"agent_ids":{"type":"array","items":{"type":"string"},` +
			`"description":"ids of the agents to wait for; omit to wait for all."}},"required":[]}`),
	}
}

// Skills are what a dispatcher may give the agents it dispatches: its
// effective tools (Tools), against the runtime's (All) and its permission
// chain, which says why a tool it lacks is not its own.
type Skills struct {
	Tools map[string]tool.Tool
	All   map[string]tool.Tool
	Chain []permissions.Level
}

// skillDomain is one tool group of get_skill's listing.
type skillDomain struct {
	Domain string   `json:"domain"`
	Tools  []string `json:"tools"`
}

// GetSkill answers a get_skill call from the dispatcher's effective tools,
// so its context holds only the schemas it asked for: the text the model
// reads, and the status of the call's span.
func (s Skills) GetSkill(c model.ToolCall) (string, trace.Status) {
	var args struct {
		Domain string `json:"domain"`
	}
	if len(c.Args) > 0 && json.Unmarshal(c.Args, &args) != nil {
		return "error: arguments must be {domain?: string}", trace.StatusError
	}
	names := slices.Sorted(maps.Keys(s.Tools))
	var out any
	if args.Domain == "" {
		var ds []skillDomain
		for _, n := range names {
			g, _, _ := strings.Cut(n, ".")
			if len(ds) == 0 || ds[len(ds)-1].Domain != g {
				ds = append(ds, skillDomain{Domain: g})
			}
			ds[len(ds)-1].Tools = append(ds[len(ds)-1].Tools, n)
		}
		out = map[string]any{"domains": ds}
	} else {
		var skills []model.Tool
		for _, n := range names {
			if g, _, _ := strings.Cut(n, "."); g == args.Domain || n == args.Domain {
				skills = append(skills, s.Tools[n].Spec())
			}
		}
		if len(skills) == 0 {
			return fmt.Sprintf("error: no skills in domain %q that you may use", args.Domain), trace.StatusError
		}
		out = map[string]any{"domain": args.Domain, "skills": skills}
	}
	b, _ := json.Marshal(out)
	return string(b), trace.StatusOK
}

// Expand gives the effective tools a skill names (a tool, a domain or a
// pattern, as permissions match them), or why it cannot be given. A skill
// with an argument part (shell.run(git *)) is kept whole, so the
// dispatched agent gets the tool restricted as the skill says.
func (s Skills) Expand(skill string) ([]string, error) {
	if _, _, ok := permissions.SplitPattern(skill); ok {
		return s.command(skill)
	}
	var out []string
	for n := range s.Tools {
		if permissions.Match(skill, n) {
			out = append(out, n)
		}
	}
	if len(out) > 0 {
		slices.Sort(out)
		return out, nil
	}
	if _, exists := s.All[skill]; exists {
		return nil, fmt.Errorf("skill %q is not among your tools: %s", skill, permissions.Tool(s.Chain, skill).Reason)
	}
	return nil, fmt.Errorf("unknown skill %q: call get_skill to see the skills you may give", skill)
}

// command checks a skill with an argument part: it must name one of the
// dispatcher's tools that takes a pattern argument.
func (s Skills) command(skill string) ([]string, error) {
	if why := permissions.ValidArgumentPattern(skill); why != "" {
		return nil, fmt.Errorf("skill %s", why)
	}
	name, _, _ := permissions.SplitPattern(skill)
	t, ok := s.Tools[name]
	if !ok {
		return nil, fmt.Errorf("skill %q: %s is not among your tools", skill, name)
	}
	if _, ok := t.(tool.Argumented); !ok {
		return nil, fmt.Errorf("skill %q: %s takes no argument a pattern could restrict; give %s itself", skill, name, name)
	}
	return []string{skill}, nil
}
