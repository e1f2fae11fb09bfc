package permissions_test

import (
	"testing"

	"github.com/agentry/agentry/permissions"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		subject string
		want    bool
	}{
		{"a full name matches itself", "web.fetch", "web.fetch", true},
		{"a full name does not match a sibling", "web.fetch", "web.search", false},
		{"a full name does not match a longer name sharing its prefix", "web.fetch", "web.fetcher", false},
		{"a group matches every tool in it", "web", "web.fetch", true},
		{"a group matches the bare group name", "web", "web", true},
		{"a group does not match a group with a longer name", "web", "webhooks.send", false},
		{"a group does not match another group", "web", "filesystem.read_file", false},
		{"a dotted literal acts as a group for deeper names", "github.repos", "github.repos.list", true},
		{"a trailing star matches a prefix", "filesystem.read_*", "filesystem.read_file", true},
		{"a trailing star matches the empty rest", "filesystem.read_*", "filesystem.read_", true},
		{"a trailing star does not match another prefix", "filesystem.read_*", "filesystem.write_file", false},
		{"a lone star matches everything", "*", "neo4j.query", true},
		{"a lone star matches an agent name", "*", "data-analyst", true},
		{"a double star is the same as a star", "**", "web.fetch", true},
		{"a leading star matches a suffix", "*_file", "filesystem.write_file", true},
		{"a leading star needs the suffix", "*_file", "filesystem.grep", false},
		{"a question mark matches one character", "mcp?.x", "mcp1.x", true},
		{"a question mark needs exactly one character", "mcp?.x", "mcp.x", false},
		{"a question mark does not match two characters", "mcp?.x", "mcp12.x", false},
		{"a star in the middle spans dots", "f*.grep", "filesystem.grep", true},
		{"a star in the middle backtracks", "a*b*c", "axxbyybzc", true},
		{"a star in the middle fails without the tail", "a*b*c", "axxbyyb", false},
		{"a glob must match the whole name", "web.f*h", "web.fetch.x", false},
		{"an agent pattern with a star", "data-*", "data-analyst", true},
		{"matching is case-sensitive", "Web", "web.fetch", false},
		{"an empty pattern matches nothing", "", "", false},
		{"an empty pattern does not match a name", "", "web.fetch", false},
		{"other glob syntax is literal", "[ab]", "a", false},
		{"other glob syntax matches itself", "[ab]", "[ab]", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := permissions.Match(tt.pattern, tt.subject); got != tt.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.subject, got, tt.want)
			}
		})
	}
}
