package registry

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentry/agentry/registry/internal/files"
)

func TestAgentFilesAreFoundWhereTheToolsKeepThem(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"a.md", true},
		{"team/sub/a.md", true},
		{"team/a.agent.md", true},
		{".claude/agents/reviewer.md", true},
		{".claude/agents/backend/api.md", true},
		{".github/agents/csharp-expert.agent.md", true},
		{".github/chatmodes/plan.chatmode.md", true},
		{"notes.txt", false},
		{".hidden.md", false},
		{"team/.draft.md", false},
		{".claude/agents/.draft.md", false},
		{".claude/commands/fix.md", false},   // Claude Code slash commands, not agents
		{".claude/CLAUDE.md", false},         // memory, not an agent
		{".github/agents/reviewer.md", true}, // VS Code reads every *.md there as a custom agent
		{".github/agents/.agent.md", false},
		{".github/chatmodes/plan.md", false},
		{".github/workflows/ci.md", false},
		{".github/copilot-instructions.md", false},
		{".git/COMMIT_EDITMSG.md", false},
		{"node_modules/pkg/README.md", false},
		{"team/node_modules/pkg/a.md", false},
		{"team/.claude/agents/a.md", false}, // tool folders count at the top only
		{".vscode/a.md", false},
	} {
		if got := IsAgentFile(tc.path); got != tc.want {
			t.Errorf("IsAgentFile(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestOnlyFoldersThatCanHoldAgentFilesAreWalked(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{".", true},
		{"team", true},
		{".claude", true},
		{".claude/agents", true},
		{".claude/agents/backend", true},
		{".github", true},
		{".github/agents", true},
		{".github/chatmodes", true},
		{".claude/commands", false},
		{".claude/agents/.cache", false},
		{".github/workflows", false},
		{".git", false},
		{".git/objects", false},
		{"node_modules", false},
		{"team/.claude", false},
	} {
		if got := IsAgentFolder(tc.dir); got != tc.want {
			t.Errorf("IsAgentFolder(%q) = %v, want %v", tc.dir, got, tc.want)
		}
	}
}

func TestAProjectRootYieldsItsToolsAgents(t *testing.T) {
	fsys := fstest.MapFS{
		"agents/writer.md":                  {Data: []byte("x")},
		".claude/agents/reviewer.md":        {Data: []byte("x")},
		".claude/settings.json":             {Data: []byte("{}")},
		".github/agents/planner.agent.md":   {Data: []byte("x")},
		".github/chatmodes/ask.chatmode.md": {Data: []byte("x")},
		".github/workflows/ci.yml":          {Data: []byte("x")},
		".git/HEAD":                         {Data: []byte("x")},
		"node_modules/x/README.md":          {Data: []byte("x")},
	}
	got, err := agentPaths(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".claude/agents/reviewer.md", ".github/agents/planner.agent.md", ".github/chatmodes/ask.chatmode.md", "agents/writer.md"}
	if !slices.Equal(got, want) {
		t.Fatalf("agentPaths = %q, want %q", got, want)
	}
	// A subfolder listed alone keeps the tool folders' rules.
	got, err = files.List(fsys, ".github", "agent", IsAgentFolder, IsAgentFile)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".github/agents/planner.agent.md", ".github/chatmodes/ask.chatmode.md"}; !slices.Equal(got, want) {
		t.Fatalf("List(.github) = %q, want %q", got, want)
	}
}

func TestAnUnreadableFileIsListedWithItsReasonAndServesNothing(t *testing.T) {
	s := Empty(Options{}).Apply(Change{Path: "a.md", Data: []byte("---\nname: a\ndescription: A.\n---\nBody.\n")})
	refused := errors.New("it is a symbolic link to /etc/passwd, outside the agents folder")
	next := s.Apply(Change{Path: "a.md", Err: refused})
	f, ok := next.File("a.md")
	if !ok || len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Message, "/etc/passwd, outside the agents folder") {
		t.Fatalf("file = %+v", f)
	}
	if _, served := next.Agent("a"); served {
		t.Fatal("the refused file still serves its agent")
	}
	if raw, _ := next.Raw("a.md"); len(raw) != 0 {
		t.Fatalf("raw content of a refused file: %q", raw)
	}
	if next.Apply(Change{Path: "a.md", Err: refused}) != next {
		t.Fatal("the same refusal again made a new snapshot")
	}
}

// TestLoadReportsAFileOverTheLimit reads a file just past MaxFileSize
// through Load's reader and gets the size problem, not the file.
func TestLoadReportsAFileOverTheLimit(t *testing.T) {
	fsys := fstest.MapFS{
		"big.md":   {Data: []byte("---\nname: big\n---\n" + strings.Repeat("x", MaxFileSize))},
		"small.md": {Data: []byte("---\nname: small\ndescription: Small.\n---\nHi.\n")},
	}
	s, err := Load(fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Agent("small"); !ok {
		t.Error("small.md did not load next to the big file")
	}
	probs := s.Problems()
	if len(probs) != 1 || probs[0].File != "big.md" || !strings.Contains(probs[0].Message, "1 MiB") {
		t.Errorf("problems = %+v, want one for big.md over 1 MiB", probs)
	}
}
