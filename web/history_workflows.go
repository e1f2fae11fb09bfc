package web

import "github.com/agentry/agentry/web/history"

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
