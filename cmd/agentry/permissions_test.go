package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentry/agentry/trace"
)

// permissionsJSON is the DESIGN §8 contract of `permissions --json`.
type permissionsJSON struct {
	Agent string   `json:"agent"`
	Chain []string `json:"chain"`
	Tools []struct {
		Tool    string `json:"tool"`
		Allowed bool   `json:"allowed"`
		Reason  string `json:"reason"`
	} `json:"tools"`
	Subagents []struct {
		Agent   string `json:"agent"`
		Allowed bool   `json:"allowed"`
		Reason  string `json:"reason"`
		Remote  string `json:"remote"`
	} `json:"subagents"`
	UnnamedRemote []string `json:"unnamed_remote"`
}

func permissionsFixture(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, dir, "lead.md", "---\nname: lead\ndescription: Leads.\ntools: {allow: [filesystem], deny: [filesystem.write_file]}\nsubagents:\n  allow: [helper]\n  deny: [general-purpose]\n---\nLead.\n")
	writeFile(t, dir, "helper.md", "---\nname: helper\ndescription: Helps.\ntools: [filesystem.read_file, filesystem.write_file, web.fetch]\n---\nHelp.\n")
	return dir
}

func TestPermissionsJSONIntersectsTheChain(t *testing.T) {
	s, out, errOut := testSession("AGENTRY_PERMISSIONS__TOOLS__DENY=filesystem.grep")
	code := s.main(context.Background(), []string{"permissions", "helper", "--via", "lead", "--agents", permissionsFixture(t), "--json"})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got permissionsJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if got.Agent != "helper" || strings.Join(got.Chain, ",") != "global,lead,helper" {
		t.Errorf("agent %q chain %v", got.Agent, got.Chain)
	}
	allowed := map[string]string{}
	for _, d := range got.Tools {
		if d.Reason == "" {
			t.Errorf("%s has no reason", d.Tool)
		}
		if d.Allowed {
			allowed[d.Tool] = d.Reason
		}
	}
	if len(allowed) != 1 || allowed["filesystem.read_file"] == "" {
		t.Errorf("allowed tools = %v, want only filesystem.read_file (lead denies write, lacks web)", allowed)
	}
	for _, d := range got.Tools {
		if d.Tool == "filesystem.write_file" && !strings.Contains(d.Reason, `"lead"`) {
			t.Errorf("write_file reason %q should name the lead level", d.Reason)
		}
	}
}

func TestPermissionsExplainsDelegationTargets(t *testing.T) {
	s, out, errOut := testSession()
	if code := s.main(context.Background(), []string{"permissions", "lead", "--agents", permissionsFixture(t), "--json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got permissionsJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]bool{}
	for _, d := range got.Subagents {
		verdicts[d.Agent] = d.Allowed
	}
	if !verdicts["helper"] || verdicts["general-purpose"] || verdicts["lead"] {
		t.Errorf("targets = %v, want helper only (general-purpose denied, no self-delegation)", verdicts)
	}
}

func TestPermissionsUnknownAgentIsAnError(t *testing.T) {
	s, _, errOut := testSession()
	code := s.main(context.Background(), []string{"permissions", "ghost", "--agents", permissionsFixture(t)})
	if code != 1 || !strings.Contains(errOut.String(), `"ghost"`) {
		t.Errorf("exit %d stderr %q, want 1 and the name", code, errOut)
	}
	s, _, _ = testSession()
	if code := s.main(context.Background(), []string{"permissions"}); code != 2 {
		t.Errorf("no agent: exit %d, want 2", code)
	}
}

func TestPermissionsListsConfiguredMCPGroups(t *testing.T) {
	dir := permissionsFixture(t)
	cfgFile := writeFile(t, t.TempDir(), "agentry.yaml", "mcp:\n  servers:\n    everything: {command: node}\n")
	s, out, errOut := testSession()
	if code := s.main(context.Background(), []string{"permissions", "lead", "--agents", dir, "--config", cfgFile, "--json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got permissionsJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, d := range got.Tools {
		if d.Tool == "everything.*" {
			if d.Allowed {
				t.Errorf("everything.* allowed for lead, whose allow list is [filesystem]: %s", d.Reason)
			}
			return
		}
	}
	t.Errorf("tools %+v do not list the MCP group everything.*", got.Tools)
}

func TestPermissionsWarnsAboutAChainThatCannotHappen(t *testing.T) {
	s, out, errOut := testSession()
	code := s.main(context.Background(), []string{"permissions", "lead", "--via", "helper", "--agents", permissionsFixture(t)})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "warning: this chain cannot happen: helper may not delegate to lead") {
		t.Errorf("output lacks the warning:\n%s", out)
	}
	s, out, _ = testSession()
	s.main(context.Background(), []string{"permissions", "helper", "--via", "lead", "--agents", permissionsFixture(t), "--json"})
	if strings.Contains(out.String(), "warnings") {
		t.Errorf("a possible chain got warnings:\n%s", out)
	}
}

// remoteFixture is permissionsFixture with an a2a: section: an agent with
// an id (remote-researcher), one named only by its card, and one whose id
// an agent file has (helper). Every card is on a server that counts the
// requests it gets: permissions must read none.
func remoteFixture(t *testing.T) (agents, cfgFile, card string, requests *atomic.Int32) {
	t.Helper()
	requests = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	agents = permissionsFixture(t)
	writeFile(t, agents, "strict.md", "---\nname: strict\ndescription: Trusts no one outside\nsubagents:\n  allow: [\"*\"]\n  deny: [remote-researcher]\n---\nS.\n")
	writeFile(t, agents, "lead.md", "---\nname: lead\ndescription: Leads.\nsubagents:\n  allow: [helper, remote-researcher]\n---\nLead.\n")
	card = srv.URL + "/a2a/researcher/.well-known/agent-card.json"
	cfgFile = writeFile(t, t.TempDir(), "agentry.yaml", "a2a:\n  - {card: "+card+", id: remote-researcher}\n  - {card: "+srv.URL+"/other}\n  - {card: "+srv.URL+"/shadowed, id: helper}\n")
	return agents, cfgFile, card, requests
}

func TestPermissionsShowsRemoteAgentsAsTheRuntimeDecidesThem(t *testing.T) {
	agents, cfgFile, card, requests := remoteFixture(t)
	decide := func(agent string) permissionsJSON {
		t.Helper()
		s, out, errOut := testSession()
		if code := s.main(context.Background(), []string{"permissions", agent, "--agents", agents, "--config", cfgFile, "--json"}); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var got permissionsJSON
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, c := range []struct{ agent, reason string }{
		// the runtime's words when strict's call is refused (docs/a2a.md)
		{"strict", `denied by agent "strict": subagents deny pattern "remote-researcher"`},
		{"lead", `allowed by agent "lead": subagents allow pattern "remote-researcher"`},
		{"helper", `denied by agent "helper": it has no subagents allow list`},
	} {
		got := decide(c.agent)
		var found bool
		for _, d := range got.Subagents {
			switch d.Agent {
			case "remote-researcher":
				found = true
				if !strings.HasPrefix(d.Reason, c.reason) || d.Allowed != (c.agent == "lead") || d.Remote != card {
					t.Errorf("%s → remote-researcher: %+v, want %q and remote %s", c.agent, d, c.reason, card)
				}
			case "helper":
				if d.Remote != "" {
					t.Errorf("helper is an agent file here, which shadows the a2a: entry of its id; shown as remote %s", d.Remote)
				}
			}
		}
		if !found {
			t.Errorf("%s: sub-agents %+v lack remote-researcher", c.agent, got.Subagents)
		}
		if len(got.UnnamedRemote) != 1 || !strings.HasSuffix(got.UnnamedRemote[0], "/other") {
			t.Errorf("unnamed_remote = %v, want the card-only entry", got.UnnamedRemote)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("permissions read %d cards; it reads none", n)
	}
}

func TestPermissionsTextMarksRemoteAgents(t *testing.T) {
	agents, cfgFile, card, _ := remoteFixture(t)
	s, out, errOut := testSession()
	if code := s.main(context.Background(), []string{"permissions", "lead", "--agents", agents, "--config", cfgFile}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"remote-researcher (remote)", "remote agents (a2a: in agentry.yaml)", card, "/other has no id:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	s, _, errOut = testSession()
	if code := s.main(context.Background(), []string{"permissions", "remote-researcher", "--agents", agents, "--config", cfgFile}); code != 1 || !strings.Contains(errOut.String(), "runs elsewhere") {
		t.Errorf("a remote agent on the chain: exit %d, stderr %q; want 1 and that it runs elsewhere", code, errOut)
	}
}

// A Claude Code file's tool lists narrow whom it may delegate to, in the
// permissions view and in a run alike: disallowedTools: Task refuses every
// target, general-purpose too, and tools' Agent(helper) leaves only helper.
func TestClaudeCodeToolListsNarrowDelegation(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "solo.md", "---\nname: solo\ndescription: Works alone.\ndisallowedTools: Task\n---\nWork.\n")
	writeFile(t, agents, "lead.md", "---\nname: lead\ndescription: Leads.\ntools: Read, Agent(helper)\nsubagents: {allow: [\"*\"]}\n---\nLead.\n")
	writeFile(t, agents, "helper.md", "---\nname: helper\ndescription: Helps.\n---\nHelp.\n")
	writeFile(t, agents, "other.md", "---\nname: other\ndescription: Another.\n---\nOther.\n")
	solo := subagentDecisions(t, agents, "solo")
	if r := solo["general-purpose"]; !strings.Contains(r, "its tool deny list names the delegation tool") {
		t.Errorf("solo may call general-purpose: %q (all: %v)", r, solo)
	}
	lead := subagentDecisions(t, agents, "lead")
	if lead["helper"] != "allowed" || !strings.Contains(lead["other"], "limit delegation to Agent(helper)") ||
		!strings.Contains(lead["general-purpose"], "limit delegation to Agent(helper)") {
		t.Errorf("lead's decisions: %v", lead)
	}
	if ran := delegatedTo(t, dir, agents, "lead"); !slices.Equal(ran, []string{"helper"}) {
		t.Errorf("lead's run delegated to %v, want only helper", ran)
	}
}

// A Claude Code or VS Code allow list that names no delegation tool (Task,
// Agent; agent, runSubagent) is all the agent may use, as in those tools:
// it may not delegate, though its subagents rules allow every agent; nor
// may a VS Code file with agents: []. An agentry list says nothing of
// delegating, so its subagents rules decide.
func TestToolListsWithoutTheDelegationToolForbidDelegating(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "reader.md", "---\nname: reader\ndescription: Reads.\ntools: Read, Grep\nsubagents: {allow: [\"*\"]}\n---\nRead.\n")
	writeFile(t, agents, "planner.agent.md", "---\ndescription: Plans.\ntools: ['read', 'search']\nagents: ['*']\n---\nPlan.\n")
	writeFile(t, agents, "closed.agent.md", "---\ndescription: Closed.\ntools: ['read', 'agent']\nagents: []\n---\nAlone.\n")
	writeFile(t, agents, "native.md", "---\nname: native\ndescription: Native.\ntools:\n  allow: [filesystem.read_file]\nsubagents: {allow: [helper]}\n---\nGo.\n")
	writeFile(t, agents, "helper.md", "---\nname: helper\ndescription: Helps.\n---\nHelp.\n")
	for agent, why := range map[string]string{
		"reader":  `denied by agent "reader": its tools list names no Task or Agent, so it may not delegate`,
		"planner": `denied by agent "planner": its tools list names no agent or runSubagent, so it may not delegate`,
		"closed":  `denied by agent "closed": its agents list is empty, so it may not delegate`,
	} {
		got := subagentDecisions(t, agents, agent)
		for _, target := range []string{"helper", "general-purpose"} {
			if got[target] != why {
				t.Errorf("%s → %s: %q, want %q", agent, target, got[target], why)
			}
		}
		if ran := delegatedTo(t, dir, agents, agent); len(ran) != 0 {
			t.Errorf("%s's run delegated to %v, want none", agent, ran)
		}
	}
	if got := subagentDecisions(t, agents, "native"); got["helper"] != "allowed" || got["general-purpose"] != "allowed" {
		t.Errorf("native's decisions: %v, want helper and general-purpose allowed", got)
	}
	if ran := delegatedTo(t, dir, agents, "native"); !slices.Contains(ran, "helper") {
		t.Errorf("native's run delegated to %v, want helper among them", ran)
	}
}

// subagentDecisions is agentry permissions AGENT --json's sub-agent
// decisions: "allowed", or the reason of a denial.
func subagentDecisions(t *testing.T, agents, agent string) map[string]string {
	t.Helper()
	code, out, errOut := cli(t, nil, "permissions", agent, "--agents", agents, "--json")
	var got permissionsJSON
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("permissions %s: exit %d, %v: %s", agent, code, err, errOut)
	}
	m := map[string]string{}
	for _, d := range got.Subagents {
		if d.Allowed {
			m[d.Agent] = "allowed"
		} else {
			m[d.Agent] = d.Reason
		}
	}
	return m
}

// delegatedTo runs agent with the demo model, which delegates to every
// agent it is offered, and returns the agents its run invoked below it.
func delegatedTo(t *testing.T, dir, agents, agent string) []string {
	t.Helper()
	db := filepath.Join(dir, "t.db")
	code, out, errOut := cli(t, []string{"AGENTRY_WORKSPACE=" + dir}, "run", agent, "Plan Q4", "--agents", agents, "--db", db, "--model", "demo", "--json")
	var res struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("run %s: exit %d, %v: %s %s", agent, code, err, out, errOut)
	}
	code, out, _ = cli(t, nil, "traces", "show", res.RunID, "--db", db, "--json")
	var doc trace.Document
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("traces show: exit %d, %v", code, err)
	}
	var ran []string
	for _, sp := range doc.Spans {
		if sp.Kind == trace.KindInvokeAgent && sp.Depth > 0 {
			ran = append(ran, sp.Agent)
		}
	}
	return ran
}
