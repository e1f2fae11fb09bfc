package delegation

import (
	"slices"

	"github.com/agentry/agentry/permissions"
)

// Skills on an engine that persists between steps. In process, what a
// skill load changes (its allowed-tools narrowing, its readable folder,
// skills_loaded) lives in the invocation (skills_invoke.go). A step
// rebuilds its invocation from a Frame, so the Frame carries the loaded
// skills of every agent on its branch (Frame.Skills), the engine adds
// those a Tool step reports, and each step loads them again (reload):
// a skill's narrowing holds across the steps of a durable run, for its
// agent and for every child it starts after, as in process.

// loadedAt is what the agent at Branch index i had loaded.
func (f *Frame) loadedAt(i int) []string {
	if i < len(f.Skills) {
		return f.Skills[i]
	}
	return nil
}

// Loaded lists the skills f's invocation has loaded, in order.
func (f *Frame) Loaded() []string { return f.loadedAt(len(f.Branch) - 1) }

// Load adds to f's invocation the skills of ids it has not loaded yet, in
// order: what a Tool step reports. f.Skills is copied, not changed in
// place, so a copy of f taken before keeps what it had.
func (f *Frame) Load(ids []string) {
	have := f.Loaded()
	grown := slices.Clone(have)
	for _, id := range ids {
		if !slices.Contains(grown, id) {
			grown = append(grown, id)
		}
	}
	if len(grown) == len(have) {
		return
	}
	skills := make([][]string, len(f.Branch))
	copy(skills, f.Skills)
	skills[len(f.Branch)-1] = grown
	f.Skills = skills
}

// branchSkills is Frame.Skills for a child of f's invocation inv: the
// branch's loaded skills with inv's as they are now (preloaded ones too),
// nil when no agent on the branch loaded any.
func branchSkills(f *Frame, inv *invocation) [][]string {
	skills := make([][]string, len(f.Branch))
	copy(skills, f.Skills)
	skills[len(f.Branch)-1] = inv.loadedSkills()
	if !slices.ContainsFunc(skills, func(ids []string) bool { return len(ids) > 0 }) {
		return nil
	}
	return skills
}

// reload loads again, in a rebuilt invocation, the skills it had loaded.
// A skill it cannot load again (gone from the folder, or no longer
// allowed) fails closed: it adds a level that allows only the skill
// tool, so a narrowing never falls away between steps.
func (inv *invocation) reload(ids []string) {
	inv.applySkills()
	for _, id := range ids {
		if inv.scope != nil {
			if _, err := inv.scope.load(id); err == nil {
				continue
			}
		}
		lvl, _ := permissions.SkillLevel(id, []string{})
		inv.narrow(lvl)
	}
}

// skillAttrs adds to attrs, which f's invoke_agent span ends with, the
// skills it was offered and loaded, as in process; nothing when the
// runtime has no skills or f can no longer be rebuilt.
func (s *Steps) skillAttrs(key Key, f Frame, attrs map[string]any) map[string]any {
	if s.rt.cfg.Skills == nil {
		return attrs
	}
	if inv, err := s.rebuild(key, f); err == nil {
		inv.skillAttrs(attrs)
	}
	return attrs
}
