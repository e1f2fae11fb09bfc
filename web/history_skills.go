package web

import (
	"io"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/web/history"
)

// skillFile is the SKILL.md serving skill id now, for the skills' History
// pages: a project's skill, with the writer of its root when the editor
// may save there. An installed plugin's skill has no versions here.
func (cfg Config) skillFile(id string) (history.File, bool) {
	if cfg.Skills == nil {
		return history.File{}, false
	}
	lib := cfg.Skills.Snapshot()
	sk, ok := lib.Skill(id)
	if !ok || sk.Plugin != "" {
		return history.File{}, false
	}
	f, ok := lib.File(sk.Root + "/" + sk.File())
	root, rel, found := lib.Location(f.Path)
	if !ok || !found {
		return history.File{}, false
	}
	file := history.File{Path: rel, Hash: f.Hash, Dir: root.Dir}
	if r, err := lib.Open(id, skills.FileName); err == nil {
		file.Data, _ = io.ReadAll(io.LimitReader(r, registry.MaxFileSize+1))
		r.Close()
	}
	if cfg.SkillFiles != nil {
		file.Files, _ = cfg.SkillFiles(root.Label).(history.Files)
	}
	return file, true
}
