package temporal_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// skillsScript: lead loads the notes skill (allowed-tools: Read), then, each
// in a later step, reads the skill's reference file (outside the
// workspace: readable only because the skill is loaded), tries a tool the
// skill leaves out, and delegates to helper, whose tools the lead's
// narrowing holds too; helper loads the skill itself.
const skillsScript = `lead:
  - calls: [{tool: skill, args: {name: notes}}]
  - calls: [{tool: filesystem.read_file, args: {path: "%[1]s/references/style.md"}}]
  - calls: [{tool: filesystem.list_dir, args: {path: "."}}]
  - calls: [{tool: delegate, args: {agent: helper, task: look}}]
  - say: done
helper:
  - calls: [{tool: filesystem.list_dir, args: {path: "."}}]
  - calls: [{tool: skill, args: {name: notes}}]
  - calls: [{tool: filesystem.read_file, args: {path: "%[1]s/references/style.md"}}]
  - say: fine
`

// TestASkillLoadedOnTemporalHoldsInTheStepsAfterIt runs the same agents
// through a real `agentry run` and `agentry worker` on a real Temporal
// server, and in-process: on both, what a skill load changes lasts for
// the rest of the invocation and for the children it starts after
// (allowed-tools narrowing, the skill's folder readable, skills_loaded
// on the spans), with the same spans.
func TestASkillLoadedOnTemporalHoldsInTheStepsAfterIt(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-skills")
	bin := buildAgentry(t)
	dir := t.TempDir()
	skillDir := filepath.Join(dir, "skills", "notes")
	writeFiles(t, dir, map[string]string{
		"agents/lead.md": "---\nname: lead\ndescription: Leads.\ntools: [filesystem, skill]\nsubagents: {allow: [helper]}\n" +
			"skills: {allow: [notes]}\n---\nLead.\n",
		"agents/helper.md":                 "---\nname: helper\ndescription: Helps.\ntools: [filesystem, skill]\n---\nHelp.\n",
		"skills/notes/SKILL.md":            "---\nname: notes\ndescription: Write notes. Use for notes.\nallowed-tools: Read\n---\nRead [the style](references/style.md).\n",
		"skills/notes/references/style.md": "short lines",
		"script.yaml":                      fmt.Sprintf(skillsScript, skillDir),
		"work/note.txt":                    "the note",
		"agentry.yaml": fmt.Sprintf("agents: agents\ndb: traces.db\nworkspace: work\nengine: temporal\n"+
			"temporal: {address: %q, namespace: agentry-skills, task_queue: skills}\n", addr),
	})
	startWorker(t, bin, dir)
	run := func(env ...string) (delegation.Result, []trace.Span) {
		cmd := exec.Command(bin, "run", "--json", "--model", "script:script.yaml", "lead", "write notes")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := waitFor(cmd, 2*time.Minute); err != nil {
			t.Fatalf("agentry run %v: %v\nstdout: %s\nstderr: %s", env, err, out.String(), errb.String())
		}
		var res delegation.Result
		if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		return res, readSpans(t, filepath.Join(dir, "traces.db"), res.RunID)
	}
	got, gotSpans := run()
	want, wantSpans := run("AGENTRY_ENGINE=inprocess")
	if got.Status != trace.StatusOK || got.Result != "done" || want.Status != got.Status || want.Result != got.Result {
		t.Fatalf("on Temporal: %+v\nin-process: %+v", got, want)
	}
	for engine, spans := range map[string][]trace.Span{"temporal": gotSpans, "inprocess": wantSpans} {
		checkSkillSpans(t, engine, spans)
	}
	if g, w := skillShape(gotSpans), skillShape(wantSpans); !slices.Equal(g, w) {
		t.Errorf("on Temporal:\n%s\n\nin-process:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	checkHistoriesN(t, addr, "agentry-skills", got.RunID, 2)
}

// checkSkillSpans checks what the skill changed, on one engine's spans.
func checkSkillSpans(t *testing.T, engine string, spans []trace.Span) {
	t.Helper()
	calls := map[string][]trace.Span{} // "agent tool" → its calls, in order
	for _, sp := range spans {
		if sp.Kind == trace.KindExecuteTool {
			k := fmt.Sprintf("%s %v", sp.Agent, sp.Attributes[semconv.AttrToolName])
			calls[k] = append(calls[k], sp)
		}
	}
	for _, agent := range []string{"lead", "helper"} {
		if r := calls[agent+" filesystem.read_file"]; len(r) != 1 || r[0].Status != trace.StatusOK || r[0].Attributes[semconv.AttrToolResult] != "short lines" {
			t.Errorf("%s: %s's read of the skill's reference: %+v", engine, agent, r)
		}
		if l := calls[agent+" filesystem.list_dir"]; len(l) != 1 || l[0].Status != trace.StatusDenied || !strings.Contains(l[0].Error, `skill "notes"'s allowed-tools`) {
			t.Errorf("%s: %s's list_dir after the skill narrowed the lead: %+v", engine, agent, l)
		}
	}
	for _, sp := range spans {
		loaded := fmt.Sprint(sp.Attributes[delegation.AttrSkillsLoaded])
		switch {
		case sp.Kind == trace.KindInvokeAgent && loaded != "[notes]":
			t.Errorf("%s: %s has skills_loaded %s", engine, sp.Name, loaded)
		case sp.Kind == trace.KindInvokeAgent && sp.Agent == "lead" && fmt.Sprint(sp.Attributes[delegation.AttrSkillsOffered]) != "[notes]":
			t.Errorf("%s: %s has skills_offered %v", engine, sp.Name, sp.Attributes[delegation.AttrSkillsOffered])
		case sp.Attributes[semconv.AttrToolName] == delegation.DelegateTool && loaded != "[notes]":
			t.Errorf("%s: the delegate span has skills_loaded %s", engine, loaded)
		}
	}
}

// skillShape is a run's spans as comparable lines: kind, name, agent,
// status and the skills attributes, sorted.
func skillShape(spans []trace.Span) []string {
	var lines []string
	for _, sp := range spans {
		lines = append(lines, fmt.Sprintf("%s %q %s %s offered=%v loaded=%v", sp.Kind, sp.Name, sp.Agent, sp.Status,
			sp.Attributes[delegation.AttrSkillsOffered], sp.Attributes[delegation.AttrSkillsLoaded]))
	}
	slices.Sort(lines)
	return lines
}

// A Tool activity's result recorded before it reported skills (a bare
// string) still decodes, so its history replays the same.
func TestAToolResultFromBeforeSkillsDecodes(t *testing.T) {
	var old, now temporal.ToolResult
	if err := json.Unmarshal([]byte(`"the note"`), &old); err != nil || old.Text != "the note" || old.Skills != nil {
		t.Errorf("bare string: %+v, %v", old, err)
	}
	if err := json.Unmarshal([]byte(`{"Text":"loaded","Skills":["notes"]}`), &now); err != nil || now.Text != "loaded" || !slices.Equal(now.Skills, []string{"notes"}) {
		t.Errorf("object: %+v, %v", now, err)
	}
}
