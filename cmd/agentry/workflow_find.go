package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agentry/agentry/cmd/agentry/suggest"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
)

// findWorkflow resolves `workflow run|explain NAME|FILE` as workflow.Find
// does, and words its failures for a person: a name that matches nothing
// says where it looked and suggests the names it may have meant, and a
// problem without a line has no ":0" position.
func findWorkflow(ref, dir string, reg *registry.Registry) (*workflow.Workflow, error) {
	lookup := lookupIn(reg)
	wf, probs := workflow.Find(ref, dir, lookup)
	if wf != nil {
		return wf, nil
	}
	if _, err := os.Stat(ref); err != nil && len(probs) == 1 && probs[0].File == ref && probs[0].Line == 0 {
		return nil, fmt.Errorf("no workflow %q in %s, and no file of that name%s", ref, dir, suggest.DidYouMean(ref, workflowNames(dir, lookup), ""))
	}
	return nil, problemsText(probs)
}

// workflowNames are what a workflow can be run by in dir: names and file stems.
func workflowNames(dir string, lookup workflow.Lookup) []string {
	wfs, _ := workflow.LoadDir(dir, lookup)
	var names []string
	for _, wf := range wfs {
		for _, n := range []string{wf.Name, workflow.Stem(wf.File)} {
			if n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// problemsText is probs one a line as FILE:LINE: SEVERITY: MESSAGE, the
// line left out when a problem has none.
func problemsText(probs workflow.Problems) error {
	lines := make([]string, len(probs))
	for i, p := range probs {
		if p.Line > 0 {
			lines[i] = p.String()
		} else {
			lines[i] = fmt.Sprintf("%s: %s: %s", p.File, p.Severity, p.Message)
		}
	}
	return errors.New(strings.Join(lines, "\n"))
}
