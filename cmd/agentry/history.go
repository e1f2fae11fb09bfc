package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/suggest"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/registry/git"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// historyOptions are `agentry history`'s flags.
type historyOptions struct {
	restore    string
	isWorkflow bool
	isSkill    bool
}

// historyNames are what history's NAME completes from: the workflows with
// --workflow, the skills with --skill, else the agents.
func (s *session) historyNames(cmd *cobra.Command) ([]string, error) {
	if workflows, _ := cmd.Flags().GetBool("workflow"); workflows {
		return s.listWorkflows(cmd)
	}
	if skills, _ := cmd.Flags().GetBool("skill"); skills {
		return s.skillIDs(cmd)
	}
	return s.agentIDs(cmd)
}

// historyCommand lists the versions of an agent (or workflow) file, newest
// first, each with the runs that ran it, or restores one of them as a compare-and-swap save
// (docs/versions.md).
func (s *session) historyCommand() *cobra.Command {
	var o historyOptions
	cmd := &cobra.Command{
		Use:   "history AGENT",
		Short: "list the versions of an agent file, newest first, or restore one",
		Example: `  agentry history research-coordinator                   # newest first; the current one marked
  agentry history research-coordinator --json            # [{hash, time, source, summary, path, runs}]
  agentry history research-coordinator --restore 3f2a9c1d
  agentry history content-pipeline --workflow            # a workflow's versions
  agentry history pdf --skill                            # a skill's (its SKILL.md's) versions`,
		Args:              oneArg("takes one AGENT"),
		ValidArgsFunction: firstArg(s.historyNames),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.isWorkflow && o.isSkill {
				return usage(cmd, "--workflow and --skill name different kinds of file; give one")
			}
			if err := checkHashFlag(cmd, "--restore", o.restore); err != nil {
				return err
			}
			return s.history(cmd, args[0], &o)
		},
	}
	fs := cmd.Flags()
	jsonFlag(cmd.Flags(), nil, "print the versions as JSON: [{hash, time, source, summary, path, runs: [{run_id, started_at, status}]}], newest first")
	fs.StringVar(&o.restore, "restore", "", "write version `HASH` (or a prefix of at least 4 characters) back to the file")
	fs.BoolVar(&o.isWorkflow, "workflow", false, "NAME is a workflow of the workflows folder, not an agent")
	fs.BoolVar(&o.isSkill, "skill", false, "NAME is a skill of the skills folders (its SKILL.md), not an agent")
	addConfigFlags(fs, "agents", "db", "workflows")
	return cmd
}

// checkHashFlag refuses, as bad usage, a flag's value that cannot name a
// stored version (trace.CheckHashPrefix); "" is no value.
func checkHashFlag(cmd *cobra.Command, flag, hash string) error {
	if hash == "" || trace.CheckHashPrefix(hash) == nil {
		return nil
	}
	return usage(cmd, "%s %q: want a version's hash, or its first %d or more hexadecimal characters, as agentry history lists them",
		flag, hash, trace.MinHashPrefix)
}

func (s *session) history(cmd *cobra.Command, name string, o *historyOptions) error {
	op, err := s.open(cmd, traceStore)
	if err != nil {
		return err
	}
	defer op.Close()
	ctx, cfg, store := cmd.Context(), op.cfg, op.store
	vs := store
	kind := registry.KindAgent
	switch {
	case o.isWorkflow:
		kind = registry.KindWorkflow
	case o.isSkill:
		kind = registry.KindSkill
	}
	log := s.warnLog()
	versions := newVersionRecorder(store, log)
	defer versions.Close(context.Background()) // a restore's version, before the store closes
	target, err := s.openTarget(ctx, cfg, kind, name, versions, log)
	if err != nil {
		return err
	}
	defer target.close()
	if o.restore != "" {
		return s.restoreVersion(ctx, vs, target, o.restore)
	}
	list, err := vs.Versions(ctx, kind, target.name)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return fmt.Errorf("%s %q has no versions%s", kind, target.name, versionNameHint(ctx, vs, kind, target.name))
	}
	var uses []trace.VersionUse
	if _, recorded := trace.VersionSpans[kind]; recorded {
		if uses, err = vs.VersionUses(ctx, kind, target.name, usesRead); err != nil {
			return err
		}
	}
	runs := trace.UsesByVersion(list, uses)
	out := make([]versionJSON, len(list))
	for i, v := range list {
		out[i] = versionJSON{Hash: v.Hash, Time: v.Time, Source: v.Source, Summary: v.Summary, Path: v.Path,
			Deleted: v.Deleted, Current: i == 0 && v.Hash == target.hash}
		for _, u := range runs[i] {
			out[i].Runs = append(out[i].Runs, versionRunJSON{RunID: u.RunID, StartedAt: u.StartedAt, Status: u.Status})
		}
	}
	return s.jsonOrText(cmd, out, func() { s.printHistory(target, list, runs) })
}

// versionNameHint is a did-you-mean for a name with no versions, from the
// names of kind that have some (deleted files' too).
func versionNameHint(ctx context.Context, vs trace.VersionStore, kind, name string) string {
	latest, err := vs.LatestVersions(ctx, kind)
	if err != nil {
		return ""
	}
	return suggest.DidYouMean(name, slices.Collect(maps.Keys(latest)), "")
}

// usesRead is how many of the file's newest runs history reads, as the
// History page does.
const usesRead = 500

// runsPrinted is how many runs of each version the text output lists.
const runsPrinted = 5

// versionJSON is one version as `history --json` prints it.
type versionJSON struct {
	Hash    string    `json:"hash"`
	Time    time.Time `json:"time"`
	Source  string    `json:"source"`
	Summary string    `json:"summary"`
	Path    string    `json:"path"`
	Deleted bool      `json:"deleted,omitempty"`
	Current bool      `json:"current,omitempty"`
	// Runs are the runs that ran this content, newest first (agents' and
	// workflows'; of the file's newest usesRead runs), listed at the
	// content's newest version only.
	Runs []versionRunJSON `json:"runs,omitempty"`
}

// versionRunJSON is a run that used a version, as history --json lists it.
type versionRunJSON struct {
	RunID     string       `json:"run_id"`
	StartedAt time.Time    `json:"started_at"`
	Status    trace.Status `json:"status"`
}

// printHistory lists the versions, each followed by the runs that ran it,
// then the file's git commits.
func (s *session) printHistory(t fileTarget, list []trace.Version, runs [][]trace.VersionUse) {
	fmt.Fprintf(s.stdout, "%s %s (%s)\n", t.kind, t.name, cmp.Or(t.path, list[0].Path+", deleted"))
	w := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	for i, v := range list {
		mark := ""
		if i == 0 && v.Hash == t.hash {
			mark = "  (current)"
		}
		hash := trace.ShortHash(v.Hash)
		if v.Deleted {
			hash = "(deleted)"
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s%s\n", hash, v.Time.Local().Format("2006-01-02 15:04:05"), v.Source, v.Summary, mark)
		printVersionRuns(w, runs[i])
	}
	w.Flush()
	if t.path == "" {
		return
	}
	commits, err := git.History(t.dir, t.path, 20)
	if err != nil {
		if !errors.Is(err, git.ErrNoRepository) {
			fmt.Fprintf(s.stderr, "agentry: warning: git history not read: %v\n", err)
		}
		return
	}
	fmt.Fprintf(s.stdout, "\ngit commits of %s:\n", t.path)
	for _, c := range commits {
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", c.Hash[:12], c.Time.Local().Format("2006-01-02 15:04:05"), c.Author, c.Message)
	}
	w.Flush()
}

// printVersionRuns lists a version's newest runs under it, as rows of w's
// table with the first column empty.
func printVersionRuns(w io.Writer, runs []trace.VersionUse) {
	for _, u := range runs[:min(len(runs), runsPrinted)] {
		fmt.Fprintf(w, "  \t%s\t%s\trun %s\n", u.StartedAt.Local().Format("2006-01-02 15:04:05"), u.Status, u.RunID)
	}
	if more := len(runs) - runsPrinted; more > 0 {
		fmt.Fprintf(w, "  \t\t\t+%s\n", core.Count(more, "more run"))
	}
}

// restoreVersion writes a version back to its file as a compare-and-swap
// save against the file as it is now, recorded as a new version whose
// summary says which it restores.
func (s *session) restoreVersion(ctx context.Context, vs trace.VersionStore, t fileTarget, hash string) error {
	v, err := vs.Version(ctx, t.kind, t.name, hash)
	if err != nil {
		return err
	}
	if v.Hash == t.hash {
		fmt.Fprintf(s.stdout, "%s is at version %s already\n", t.name, trace.ShortHash(v.Hash))
		return nil
	}
	if t.writer == nil {
		return fmt.Errorf("%s %q has no file here to restore into", t.kind, t.name)
	}
	path := cmp.Or(t.path, v.Path)
	if _, err := t.writer.WriteNoted(path, v.Content, t.hash, "restore of "+trace.ShortHash(v.Hash)); err != nil {
		return fmt.Errorf("restore %s: %w", trace.ShortHash(v.Hash), err)
	}
	fmt.Fprintf(s.stdout, "restored %s to version %s (%s)\n", path, trace.ShortHash(v.Hash), v.Time.Local().Format("2006-01-02 15:04:05"))
	return nil
}

// fileTarget is the file an agent's or workflow's versions belong to, in
// a folder opened to save it.
type fileTarget struct {
	kind, name string
	dir        string // the folder
	path       string // the file now, relative to dir; "" when there is none
	hash       string // its content hash now
	writer     *folder.Writer
	close      func() error
}

// openTarget opens the folder of kind (watched, every change recorded by
// versions) and finds name's file in it, after recording what changed
// while nothing ran.
func (s *session) openTarget(ctx context.Context, cfg config.Config, kind, name string, versions *versionRecorder, log *slog.Logger) (fileTarget, error) {
	switch kind {
	case registry.KindSkill:
		return s.openSkillTarget(ctx, cfg, name, versions, log)
	case registry.KindWorkflow:
		return openWorkflowTarget(ctx, cfg, name, versions, log)
	}
	return openAgentTarget(ctx, cfg, name, versions, log)
}

// openWorkflowTarget is openTarget for a workflow of the workflows folder.
func openWorkflowTarget(ctx context.Context, cfg config.Config, name string, versions *versionRecorder, log *slog.Logger) (fileTarget, error) {
	t := fileTarget{kind: registry.KindWorkflow, name: name}
	cat := workflow.NewCatalog(func(string) bool { return true })
	if err := t.open(cmp.Or(cfg.Workflows, "workflows"), "workflows", workflowContents(cat, versions), log); err != nil {
		return t, err
	}
	set := cat.Snapshot()
	versions.syncWorkflows(ctx, set)
	for _, file := range set.Files() {
		if file.VersionName() == name {
			t.path, t.hash = file.Path, file.Hash
		}
	}
	return t, nil
}

// openAgentTarget is openTarget for an agent of the agents folder.
func openAgentTarget(ctx context.Context, cfg config.Config, name string, versions *versionRecorder, log *slog.Logger) (fileTarget, error) {
	t := fileTarget{kind: registry.KindAgent, name: name}
	reg := registry.New(nil)
	if err := t.open(cfg.Agents, "agents", agentContents(reg, registryOptions(cfg), versions), log); err != nil {
		return t, err
	}
	snap := reg.Snapshot()
	versions.syncAgents(ctx, snap)
	if a, ok := snap.Agent(name); ok {
		file, _ := snap.File(a.File)
		t.path, t.hash = a.File, file.Hash
	}
	return t, nil
}

// open watches dir, the folder of what (its contents read into the
// target's kind), and writes through it as the CLI.
func (t *fileTarget) open(dir, what string, contents folder.Contents, log *slog.Logger) error {
	if err := checkFolder(what, dir); err != nil {
		return err
	}
	f, err := folder.OpenContents(dir, contents, folder.Config{Log: log})
	if err != nil {
		return fmt.Errorf("open %s: %w", what, err)
	}
	t.dir, t.writer, t.close = dir, folder.Sourced(f, registry.SourceCLI), f.Close
	return nil
}
