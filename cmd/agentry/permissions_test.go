package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
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
	} `json:"subagents"`
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
