package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation/workflow"
)

// workflowExplainCommand is `agentry workflow explain NAME|FILE`: each
// step in words and the step graph.
func (s *session) workflowExplainCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "explain NAME|FILE",
		Short:             "describe a workflow's steps in words, with its step graph",
		Args:              oneArg("needs one NAME or FILE"),
		ValidArgsFunction: firstArg(s.listWorkflows),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, reg, dir, err := s.workflowSetup(cmd)
			if err != nil {
				return err
			}
			wf, err := findWorkflow(args[0], dir, reg)
			if err != nil {
				return err
			}
			fmt.Fprint(s.stdout, workflow.Explain(wf))
			return nil
		},
	}
}
