package config

import (
	"cmp"
	"path/filepath"

	"github.com/agentry/agentry/permissions"
)

// DefaultPlugins is where plugins are installed when the configuration
// does not say (plugins:).
const DefaultPlugins = ".agentry/plugins"

// SkillsDir is the skills folder: the configured one (skills:), or skills
// beside the agents folder.
func (c Config) SkillsDir() string {
	if c.Skills != "" {
		return c.Skills
	}
	return filepath.Join(filepath.Dir(filepath.Clean(c.Agents)), "skills")
}

// PluginsDir is the plugins folder, which holds the lock file.
func (c Config) PluginsDir() string { return cmp.Or(c.Plugins, DefaultPlugins) }

// GlobalSkills is the global level's skills rules (permissions.skills).
// Without an allow list every skill is allowed: the loader gives an
// absent list as an empty one, and an empty allow list would deny all.
func (c Config) GlobalSkills() permissions.Rules {
	r := permissions.Rules{Deny: c.Permissions.Skills.Deny}
	if len(c.Permissions.Skills.Allow) > 0 {
		r.Allow = c.Permissions.Skills.Allow
	}
	return r
}
