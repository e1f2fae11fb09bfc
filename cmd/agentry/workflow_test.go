package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkflowRunRefusesMissingInputWithoutATerminal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	s, out, errOut := testSession()
	code := s.main(context.Background(), []string{"workflow", "run", "../../workflows/research-to-proposal.yaml",
		"--input", "company_name=Acme", "--db", db, "--model", "demo"})
	if code == 0 || !strings.Contains(errOut.String(), "missing required input: contact_name, our_services") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a refused run created the trace database")
	}
}

// With --json, a workflow run that never starts prints its result object
// with the reason, as run --json does; stdout was empty.
func TestWorkflowRunJSONSaysWhyItNeverStarted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	noServer := writeFile(t, t.TempDir(), "agentry.yaml", "engine: temporal\ntemporal: {address: \"127.0.0.1:1\"}\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"content-pipelin"}, "did you mean content-pipeline?"},
		{[]string{"../../workflows/content-pipeline.yaml"}, "missing required input: topic"},
		{[]string{"../../workflows/content-pipeline.yaml", "--input", "topic=tea", "--model", "demoo"}, `--model: model "demoo"`},
		{[]string{"../../workflows/content-pipeline.yaml", "--input", "topic=tea", "--config", noServer}, "temporal at 127.0.0.1:1"},
	} {
		s, out, errOut := testSession()
		code := s.main(context.Background(), append([]string{"workflow", "run", "--json", "--db", db, "--agents", "../../agents", "--workflows", "../../workflows"}, c.args...))
		var res struct{ RunID, Status, Error string }
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != 1 || res.Status != "error" || !strings.Contains(res.Error, c.want) {
			t.Errorf("%v: exit %d, stdout %q (%v), stderr %q", c.args, code, out, err, errOut)
		}
	}
}

func TestWorkflowDryRunExplainValidate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	s, out, errOut := testSession()
	code := s.main(context.Background(), []string{"workflow", "run", "../../workflows/multi-criteria-lead-scoring.yaml", "--dry-run",
		"--inputs", "../../workflows/scripts/multi-criteria-lead-scoring.inputs.json", "--db", db})
	if code != 0 || !strings.Contains(out.String(), "### Stage 2: aggregate") || !strings.Contains(out.String(), `Dana Smith`) {
		t.Fatalf("dry run exit %d: %s %s", code, out, errOut)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a dry run recorded something")
	}
	s, out, errOut = testSession()
	code = s.main(context.Background(), []string{"workflow", "run", "../../workflows/multi-criteria-lead-scoring.yaml", "--dry-run", "--json",
		"--inputs", "../../workflows/scripts/multi-criteria-lead-scoring.inputs.json", "--db", db})
	var plan struct {
		Workflow, Plan string
		Inputs         map[string]any
	}
	if err := json.Unmarshal(out.Bytes(), &plan); code != 0 || err != nil || plan.Workflow != "multi-criteria-lead-scoring" ||
		!strings.Contains(plan.Plan, "### Stage 2: aggregate") || !strings.Contains(fmt.Sprint(plan.Inputs["lead_data"]), "Dana Smith") {
		t.Fatalf("dry run --json exit %d, %v: %s %s", code, err, out, errOut)
	}
	s, out, _ = testSession()
	if code := s.main(context.Background(), []string{"workflow", "explain", "../../workflows/multi-criteria-lead-scoring.yaml"}); code != 0 ||
		!strings.Contains(out.String(), "/--> [1a. Firmographic Scorer]") || !strings.Contains(out.String(), "--> [2. Score Aggregator]") {
		t.Fatalf("explain: %s", out)
	}
	dir := t.TempDir()
	writeFile(t, dir, "bad.yaml", "workflow: {name: bad}\nsteps:\n  - id: a\n    agent: ghost\n")
	s, out, _ = testSession()
	if code := s.main(context.Background(), []string{"workflow", "validate", dir, "--json", "--agents", dir + "/none"}); code != 1 {
		t.Fatalf("validate exit %d: %s", code, out)
	}
	var probs []map[string]any
	if err := json.Unmarshal(out.Bytes(), &probs); err != nil || len(probs) != 1 || probs[0]["line"] != float64(4) ||
		probs[0]["severity"] != "error" || !strings.HasSuffix(probs[0]["file"].(string), "bad.yaml") {
		t.Fatalf("problems %s", out)
	}
}

func TestWorkflowNewWithDemoSavesOnlyWhenConfirmed(t *testing.T) {
	dir := t.TempDir()
	s, out, errOut := testSession()
	if code := s.main(context.Background(), []string{"workflow", "new", "three steps: research, identify pains, draft an email",
		"--model", "demo", "--workflows", dir}); code != 0 || !strings.Contains(out.String(), "not saved") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if m, _ := filepath.Glob(dir + "/*.yaml"); len(m) != 0 {
		t.Fatalf("saved without confirmation: %v", m)
	}
	s, out, errOut = testSession()
	if code := s.main(context.Background(), []string{"workflow", "new", "three steps: research, identify pains, draft an email",
		"--model", "demo", "--workflows", dir, "--yes"}); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	m, _ := filepath.Glob(dir + "/*.yaml")
	if len(m) != 1 {
		t.Fatalf("saved %v", m)
	}
	s, out, _ = testSession()
	if code := s.main(context.Background(), []string{"workflow", "validate", m[0]}); code != 0 {
		t.Fatalf("saved workflow does not validate: %s", out)
	}
}

func TestWorkflowPartialExitsZeroAndWritesTheReport(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../workflows/scripts/research-to-proposal.script.yaml")
	if err != nil {
		t.Fatal(err)
	}
	failing := strings.Replace(string(src), "researcher:\n", "researcher:\n  - error: search backend down\nunused:\n", 1)
	sc := writeFile(t, dir, "s.yaml", failing)
	report := filepath.Join(dir, "report.md")
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"workflow", "run", "research-to-proposal", "--workflows", "../../workflows",
		"--inputs", "../../workflows/scripts/research-to-proposal.inputs.json", "--input", "contact_name=Lee",
		"--model", "script:" + sc, "--db", filepath.Join(dir, "t.db"), "--report", report})
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	data, _ := os.ReadFile(report)
	for _, want := range []string{"- Status: PARTIAL", "| 1 research | researcher | SKIPPED |", "researcher failed", "Steps skipped: 1"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("report lacks %q:\n%s", want, data)
		}
	}
	if !strings.Contains(out.String(), "step research") {
		t.Errorf("no progress lines: %s", out)
	}
}

func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _, _ := testSession()
	s.stdin = f
	if s.interactive() {
		t.Fatal("/dev/null taken for a terminal: a piped run would wait for answers")
	}
}

func TestWorkflowsFolderFromConfigEnvAndFlag(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "agentry.yaml", "workflows: "+dir+"/none\n")
	s, out, _ := testSession("AGENTRY_WORKFLOWS=../../workflows")
	if code := s.main(context.Background(), []string{"workflow", "validate", "--config", cfg}); code != 0 || !strings.Contains(out.String(), "7 workflows valid") {
		t.Fatalf("env over file: exit %d %s", code, out)
	}
	s, out, _ = testSession()
	if code := s.main(context.Background(), []string{"workflow", "validate", "--config", cfg}); code == 0 {
		t.Fatalf("file's folder ignored: %s", out)
	}
	s, out, _ = testSession()
	if code := s.main(context.Background(), []string{"workflow", "explain", "map-reduce", "--config", cfg, "--workflows", "../../workflows"}); code != 0 ||
		!strings.Contains(out.String(), "Section Summariser × each element") {
		t.Fatalf("flag: exit %d %s", code, out)
	}
}

func TestWorkflowRunWithATypoSuggestsTheName(t *testing.T) {
	for _, sub := range []string{"run", "explain"} {
		s, out, errOut := testSession()
		args := []string{sub, "content-pipline", "--workflows", "../../workflows", "--agents", t.TempDir()}
		if sub == "run" {
			args = append(args, "--input", "topic=x")
		}
		code := s.main(context.Background(), append([]string{"workflow"}, args...))
		msg := errOut.String()
		if code != 1 || out.Len() != 0 || !strings.Contains(msg, `no workflow "content-pipline" in ../../workflows`) ||
			!strings.Contains(msg, "did you mean content-pipeline?") || strings.Contains(msg, ":0:") {
			t.Errorf("workflow %s with a typo: exit %d, stderr %q", sub, code, msg)
		}
	}
}

// A --model that cannot be used here is refused before anything is
// recorded, as run refuses it; the workflow started, retried each step's
// model call and recorded a failed run.
func TestWorkflowRunRefusesAnUnusableModelBeforeRecording(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	s, out, errOut := testSession()
	code := s.main(context.Background(), []string{"workflow", "run", "../../workflows/content-pipeline.yaml", "--input", "topic=tea",
		"--model", "demoo", "--db", db, "--agents", "../../agents"})
	if code != 1 || !strings.Contains(errOut.String(), `--model: model "demoo"`) || !strings.Contains(errOut.String(), "did you mean demo?") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a refused workflow run created the trace database")
	}
}
