package permissions_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentry/agentry/permissions"
)

// benchTools returns 200 tool names across built-in groups and MCP servers,
// sorted as a tool catalogue hands them out.
func benchTools() []string {
	tools := slices.Clone(builtin) // 7
	groups := []struct {
		name string
		n    int
	}{{"github", 48}, {"jira", 35}, {"slack", 30}, {"postgres", 25}, {"neo4j", 20}, {"k8s", 20}, {"browser", 15}}
	for _, g := range groups {
		for i := range g.n {
			tools = append(tools, fmt.Sprintf("%s.%s_%02d", g.name, []string{"read", "list", "write", "delete"}[i%4], i))
		}
	}
	tools = append(tools, "web.search")[:200]
	slices.Sort(tools)
	return tools
}

// benchChain is global plus three agents holding 50 patterns in total: exact
// names, groups, prefix, suffix and inner globs, as real files mix them.
func benchChain() []permissions.Level {
	return []permissions.Level{
		{Name: permissions.GlobalLevel, Rules: permissions.Rules{
			Allow: []string{"*"},
			Deny:  []string{"k8s.delete_*", "postgres.delete_*", "*.delete_03", "browser.write_??", "slack.write_10"},
		}}, // 6
		{Name: "project-manager", Rules: permissions.Rules{
			Allow: []string{"filesystem", "web", "github", "jira", "slack", "postgres.read_*", "postgres.list_*",
				"neo4j", "k8s.read_*", "k8s.list_*", "browser.read_*", "browser.list_*", "*_00", "g*b.write_*", "slack.list_*"},
			Deny: []string{"jira.delete_*", "github.delete_*", "filesystem.edit_file", "web.search", "neo4j.write_*"},
		}}, // 20
		{Name: "research-coordinator", Rules: permissions.Rules{
			Allow: []string{"filesystem.read_*", "filesystem.list_dir", "filesystem.grep", "filesystem.glob", "web",
				"github.read_*", "github.list_*", "jira.read_*", "jira.list_*", "neo4j.read_*", "postgres", "*_01"},
			Deny: []string{"github.read_04", "jira.list_05", "*_13"},
		}}, // 15
		{Name: "data-analyst", Rules: permissions.Rules{
			Allow: []string{"filesystem.read_file", "filesystem.grep", "web.fetch", "neo4j", "postgres", "github.read_*", "jira.*", "*_01"},
			Deny:  []string{"github.read_08", "postgres.list_*"},
		}}, // 10 → 51 with the global "*"; one fewer below keeps 50
	}
}

// BenchmarkToolsDepth3 measures the explained form (every tool with a reason),
// which the CLI, the web UI and traces print.
func BenchmarkToolsDepth3(b *testing.B) {
	chain := benchChain()
	chain[3].Rules.Deny = chain[3].Rules.Deny[:1]
	known := benchTools()
	b.ReportAllocs()
	for b.Loop() {
		permissions.Tools(chain, known)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "µs/op")
}

// BenchmarkCommand measures one shell.run call's command decision: the
// line parsed by a bash parser and each command matched against an allow
// and a deny pattern (it runs once per call, beside a sandbox start of
// milliseconds).
func BenchmarkCommand(b *testing.B) {
	chain := []permissions.Level{
		{Name: permissions.GlobalLevel, Rules: permissions.Rules{Allow: []string{"*"}, Deny: []string{"shell.run(rm *)"}}},
		{Name: "coder", Rules: permissions.Rules{Allow: []string{"shell.run(git *)", "shell.run(go *)"}}},
	}
	line := `go test ./... && git commit -m "fix: a; b" && git push origin main`
	b.ReportAllocs()
	for b.Loop() {
		if !permissions.Command(chain, "shell.run", line).Allowed {
			b.Fatal("denied")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "µs/op")
}
