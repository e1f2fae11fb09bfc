package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/eval"
	"github.com/agentry/agentry/delegation/versions"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web"
)

// versionRecorder turns the changes of agent, workflow and skill files into
// versions in the trace store (docs/versions.md): the hook a watched folder
// calls (registry.OnChange), which records off the save's path
// (delegation/versions), and the comparison a command makes when it loads
// a folder, which finds what changed while nothing ran. Close it before
// the store. What it cannot record is a warning on log: the command goes on.
type versionRecorder struct {
	*versions.Recorder
	log *slog.Logger
}

// newVersionRecorder returns a recorder for store.
func newVersionRecorder(store trace.VersionStore, log *slog.Logger) *versionRecorder {
	return &versionRecorder{versions.New(store, log), log}
}

// syncAgents records the agent files whose content is not their agent's
// newest version: edits made while no agentry process was watching. Of
// several files with one id, only the one served is compared; installed
// plugins' agents are not the agents folder's and have no versions.
func (r *versionRecorder) syncAgents(ctx context.Context, snap *registry.Snapshot) {
	if r == nil {
		return
	}
	var files []fileNow
	for _, f := range snap.Files() {
		if f.Plugin != "" {
			continue // an installed plugin's agent: the plugins' lock file pins it
		}
		name := f.Agent
		if name == "" {
			data, _ := snap.Raw(f.Path)
			name = registry.NameOf(f.Path, data)
		}
		if a, ok := snap.Agent(name); ok && a.File != f.Path {
			continue // a duplicate's file, not what runs
		}
		files = append(files, fileNow{name: name, path: f.Path, hash: f.Hash, data: func() []byte { d, _ := snap.Raw(f.Path); return d }})
	}
	r.sync(ctx, registry.KindAgent, files)
}

// syncWorkflows is syncAgents for a workflows folder.
func (r *versionRecorder) syncWorkflows(ctx context.Context, set *workflow.Set) {
	if r == nil {
		return
	}
	var files []fileNow
	for _, f := range set.Files() {
		files = append(files, fileNow{name: f.VersionName(), path: f.Path, hash: f.Hash, data: func() []byte { d, _ := set.Raw(f.Path); return d }})
	}
	r.sync(ctx, registry.KindWorkflow, files)
}

// fileNow is one file as a command loaded it; data is read only for a
// file that changed.
type fileNow struct {
	name, path, hash string
	data             func() []byte
}

func (r *versionRecorder) sync(ctx context.Context, kind string, files []fileNow) {
	latest, err := r.Reads().LatestVersions(ctx, kind)
	for _, f := range files {
		if err != nil {
			break
		}
		if v, ok := latest[f.name]; ok && v.Hash == f.hash && !v.Deleted {
			continue
		}
		err = r.Record(ctx, registry.FileChanged{Kind: kind, Name: f.name, Path: f.path, Data: f.data(), Source: registry.SourceFiles})
	}
	if err != nil {
		r.log.Warn("versions of the "+kind+" files not recorded", "err", err)
	}
}

// agentContents is the agents folder's contents, handing each change on to
// versions when there is a recorder.
func agentContents(reg *registry.Registry, opts registry.Options, versions *versionRecorder) folder.Contents {
	if versions == nil {
		return folder.Agents(reg, opts)
	}
	return folder.VersionedAgents(reg, opts, versions.Hook)
}

// workflowContents is the workflows folder's contents, handing each
// change on to versions, under its file's VersionName, when there is a
// recorder.
func workflowContents(cat *workflow.Catalog, versions *versionRecorder) folder.Contents {
	if versions == nil {
		return cat
	}
	return folder.Versioned(cat, registry.KindWorkflow, func(rel string, _ []byte) string {
		f, _ := cat.Snapshot().File(rel)
		return f.VersionName()
	}, versions.Hook)
}

// recordVersions records the agent files, and the skills of the library
// loaded beside them (s.lib), changed since the last command looked
// (syncAgents, syncSkills), for a command that loaded the folders without
// watching them; a failure is a warning, the command goes on.
func (s *session) recordVersions(ctx context.Context, store trace.VersionStore, snap *registry.Snapshot) {
	r := newVersionRecorder(store, s.warnLog())
	r.syncAgents(ctx, snap)
	if s.lib != nil {
		r.syncSkills(ctx, s.lib.Snapshot())
	}
}

// recordWorkflowVersions is recordVersions for the workflows folder dir,
// for `workflow run`, which reads one workflow of it: the folder's files
// changed since the last command looked become versions (syncWorkflows).
// A missing folder records nothing.
func (s *session) recordWorkflowVersions(ctx context.Context, store trace.VersionStore, dir string) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return
	}
	r := newVersionRecorder(store, s.warnLog())
	cat := workflow.NewCatalog(func(string) bool { return true })
	closeFS, err := folder.LoadContents(dir, cat)
	if err != nil {
		r.log.Warn("versions of the workflow files not recorded", "err", err)
		return
	}
	defer closeFS()
	r.syncWorkflows(ctx, cat.Snapshot())
}

// watchEvals gives the web its versions and evals: the store's (versions
// read after the recorder's queued changes, so History shows a save made
// a moment before), and the evals folder watched (cfg.Evals, default
// "evals"; a missing default folder is awaited, so suites put in an
// evals/ made while serve runs show at once, a missing configured one is
// an error).
func watchEvals(cfg config.Config, store traceDB, versions *versionRecorder, log *slog.Logger, w *web.Config) (func(), error) {
	w.Versions, w.Evals = versions.Reads(), store
	dir, err := optionalFolder("evals", cfg.Evals)
	if err != nil {
		return nil, err
	}
	cat := eval.NewCatalog()
	f, err := folder.OpenAwaiting(dir, cat, folder.Config{Log: log})
	if err != nil {
		return nil, fmt.Errorf("watch evals: %w", err)
	}
	w.EvalSuites, w.EvalFiles = cat, folder.Sourced(f, registry.SourceWeb)
	return func() { f.Close() }, nil
}

// recordVersionsIfStored is recordVersions for a command that reads the
// agents without the trace store (validate, permissions): it records into
// the store only when there is one already, and creates no database.
func (s *session) recordVersionsIfStored(ctx context.Context, cfg config.Config, snap *registry.Snapshot) {
	if noDB(cfg.DB) {
		return
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		s.warnLog().Warn("versions of the agent files not recorded", "err", err)
		return
	}
	defer store.Close()
	s.recordVersions(ctx, store, snap)
}
