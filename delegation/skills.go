package delegation

import (
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// skills are what this invocation may give the agents it dispatches.
func (inv *invocation) skills() orchestrator.Skills {
	return orchestrator.Skills{Tools: inv.tools, All: inv.rn.rt.tools, Chain: inv.chain}
}

// getSkill answers get_skill from the invocation's effective tools, so a
// dispatcher's context holds only the schemas it asked for.
func (inv *invocation) getSkill(c model.ToolCall) string {
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+loop.GetSkillTool, inv.span.s.ID, inv.agent.Name, inv.depth,
		map[string]any{semconv.AttrToolName: loop.GetSkillTool, semconv.AttrToolArguments: string(c.Args)})
	out, st := inv.skills().GetSkill(c)
	errText := ""
	if st != trace.StatusOK {
		errText = out
	}
	sp.end(st, errText, map[string]any{semconv.AttrToolResult: out})
	return out
}
