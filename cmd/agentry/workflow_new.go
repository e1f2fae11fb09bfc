package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/workflow"
)

// workflowNewOptions are `agentry workflow new`'s flags.
type workflowNewOptions struct {
	model    string
	yes, run bool
}

// workflowNewCommand has the default model write a workflow from a
// description; it is validated and shown, saved only when confirmed, and
// then, as seed 000's "define and run inline" does, run on confirmation
// (--run: without asking).
func (s *session) workflowNewCommand() *cobra.Command {
	var o workflowNewOptions
	cmd := &cobra.Command{
		Use:   `new "DESCRIPTION"`,
		Short: "have the model write a workflow from a description, then save and run it",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usage(cmd, "workflow new needs a DESCRIPTION")
			}
			return s.newWorkflow(cmd, strings.Join(args, " "), &o)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&o.model, "model", "", "the model `SPEC` that writes the workflow (default: models.default); the run uses it too")
	flags.BoolVar(&o.yes, "yes", false, "save without asking")
	flags.BoolVar(&o.run, "run", false, "run the saved workflow without asking")
	return cmd
}

// newWorkflow writes, shows, saves and runs the workflow description asks
// for, asking before the save and the run unless o says not to.
func (s *session) newWorkflow(cmd *cobra.Command, description string, o *workflowNewOptions) error {
	cfg, reg, dir, err := s.workflowSetup(cmd)
	if err != nil {
		return err
	}
	llm, err := modelProviders(cfg, s.getenv).Resolve(cmp.Or(o.model, cfg.Models.Default), cfg.Models.Aliases)
	if err != nil {
		return err
	}
	resp, err := llm.Generate(cmd.Context(), &model.Request{Agent: workflow.WriterAgent, Purpose: model.PurposeTurn,
		System: workflow.WriterPrompt, Messages: []model.Message{{Role: model.RoleUser, Content: description}}})
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
	// Said before asking: a yes that then fails would waste the answer.
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists; not overwritten (the workflow is named %q: describe it again, or move that file)", path, wf.Name)
	}
	in := bufio.NewReader(s.stdin) // a terminal hands over one line per read, so later prompts lose nothing
	if !o.yes {
		if !s.interactive() {
			fmt.Fprintf(s.stdout, "\nvalid; not saved (give --yes to save as %s)\n", path)
			return nil
		}
		if !s.confirm(in, fmt.Sprintf("\nSave as %s?", path)) {
			fmt.Fprintln(s.stdout, "not saved")
			return nil
		}
	}
	if err := createFile(path, text); err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "saved %s\n", path)
	if !o.run && (!s.interactive() || !s.confirm(in, "Run it now?")) {
		fmt.Fprintf(s.stdout, "run it with: agentry workflow run %s\n", path)
		return nil
	}
	return s.runWorkflow(cmd, path, &workflowRunOptions{model: o.model})
}

// createFile writes text to a new file at path, and refuses one that
// appeared since it was looked for.
func createFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; not overwritten", path)
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if err = errors.Join(err, f.Close()); err != nil {
		os.Remove(path) // a half-written file would refuse the next try as existing
	}
	return err
}

// confirm asks question on the terminal and reports whether the answer is yes.
func (s *session) confirm(in *bufio.Reader, question string) bool {
	fmt.Fprintf(s.stdout, "%s [y/N] ", question)
	line, _ := in.ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
