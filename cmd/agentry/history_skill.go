package main

import (
	"context"
	"log/slog"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
)

// openSkillTarget is openTarget for a skill: the skills library opened and
// watched (every change recorded by versions), what changed while nothing
// ran recorded, and the SKILL.md serving name found in it. A restore saves
// into that file's root.
func (s *session) openSkillTarget(ctx context.Context, cfg config.Config, name string, versions *versionRecorder, log *slog.Logger) (fileTarget, error) {
	t := fileTarget{kind: registry.KindSkill, name: name}
	cat, folders, closeLib, err := openLibrary(cfg, nil, true, log, versions)
	if err != nil {
		return t, err
	}
	t.close = closeLib
	lib := cat.Snapshot()
	versions.syncSkills(ctx, lib)
	sk, ok := lib.Skill(name)
	if !ok || sk.Plugin != "" {
		return t, nil // no file now (or an installed copy): its versions are listed, none can be restored
	}
	file, _ := lib.File(sk.Root + "/" + sk.File())
	root, rel, _ := lib.Location(file.Path)
	if f := folders[root.Label]; f != nil {
		t.dir, t.path, t.hash, t.writer = root.Dir, rel, file.Hash, folder.Sourced(f, registry.SourceCLI)
	}
	return t, nil
}
