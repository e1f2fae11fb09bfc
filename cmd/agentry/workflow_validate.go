package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/core"
)

// workflowValidateCommand is `agentry workflow validate [DIR|FILE]`: the
// problems of one workflow file or of a folder's (default the workflows
// folder). Exit 1 when any is an error.
func (s *session) workflowValidateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate [DIR|FILE]",
		Short: "check workflow files and report problems",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usage(cmd, "workflow validate takes one DIR or FILE, got %d", len(args))
			}
			_, reg, target, err := s.workflowSetup(cmd)
			if err != nil {
				return err
			}
			if len(args) > 0 {
				target = args[0]
			} else if err := checkFolder("workflows", target); err != nil {
				return err
			}
			var wfs []*workflow.Workflow
			var probs workflow.Problems
			if info, err := os.Stat(target); err == nil && !info.IsDir() {
				wf, ps := workflow.LoadFile(target, lookupIn(reg))
				probs = ps
				if wf != nil {
					wfs = append(wfs, wf)
				}
			} else if err != nil {
				return fmt.Errorf("workflows %q: %v", target, err)
			} else {
				wfs, probs = workflow.LoadDir(target, lookupIn(reg))
			}
			s.jsonOrText(cmd, orEmpty(probs), func() { printWorkflowProblems(s.stdout, wfs, probs) })
			if probs.HasErrors() {
				return exitCode(1)
			}
			return nil
		},
	}
	jsonFlag(cmd.Flags(), nil, "print problems as JSON")
	return cmd
}

// printWorkflowProblems lists the problems, then how many workflows are
// valid and how many errors and warnings there are.
func printWorkflowProblems(w io.Writer, wfs []*workflow.Workflow, probs workflow.Problems) {
	errs := 0
	for _, p := range probs {
		fmt.Fprintf(w, "%s %s:%d: %s\n", p.Severity, p.File, p.Line, p.Message)
		if p.Severity == registry.SeverityError {
			errs++
		}
	}
	fmt.Fprintf(w, "%s valid: %s, %s\n", core.Count(len(wfs), "workflow"), core.Count(errs, "error"), core.Count(len(probs)-errs, "warning"))
}
