package delegation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// GetSkillTool lets a dispatcher discover the tools it may hand to agents.
const GetSkillTool = "get_skill"

func getSkillSpec() model.Tool {
	return model.Tool{
		Name: GetSkillTool,
		Description: "Discover the skills (tools) you may give to agents you dispatch. Without domain: the domains " +
			"(tool groups) and their tool names. With a domain (or one tool name): those tools' descriptions and parameters.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"domain":{"type":"string",` +
			`"description":"A domain such as filesystem or web, or one tool name; omit to list the domains."}},"required":[]}`),
	}
}

// skillDomain is one tool group of get_skill's listing.
type skillDomain struct {
	Domain string   `json:"domain"`
	Tools  []string `json:"tools"`
}

// getSkill answers get_skill from the invocation's effective tools, so a
// dispatcher's context holds only the schemas it asked for.
func (inv *invocation) getSkill(c model.ToolCall) string {
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+GetSkillTool, inv.span.s.ID, inv.agent.Name, inv.depth,
		map[string]any{semconv.AttrToolName: GetSkillTool, semconv.AttrToolArguments: string(c.Args)})
	var args struct {
		Domain string `json:"domain"`
	}
	if len(c.Args) > 0 && json.Unmarshal(c.Args, &args) != nil {
		out := "error: arguments must be {domain?: string}"
		sp.end(trace.StatusError, out, map[string]any{semconv.AttrToolResult: out})
		return out
	}
	names := make([]string, 0, len(inv.tools))
	for n := range inv.tools {
		names = append(names, n)
	}
	slices.Sort(names)
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
				skills = append(skills, inv.tools[n].Spec())
			}
		}
		if len(skills) == 0 {
			res := fmt.Sprintf("error: no skills in domain %q that you may use", args.Domain)
			sp.end(trace.StatusError, res, map[string]any{semconv.AttrToolResult: res})
			return res
		}
		out = map[string]any{"domain": args.Domain, "skills": skills}
	}
	b, _ := json.Marshal(out)
	sp.end(trace.StatusOK, "", map[string]any{semconv.AttrToolResult: string(b)})
	return string(b)
}

// expandSkill gives the effective tools a skill names (a tool, a domain or
// a pattern, as permissions match them), or why it cannot be given. A
// skill with an argument part (shell.run(git *)) is kept whole, so the
// dispatched agent gets the tool restricted as the skill says.
func (inv *invocation) expandSkill(s string) ([]string, error) {
	if _, _, ok := permissions.SplitPattern(s); ok {
		return inv.commandSkill(s)
	}
	var out []string
	for n := range inv.tools {
		if permissions.Match(s, n) {
			out = append(out, n)
		}
	}
	if len(out) > 0 {
		slices.Sort(out)
		return out, nil
	}
	if _, exists := inv.rn.rt.tools[s]; exists {
		return nil, fmt.Errorf("skill %q is not among your tools: %s", s, permissions.Tool(inv.chain, s).Reason)
	}
	return nil, fmt.Errorf("unknown skill %q: call get_skill to see the skills you may give", s)
}

// commandSkill checks a skill with an argument part: it must name one of
// the dispatcher's tools that takes a pattern argument.
func (inv *invocation) commandSkill(s string) ([]string, error) {
	if why := permissions.ValidArgumentPattern(s); why != "" {
		return nil, fmt.Errorf("skill %s", why)
	}
	name, _, _ := permissions.SplitPattern(s)
	t, ok := inv.tools[name]
	if !ok {
		return nil, fmt.Errorf("skill %q: %s is not among your tools", s, name)
	}
	if _, ok := t.(tool.Argumented); !ok {
		return nil, fmt.Errorf("skill %q: %s takes no argument a pattern could restrict; give %s itself", s, name, name)
	}
	return []string{s}, nil
}
