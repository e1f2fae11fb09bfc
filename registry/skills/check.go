package skills

import "github.com/agentry/agentry/registry"

// CheckAgents returns warnings for the skills agents name that lib does
// not serve (Snapshot.CheckSkills): a skills: entry that is no skill's id
// is most likely a typo or a plugin that is not installed.
func CheckAgents(s *registry.Snapshot, lib *Library) []registry.Problem {
	return s.CheckSkills(func(id string) bool {
		_, ok := lib.Skill(id)
		return ok
	})
}
