package agents_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web"
)

func TestExplorerShowsTheSameDecisionsAsExplain(t *testing.T) {
	e := newTestEnv(t, team)
	status, doc := e.Get("/permissions?chain=lead&chain=analyst")
	if status != http.StatusOK {
		t.Fatalf("GET = %d", status)
	}
	want, err := e.Config.Agents.Snapshot().Explain(e.Config.Global, e.Config.Delegation, []string{"lead", "analyst"})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(find(doc, "levels")); got != "global → lead → analyst" {
		t.Errorf("levels = %q", got)
	}
	for _, d := range want.Tools {
		row := textOf(find(doc, "decision-tools-"+d.Tool))
		verdict := map[bool]string{true: "allow", false: "deny"}[d.Allowed]
		if !strings.Contains(row, verdict) || !strings.Contains(row, d.Reason) {
			t.Errorf("row for %s = %q, want %s and %q", d.Tool, row, verdict, d.Reason)
		}
	}
	if len(findAll(doc, "decision-subagents-")) != len(want.Subagents) {
		t.Errorf("sub-agent rows = %d, want %d", len(findAll(doc, "decision-subagents-")), len(want.Subagents))
	}
}

func TestExplorerOffersAllowedTargetsFirst(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/permissions?chain=lead")
	sel := find(doc, "chain-next")
	var values []string
	for c := sel.FirstChild; c != nil; c = c.NextSibling {
		if c.Data == "option" {
			values = append(values, attr(c, "value")+"|"+textOf(c))
		}
	}
	if len(values) == 0 || !strings.HasPrefix(values[0], "analyst|analyst") {
		t.Errorf("options = %v, want analyst (allowed) first", values)
	}
	last := values[len(values)-1]
	if !strings.Contains(last, "not allowed") {
		t.Errorf("last option %q should be marked not allowed", last)
	}
}

func TestExplorerReportsAnUnknownAgent(t *testing.T) {
	e := newTestEnv(t, team)
	status, doc := e.Get("/permissions?chain=ghost")
	if status != http.StatusNotFound || !strings.Contains(textOf(find(doc, "explorer-error")), "ghost") {
		t.Errorf("unknown agent = %d %q", status, textOf(find(doc, "explorer-error")))
	}
}

func TestExplorerWarnsAboutAChainThatCannotHappen(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/permissions?chain=analyst&chain=lead")
	if w := textOf(find(doc, "explorer-warning")); !strings.Contains(w, "analyst may not delegate to lead") {
		t.Errorf("warning = %q, want the impossible link named", w)
	}
	if _, doc := e.Get("/permissions?chain=lead&chain=analyst"); find(doc, "explorer-warning") != nil {
		t.Error("a possible chain shows a warning")
	}
}

func TestExplorerMarksAToolThatCannotRunHere(t *testing.T) {
	e := newTestEnv(t, team, func(c *web.Config) {
		c.Unavailable = map[string]string{"filesystem.read_file": "bubblewrap is not installed"}
	})
	_, doc := e.Get("/permissions?chain=lead")
	if got := textOf(find(doc, "unavailable-filesystem.read_file")); !strings.Contains(got, "Unavailable here: bubblewrap is not installed") {
		t.Errorf("marker = %q", got)
	}
	if n := len(findAll(doc, "unavailable-")); n != 1 {
		t.Errorf("%d tools marked unavailable, want only the one that is", n)
	}
}

func TestAModelThatFallsBackIsAWarningInTheListAndTheEditor(t *testing.T) {
	const why = `model "sonnet": no API key for anthropic; runs on the default model "demo" instead`
	e := newTestEnv(t, team, func(c *web.Config) {
		c.ModelProblems = func(a registry.Agent) []registry.Problem {
			if a.Name != "lead" {
				return nil
			}
			return []registry.Problem{{File: a.File, Agent: a.Name, Severity: registry.SeverityWarning, Line: 2, Field: "model", Message: why}}
		}
	})
	_, list := e.Get("/agents")
	if got := textOf(find(list, "agent-problems-lead")); !strings.Contains(got, why) {
		t.Errorf("lead's row problems = %q, want the model warning", got)
	}
	if got := textOf(find(list, "agent-problems-analyst")); strings.Contains(got, "sonnet") {
		t.Errorf("analyst's row warns about another agent's model: %q", got)
	}
	_, editor := e.Get("/agents/lead")
	if got := textOf(find(editor, "problem-model")); !strings.Contains(got, why) {
		t.Errorf("editor's model field problem = %q, want the warning", got)
	}
}

// The explorer says what the runtime does of a Claude Code tools list
// without Task: the agent may not delegate, general-purpose included.
func TestExplorerShowsAClaudeCodeToolListForbidsDelegating(t *testing.T) {
	agents := map[string]string{"reader.md": "---\nname: reader\ndescription: Reads.\ntools: Read, Grep\nsubagents: {allow: [\"*\"]}\n---\nRead.\n"}
	for k, v := range team {
		agents[k] = v
	}
	e := newTestEnv(t, agents)
	_, doc := e.Get("/permissions?chain=reader")
	for _, target := range []string{"general-purpose", "analyst"} {
		row := textOf(find(doc, "decision-subagents-"+target))
		if !strings.Contains(row, "deny") || !strings.Contains(row, `denied by agent "reader": its tools list names no Task or Agent, so it may not delegate`) {
			t.Errorf("row for %s = %q, want it denied for the tools list", target, row)
		}
	}
}

// A call that waits for a person's approval is the third verdict, ask:
// the explorer says "ask", not "allow" beside "needs approval for each call".
func TestExplorerSaysAskForACallThatNeedsApproval(t *testing.T) {
	agents := map[string]string{"careful.md": "---\nname: careful\ndescription: Asks first.\ntools:\n  allow: [filesystem]\n  ask: [filesystem.write_file]\nsubagents:\n  allow: [analyst, intern]\n  ask: [analyst]\n---\nAsk.\n"}
	for k, v := range team {
		agents[k] = v
	}
	e := newTestEnv(t, agents)
	_, doc := e.Get("/permissions?chain=careful")
	for _, c := range []struct{ row, want string }{
		{"decision-tools-filesystem.write_file", "ask"},
		{"decision-subagents-analyst", "ask"},
		{"decision-tools-filesystem.read_file", "allow"},
		{"decision-subagents-intern", "allow"},
	} {
		verdict := textOf(find(doc, "verdict-"+strings.TrimPrefix(c.row, "decision-")))
		if verdict != c.want {
			t.Errorf("%s: verdict %q, want %q (%s)", c.row, verdict, c.want, textOf(find(doc, c.row)))
		}
	}
}
