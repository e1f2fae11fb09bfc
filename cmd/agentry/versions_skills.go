package main

import (
	"context"
	"path"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/registry/skills"
)

// Skills get versions as agents do (docs/versions.md), of their SKILL.md
// only (folder.VersionedSkills says why). The skills roots of the project are versioned, not the
// commands root and not the installed plugins' copies, which the plugins'
// lock file pins. A skill is listed by its id, so a skill whose folder
// moves keeps its history.

// skillContents is a library root's contents for cat; a skills root's
// SKILL.md changes become versions of their skill when r is not nil.
func (r *versionRecorder) skillContents(cat *skills.Catalog, root skills.Root) folder.Contents {
	if r == nil {
		return cat.Add(root)
	}
	return folder.VersionedSkills(cat, root, r.Hook)
}

// syncSkills is syncAgents for the skills roots of lib: of several
// SKILL.md files with one id, only the one served is compared.
func (r *versionRecorder) syncSkills(ctx context.Context, lib *skills.Library) {
	if r == nil || lib == nil {
		return
	}
	var files []fileNow
	for _, f := range lib.Files() {
		root, rel, ok := lib.Location(f.Path)
		if !ok || root.Kind != skills.RootSkills || path.Base(rel) != skills.FileName || f.Hash == "" {
			continue // not a skill's SKILL.md, or one the library could not read (a link out of its folder)
		}
		name := folder.SkillName(lib, root.Label, rel)
		if s, ok := lib.Skill(name); ok && s.Root+"/"+s.File() != f.Path {
			continue // a duplicate's file, not what is served
		}
		files = append(files, fileNow{name: name, path: rel, hash: f.Hash, data: func() []byte { d, _ := lib.Raw(f.Path); return d }})
	}
	r.sync(ctx, registry.KindSkill, files)
}
