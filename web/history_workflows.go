package web

import (
	"cmp"

	"github.com/agentry/agentry/web/history"
)

// workflowFile is the workflow file addressed by stem (/workflows/STEM),
// for the workflows' History pages. Its versions are listed under its
// workflow's name, else the stem, as serve records them (cmd/agentry's
// workflowName).
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
	return history.File{Name: cmp.Or(f.Name, stem), Path: f.Path, Hash: f.Hash, Data: data, Dir: cfg.WorkflowsDir}, true
}
