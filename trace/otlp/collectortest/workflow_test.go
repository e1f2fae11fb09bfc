package collectortest

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

func TestCLIWorkflowRunExportsUnderOneInvokeWorkflowRoot(t *testing.T) {
	c := startCollector(t)
	f := newFixture(t)
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	must(t, err)
	out, errOut, code := f.run(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.grpc, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "AGENTRY_WORKSPACE=" + f.dir},
		"workflow", "run", "research-to-proposal", "--workflows", filepath.Join(repo, "workflows"),
		"--agents", filepath.Join(repo, "agents"), "--db", f.db, "--json",
		"--inputs", filepath.Join(repo, "workflows", "scripts", "research-to-proposal.inputs.json"), "--input", "contact_name=Lee",
		"--model", "script:"+filepath.Join(repo, "workflows", "scripts", "research-to-proposal.script.yaml"))
	if code != 0 {
		t.Fatalf("workflow run exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var res struct {
		RunID string `json:"run_id"`
	}
	must(t, json.Unmarshal([]byte(out), &res))
	d := f.export(t, res.RunID)
	spans := c.spans(t, len(d.Spans))
	checkSameTree(t, d, spans, res.RunID, "")
	var roots []got
	for _, s := range spans {
		if s.ParentID == "" {
			roots = append(roots, s)
		}
	}
	if len(roots) != 1 || roots[0].Name != "invoke_workflow research-to-proposal" ||
		roots[0].Attrs["gen_ai.operation.name"] != "invoke_workflow" || roots[0].Attrs["gen_ai.workflow.name"] != "research-to-proposal" {
		t.Errorf("roots = %+v, want one invoke_workflow research-to-proposal", roots)
	}
	t.Logf("workflow: %d spans, each once, under one invoke_workflow root", len(spans))
}
