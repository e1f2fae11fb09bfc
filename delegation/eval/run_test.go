package eval

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

const leadFile = "---\nname: lead\ndescription: leads\nsubagents: [helper]\n---\nLead.\n"
const helperFile = "---\nname: helper\ndescription: helps\n---\nHelp.\n"

// suiteScript is the suite-wide script: lead delegates to helper, sums up.
const suiteScript = `
lead:
  - calls: [{tool: delegate, args: {agent: helper, task: "read the report"}}]
  - {say: "Summary: sales rose 12%", tokens: {input: 100, output: 20}}
helper:
  - {say: "sales rose 12%", tokens: {input: 50, output: 10}}
judge:
  - say: '{"pass": true, "reasoning": "it names the figure"}'
`

const suiteText = `agent: lead
model: script:SCRIPT
cases:
  - name: delegates-and-answers
    task: "Summarise the report"
    expect:
      output_contains: ["Summary"]
      output_regex: "(?i)summary"
      trajectory: {agents: [helper], order: any}
      max_tokens: 5000
      no_denied: true
      rubric: "The answer gives the sales figure."
  - name: answers-alone
    task: "Say hello"
    script:
      lead: [{say: "hello there"}]
      judge: [{say: 'I think it is fine'}]
    expect:
      output_contains: hi
      trajectory: {agents: [helper]}
      max_tokens: 1000
      rubric: "greets"
  - name: json-answer
    task: "Give JSON"
    script:
      lead: [{say: '{"total": "12"}'}]
    expect:
      output_schema:
        type: object
        required: [total]
        properties: {total: {type: number}}
`

func runtimeConfig(t *testing.T, sink trace.Sink) delegation.Config {
	t.Helper()
	snap, err := registry.Load(fstest.MapFS{"lead.md": {Data: []byte(leadFile)}, "helper.md": {Data: []byte(helperFile)}}, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return delegation.Config{
		Agents: registry.New(snap), DefaultModel: "script:none", Sink: sink, Logger: slog.New(slog.DiscardHandler),
		Models: model.Providers{"script": func(p string) (model.LLM, error) { return script.Load(p) }},
		Sleep:  func(context.Context, time.Duration) error { return nil },
	}
}

func loadSuite(t *testing.T) *Suite {
	t.Helper()
	dir := t.TempDir()
	scriptFile := filepath.Join(dir, "lead.script.yaml")
	if err := os.WriteFile(scriptFile, []byte(suiteScript), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Parse(filepath.Join(dir, "research.yaml"), []byte(strings.Replace(suiteText, "SCRIPT", scriptFile, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestASuiteRunsItsCasesAndSaysWhichFailedAndWhy(t *testing.T) {
	store := memory.New()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	var heard sync.Map
	s := loadSuite(t)
	rep, err := Run(t.Context(), s, Options{Runtime: runtimeConfig(t, rec), Label: "current", Parallel: 2,
		OnCase: func(c trace.EvalCase) { heard.Store(c.Name, c.Passed) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := rep.Eval
	lead, _ := runtimeConfig(t, nil).Agents.Snapshot().Agent("lead")
	if e.Suite != "research" || e.Target != "lead" || e.Kind != "agent" || e.Passed != 1 || e.Failed != 2 ||
		e.Version != lead.Version || e.Versions["helper"] != registry.Hash([]byte(helperFile)) || e.Label != "current" {
		t.Errorf("eval = %+v", e)
	}
	byName := map[string]trace.EvalCase{}
	for _, c := range rep.Cases {
		byName[c.Name] = c
		if _, ok := heard.Load(c.Name); !ok {
			t.Errorf("OnCase did not hear %s", c.Name)
		}
		if c.EvalID != e.ID || c.RunID == "" {
			t.Errorf("case %s: eval %q run %q", c.Name, c.EvalID, c.RunID)
		}
		if r, err := store.Run(t.Context(), c.RunID); err != nil || r.EndedAt.IsZero() {
			t.Errorf("case %s's run was not recorded: %+v, %v", c.Name, r, err)
		}
	}
	ok := byName["delegates-and-answers"]
	if !ok.Passed || ok.Output != "Summary: sales rose 12%" || ok.InputTokens != 150 || len(ok.Failures) != 0 {
		t.Errorf("passing case = %+v", ok)
	}
	var judged *trace.Judgement
	for _, ch := range ok.Checks {
		if ch.Kind == "rubric" {
			judged = ch.Judge
		}
	}
	if judged == nil || judged.Answer != "pass" || judged.Reasoning != "it names the figure" || !strings.HasPrefix(judged.Model, "script:") {
		t.Errorf("the judge's verdict was not kept: %+v", judged)
	}
	bad := byName["answers-alone"]
	wantFailures := []string{
		`output_contains: "hi" not found in the output "hello there"`,
		"trajectory: agents exact: expected [helper], got [], score 0.00 (below 1.00)",
		`rubric: the judge did not answer with {"pass", "reasoning"}: "I think it is fine"`,
	}
	if bad.Passed || strings.Join(bad.Failures, "\n") != strings.Join(wantFailures, "\n") {
		t.Errorf("failures =\n%s\nwant\n%s", strings.Join(bad.Failures, "\n"), strings.Join(wantFailures, "\n"))
	}
	js := byName["json-answer"]
	if js.Passed || len(js.Failures) != 1 || !strings.Contains(js.Failures[0], "output_schema: the output does not validate: at /total") {
		t.Errorf("schema case = %+v", js.Failures)
	}
}

func TestACaseRunFromARecordedRunBecomesASuiteCase(t *testing.T) {
	store := memory.New()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	s := loadSuite(t)
	s.Cases = s.Cases[:1]
	rep, err := Run(t.Context(), s, Options{Runtime: runtimeConfig(t, rec)})
	if err != nil {
		t.Fatal(err)
	}
	rec.Close(context.Background())
	doc, err := store.Export(t.Context(), rep.Cases[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	item := CaseFromRun("from-run", doc)
	want := `- name: from-run
  task: Summarise the report
  expect:
    output_contains:
      - 'Summary: sales rose 12%'
    trajectory:
      agents: [helper]
      order: exact
    max_tokens: 270
    no_denied: true
`
	if string(item) != want {
		t.Errorf("CaseFromRun =\n%s\nwant\n%s", item, want)
	}
	orig := []byte(strings.Replace(suiteText, "SCRIPT", "x.yaml", 1))
	out, err := AppendCase("research.yaml", orig, item)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), string(orig)) {
		t.Errorf("appending rewrote the file:\n%s", out)
	}
	s2, err := Parse("research.yaml", out)
	if err != nil || len(s2.Cases) != 4 || s2.Cases[3].Name != "from-run" || s2.Cases[3].Expect.Trajectory.Agents[0] != "helper" {
		t.Fatalf("the appended suite = %+v, %v", s2, err)
	}
	if _, err := AppendCase("research.yaml", out, item); err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Errorf("a second case of one name was appended: %v", err)
	}
	flow := []byte("cases: [{name: a, task: t}]\nagent: lead\n")
	out, err = AppendCase("f.yaml", flow, item)
	if err != nil {
		t.Fatal(err)
	}
	if s3, err := Parse("f.yaml", out); err != nil || len(s3.Cases) != 2 {
		t.Errorf("a flow-style suite got the case by re-encoding: %s, %v", out, err)
	}
	fresh := NewSuiteText("agent", "lead", item)
	if s4, err := Parse("new.yaml", fresh); err != nil || s4.Agent != "lead" || len(s4.Cases) != 1 {
		t.Errorf("a new suite = %s, %v", fresh, err)
	}
}

func TestAWorkflowSuiteRunsEachCaseThroughTheWorkflow(t *testing.T) {
	const flow = `workflow: {name: brief}
inputs:
  - {name: subject, type: string, required: true}
steps:
  - {id: sum, agent: lead, input: "Summarise {{inputs.subject}}"}
`
	snap := runtimeConfig(t, nil).Agents.Snapshot()
	wf, probs := workflow.Parse("brief.yaml", []byte(flow), func(n string) bool { _, ok := snap.Agent(n); return ok })
	if wf == nil {
		t.Fatal(probs)
	}
	dir := t.TempDir()
	scriptFile := filepath.Join(dir, "lead.script.yaml")
	if err := os.WriteFile(scriptFile, []byte(suiteScript), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Parse(filepath.Join(dir, "brief.yaml"), []byte(`workflow: brief
model: script:`+scriptFile+`
cases:
  - name: summarises
    inputs: {subject: the report}
    expect: {output_contains: "sales rose 12%", trajectory: {agents: [lead, helper]}}
  - name: without-its-subject
    expect: {output_contains: Summary}
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), s, Options{Runtime: runtimeConfig(t, nil)}); err == nil || err.Error() != `suite brief runs workflow "brief", but no workflows folder is open` {
		t.Errorf("without a workflows folder: %v", err)
	}
	workflows := func(name string) (*workflow.Workflow, error) {
		if name != "brief" {
			return nil, fmt.Errorf("no workflow %q", name)
		}
		return wf, nil
	}
	rep, err := Run(t.Context(), s, Options{Runtime: runtimeConfig(t, nil), Workflows: workflows})
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Eval; e.Kind != "workflow" || e.Target != "brief" || e.Passed != 1 || e.Failed != 1 {
		t.Errorf("eval = %+v", e)
	}
	if ok := rep.Cases[0]; !ok.Passed || ok.RunID == "" || ok.Output != "Summary: sales rose 12%" || ok.Status != trace.StatusOK {
		t.Errorf("the case through the workflow = %+v", ok)
	}
	bad := rep.Cases[1]
	if bad.Passed || bad.RunID != "" || bad.Status != trace.StatusError || len(bad.Failures) != 1 ||
		!strings.HasPrefix(bad.Failures[0], "status: the run could not start: inputs: ") || !strings.Contains(bad.Failures[0], "subject") {
		t.Errorf("the case without its input = %+v", bad)
	}
}
