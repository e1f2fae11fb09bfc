package demo

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation/model"
)

// The runtime's orchestration tools (delegation's GetSkillTool,
// DispatchAgentTool and GetAgentResultsTool), which the demo recognises.
const (
	getSkillTool      = "get_skill"
	dispatchTool      = "dispatch_agent"
	agentResultsTools = "get_agent_results"
)

// offers reports whether tools holds one named name.
func offers(tools []model.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// orchestrate plays an orchestrator as seed 001 describes one: it
// discovers its skills, dispatches a small team with a dependency, collects
// the results and synthesizes. Each step is chosen from what the
// conversation already holds, so the play is the same on every run.
//
// In a conversation only the latest request counts: the play starts again
// at the last user message that is not a note from the runtime.
func orchestrate(agent, task string, msgs []model.Message) model.Response {
	for i := len(msgs) - 1; i > 0; i-- {
		if m := msgs[i]; m.Role == model.RoleUser && !runtimeNote(m.Content) {
			task, msgs = coreTask(m.Content), msgs[i:]
			break
		}
	}
	called := map[string]string{} // tool → its last result
	ids := map[string]string{}    // call ID → tool
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			ids[c.ID] = c.Name
			called[c.Name] = ""
		}
		if m.Role == model.RoleTool {
			called[ids[m.ToolCallID]] = m.Content
		}
	}
	_, discovered := called[getSkillTool]
	_, dispatched := called[dispatchTool]
	results, collected := called[agentResultsTools]
	switch {
	case !discovered:
		return model.Response{ToolCalls: []model.ToolCall{{ID: "demo_skill_1", Name: getSkillTool, Args: json.RawMessage(`{}`)}}}
	case !dispatched:
		if calls := team(task, called[getSkillTool]); len(calls) > 0 {
			return model.Response{ToolCalls: calls}
		}
		return model.Response{Text: fmt.Sprintf("I have no skills to give a team for %q, so I cannot act on it.", shorten(task, 80))}
	case !collected:
		return model.Response{ToolCalls: []model.ToolCall{{ID: "demo_results_1", Name: agentResultsTools, Args: json.RawMessage(`{}`)}}}
	}
	return model.Response{Text: synthesize(agent, task, results)}
}

// team dispatches three agents over the skills get_skill listed: one
// gathers, and two act on what it found, in parallel.
func team(task, listing string) []model.ToolCall {
	var l struct {
		Domains []struct {
			Domain string   `json:"domain"`
			Tools  []string `json:"tools"`
		} `json:"domains"`
	}
	if json.Unmarshal([]byte(listing), &l) != nil || len(l.Domains) == 0 || len(l.Domains[0].Tools) == 0 {
		return nil
	}
	first := l.Domains[0].Tools[0]
	last := l.Domains[len(l.Domains)-1]
	act := last.Tools[len(last.Tools)-1]
	t := shorten(task, 160)
	specs := []map[string]any{
		{"agent_id": "gather", "mission": "Collect what is needed for: " + t, "skills": []string{first}},
		{"agent_id": "act", "mission": "Do the main part of: " + t, "skills": []string{act}, "depends_on": []string{"gather"}},
		{"agent_id": "follow_up", "mission": "Arrange the follow-up for: " + t, "skills": []string{act}, "depends_on": []string{"gather"}},
	}
	calls := make([]model.ToolCall, len(specs))
	for i, s := range specs {
		args, _ := json.Marshal(s)
		calls[i] = model.ToolCall{ID: fmt.Sprintf("demo_dispatch_%d", i+1), Name: dispatchTool, Args: args}
	}
	return calls
}

func synthesize(agent, task, results string) string {
	var r struct {
		Agents []struct {
			AgentID string `json:"agent_id"`
			Status  string `json:"status"`
			Result  string `json:"result"`
			Error   string `json:"error"`
		} `json:"agents"`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Done with %q.", shorten(task, 80))
	if json.Unmarshal([]byte(results), &r) != nil {
		return b.String()
	}
	for _, a := range r.Agents {
		if a.Status != "completed" {
			fmt.Fprintf(&b, "\n- %s did not finish (%s: %s).", a.AgentID, a.Status, shorten(a.Error, 100))
			continue
		}
		fmt.Fprintf(&b, "\n- %s: %s", a.AgentID, shorten(a.Result, 160))
	}
	fmt.Fprintf(&b, "\n%s coordinated %d agents.", agent, len(r.Agents))
	return b.String()
}

// runtimeNote reports whether a user message is the runtime's (results of
// background agents handed over unasked), not the person's.
func runtimeNote(s string) bool {
	return strings.HasPrefix(s, "These agents you started") || strings.HasPrefix(s, "Delegation results that have landed")
}
