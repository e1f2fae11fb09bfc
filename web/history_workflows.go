package web

import (
	"context"
	"path"
	"time"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/history"
)

// workflowFile is the workflow file addressed by stem (/workflows/STEM),
// for the workflows' History pages, with the name serve records its
// versions under.
func (cfg Config) workflowFile(stem string) (history.File, bool) {
	if cfg.Workflows == nil {
		return history.File{}, false
	}
	set := cfg.Workflows.Snapshot()
	f, ok := set.ByStem(stem)
	if !ok {
		return history.File{}, false
	}
	data, _ := set.Raw(f.Path)
	return history.File{Name: f.VersionName(), Path: f.Path, Hash: f.Hash, Data: data, Dir: cfg.WorkflowsDir}, true
}

// goneWorkflow is the workflow file that was at stem, for its History page
// once the file is gone: the workflow whose newest version is of
// STEM.yaml (or .yml), a deletion or a content last seen there, and which
// no file in the folder serves now (one that does moved elsewhere). The
// stem alone would name the wrong list when another file's workflow is
// named as the stem, and no list when the gone file's workflow was named
// otherwise.
func (cfg Config) goneWorkflow(ctx context.Context, stem string) (history.File, error) {
	latest, err := cfg.Versions.LatestVersions(ctx, registry.KindWorkflow)
	if err != nil || cfg.Workflows == nil {
		return history.File{}, err
	}
	served := map[string]bool{}
	for _, f := range cfg.Workflows.Snapshot().Files() {
		served[f.VersionName()] = true
	}
	var gone history.File
	var seen time.Time
	for name, v := range latest {
		if path.Dir(v.Path) == "." && workflow.Stem(v.Path) == stem && !served[name] && v.Time.After(seen) {
			gone, seen = history.File{Name: name, Path: v.Path, Dir: cfg.WorkflowsDir}, v.Time
		}
	}
	return gone, nil
}
