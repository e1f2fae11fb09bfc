package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/workflow"
)

// workflowNewCommand has the default model write a workflow from a
// description; it is validated and shown, saved only when confirmed, and
// then, as seed 000's "define and run inline" does, run on confirmation
// (--run: without asking).
func (s *session) workflowNewCommand() *cobra.Command {
	var modelSpec string
	var yes, runIt bool
	cmd := &cobra.Command{
		Use:   `new "DESCRIPTION"`,
		Short: "have the model write a workflow from a description, then save and run it",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usage(cmd, "workflow new needs a DESCRIPTION")
			}
			cfg, reg, dir, err := s.workflowSetup(cmd)
			if err != nil {
				return err
			}
			spec := modelSpec
			if spec == "" {
				spec = cfg.Models.Default
			}
			llm, err := modelProviders(cfg, s.getenv).Resolve(spec, cfg.Models.Aliases)
			if err != nil {
				return err
			}
			resp, err := llm.Generate(cmd.Context(), &model.Request{Agent: workflow.WriterAgent, Purpose: model.PurposeTurn,
				System: workflow.WriterPrompt, Messages: []model.Message{{Role: model.RoleUser, Content: strings.Join(args, " ")}}})
			if err != nil {
				return err
			}
			text := strings.TrimSpace(workflow.Unfence(resp.Text)) + "\n"
			wf, probs := workflow.Parse("new.yaml", []byte(text), lookupIn(reg))
			fmt.Fprint(s.stdout, text)
			if wf == nil {
				return fmt.Errorf("the model's workflow does not validate:\n%v", probs)
			}
			path := filepath.Join(dir, wf.Name+".yaml")
			in := bufio.NewReader(s.stdin) // a terminal hands over one line per read, so later prompts lose nothing
			if !yes {
				if !s.interactive() {
					fmt.Fprintf(s.stdout, "\nvalid; not saved (give --yes to save as %s)\n", path)
					return nil
				}
				if !s.confirm(in, fmt.Sprintf("\nSave as %s?", path)) {
					fmt.Fprintln(s.stdout, "not saved")
					return nil
				}
			}
			if _, err := os.Stat(path); err == nil {
				return fmt.Errorf("%s exists; not overwritten", path)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(s.stdout, "saved %s\n", path)
			if !runIt && (!s.interactive() || !s.confirm(in, "Run it now?")) {
				fmt.Fprintf(s.stdout, "run it with: agentry workflow run %s\n", path)
				return nil
			}
			return s.runWorkflow(cmd, path, &workflowRunOptions{model: modelSpec})
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&modelSpec, "model", "", "the model `SPEC` that writes the workflow (default: models.default); the run uses it too")
	fs.BoolVar(&yes, "yes", false, "save without asking")
	fs.BoolVar(&runIt, "run", false, "run the saved workflow without asking")
	return cmd
}

// confirm asks question on the terminal and reports whether the answer is yes.
func (s *session) confirm(in *bufio.Reader, question string) bool {
	fmt.Fprintf(s.stdout, "%s [y/N] ", question)
	line, _ := in.ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
