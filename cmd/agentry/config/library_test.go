package config

import (
	"testing"

	"github.com/agentry/agentry/permissions"
)

// Without permissions.skills every skill is allowed, whether the file is
// empty, absent or says nothing about skills; with an allow list only
// those. (A flag such as --db once left an empty allow list behind, which
// denied every skill.)
func TestGlobalSkillsAllowEverySkillUnlessTheFileSaysOtherwise(t *testing.T) {
	for _, c := range []struct {
		name, file string
		allowed    bool
	}{
		{"an empty file", "", true},
		{"a file without skills rules", "permissions:\n  tools:\n    allow: ['*']\n", true},
		{"an allow list", "permissions:\n  skills:\n    allow: [pdf]\n", false},
		{"a deny list", "permissions:\n  skills:\n    deny: [release-*]\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, err := loadWith(t, nil, "--config", writeFile(t, dir, "agentry.yaml", c.file), "--db", "t.db")
			if err != nil {
				t.Fatal(err)
			}
			chain := []permissions.Level{{Name: permissions.GlobalLevel, Rules: cfg.GlobalSkills()}}
			if d := permissions.Skill(chain, "release-notes"); d.Allowed != c.allowed {
				t.Fatalf("release-notes allowed = %v (%s), want %v", d.Allowed, d.Reason, c.allowed)
			}
		})
	}
}
