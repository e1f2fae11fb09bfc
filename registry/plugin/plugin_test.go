package plugin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const fixture = "testdata/market"

func newStore(t *testing.T) *Store {
	t.Helper()
	return &Store{Dir: filepath.Join(t.TempDir(), "plugins"), Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }}
}

func names[T any](xs []T, name func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return out
}

func TestAddInstallsAMarketplaceAndSkipsWhatItCannotFetch(t *testing.T) {
	s := newStore(t)
	rep, err := s.Add(context.Background(), fixture, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(rep.Installed, func(p Locked) string { return p.Name }); !slices.Equal(got, []string{"docs", "git-tools", "listed"}) {
		t.Errorf("installed %v", got)
	}
	skipped := map[string]string{}
	for _, sk := range rep.Skipped {
		skipped[sk.Name] = sk.Reason
	}
	if len(skipped) != 2 || !strings.Contains(skipped["remote-github"], "cannot fetch https://github.com/agentry-fixtures/no-such-plugin.git") ||
		!strings.Contains(skipped["remote-subdir"], "cannot fetch https://agentry-fixture.invalid/pensyve.git") {
		t.Errorf("skipped %v", skipped)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][5]int{}
	for _, p := range list {
		got[p.Name] = [5]int{p.Agents, p.Skills, p.Commands, p.Hooks, p.MCPServers}
		abs, _ := filepath.Abs(fixture)
		if p.Source != abs || p.Marketplace != "fixture-market" || p.HooksEnabled || p.MCPEnabled {
			t.Errorf("%s locked as %+v", p.Name, p.Locked)
		}
	}
	want := map[string][5]int{"docs": {2, 2, 1, 1, 1}, "git-tools": {1, 0, 1, 0, 0}, "listed": {0, 1, 0, 0, 0}}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: agents, skills, commands, hooks, servers = %v; want %v", n, got[n], w)
		}
	}
	// The listed plugin holds only the skill it lists, not the others of
	// the marketplace's root, and got a plugin.json from its entry.
	if exists(filepath.Join(s.Dir, "listed/skills/other")) || !exists(filepath.Join(s.Dir, "listed/skills/csv/scripts/summary.py")) {
		t.Error("listed plugin: wrong skills copied")
	}
	if m, err := ReadManifest(filepath.Join(s.Dir, "listed")); err != nil || m.Name != "listed" {
		t.Errorf("listed manifest %+v %v", m, err)
	}
	info, err := os.Stat(filepath.Join(s.Dir, "docs/skills/pdf-forms/scripts/fill.sh"))
	if err != nil || info.Mode()&0o100 == 0 {
		t.Errorf("a script must stay executable: %v %v", info, err)
	}
}

func TestAddOnePluginByNameAndRefuseAnUnknownName(t *testing.T) {
	s := newStore(t)
	rep, err := s.Add(context.Background(), fixture, []string{"git-tools"})
	if err != nil || len(rep.Installed) != 1 || len(rep.Skipped) != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	if _, err := s.Add(context.Background(), fixture, []string{"gittools"}); err == nil || !strings.Contains(err.Error(), `no plugin "gittools" (it has: docs, git-tools, listed, remote-github, remote-subdir)`) {
		t.Errorf("unknown name: %v", err)
	}
	if err := s.Remove("git-tools"); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Lock(); len(l.Plugins) != 0 || exists(s.PluginDir("git-tools")) {
		t.Errorf("after remove: %+v", l)
	}
	if err := s.Remove("git-tools"); err == nil {
		t.Error("removing what is not installed must fail")
	}
}

func TestHooksAndServersShowWhatTheyRunAndStartDisabled(t *testing.T) {
	s := newStore(t)
	if _, err := s.Add(context.Background(), fixture, []string{"docs"}); err != nil {
		t.Fatal(err)
	}
	hooks, err := s.Hooks("docs")
	if err != nil || len(hooks) != 1 {
		t.Fatalf("hooks %v %v", hooks, err)
	}
	if h := hooks[0]; h.Event != "PreToolUse" || h.Matcher != "Bash" || h.Command != "sh "+s.PluginDir("docs")+"/hooks/check.sh" {
		t.Errorf("hook %+v", h)
	}
	servers, err := s.MCPServers("docs")
	if err != nil || len(servers) != 1 || servers[0].Command != "node" || servers[0].Args[0] != s.PluginDir("docs")+"/server/index.js" {
		t.Fatalf("servers %+v %v", servers, err)
	}
	if err := s.Enable("docs", true, false, true); err != nil {
		t.Fatal(err)
	}
	l, _ := s.Lock()
	if p, _ := l.Find("docs"); !p.HooksEnabled || p.MCPEnabled {
		t.Errorf("enabled %+v", p)
	}
	// An update from an unchanged source keeps the choice.
	rep, err := s.Update(context.Background(), nil)
	if err != nil || len(rep.Installed) != 1 || len(rep.Disabled) != 0 {
		t.Fatalf("update %+v %v", rep, err)
	}
	l, _ = s.Lock()
	if p, _ := l.Find("docs"); !p.HooksEnabled {
		t.Error("an update that changes nothing to run must keep hooks enabled")
	}
}

// TestAddFromAGitURLRecordsTheCommitAndUpdateFollowsIt serves the fixture
// as a real git repository (file://), the way a marketplace is added from
// its URL, and updates after a new commit that changes a hook: the hooks
// are disabled again.
func TestAddFromAGitURLRecordsTheCommitAndUpdateFollowsIt(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "market")
	if err := copyTree(fixture, repo); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "--quiet", "-b", "main")
	run("add", ".")
	run("commit", "--quiet", "-m", "fixture")
	first := run("rev-parse", "HEAD")
	url := "file://" + repo
	s := newStore(t)
	rep, err := s.Add(context.Background(), url, []string{"docs"})
	if err != nil || len(rep.Installed) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	if p := rep.Installed[0]; p.Commit != first || p.Source != url || p.Path != "./plugins/docs" {
		t.Errorf("locked %+v; want commit %s", p, first)
	}
	if err := s.Enable("docs", true, true, true); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "plugins/docs/hooks/check.sh"), []byte("exit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "plugins/docs/hooks/hooks.json"), []byte(`{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "true"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run("commit", "--quiet", "-am", "new hook")
	second := run("rev-parse", "HEAD")
	rep, err = s.Update(context.Background(), []string{"docs"})
	if err != nil || len(rep.Installed) != 1 || rep.Installed[0].Commit != second {
		t.Fatalf("update %+v %v; want commit %s", rep, err, second)
	}
	if !slices.Equal(rep.Disabled, []string{"docs"}) || rep.Installed[0].HooksEnabled || rep.Installed[0].MCPEnabled {
		t.Errorf("a changed hook must be disabled again: %+v", rep)
	}
}

func TestAddAPluginFolderOnItsOwn(t *testing.T) {
	s := newStore(t)
	rep, err := s.Add(context.Background(), filepath.Join(fixture, "plugins/git-tools"), nil)
	if err != nil || len(rep.Installed) != 1 || rep.Installed[0].Name != "git-tools" || rep.Installed[0].Marketplace != "" {
		t.Fatalf("%+v %v", rep, err)
	}
	if _, err := s.Add(context.Background(), t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "no .claude-plugin/marketplace.json and no plugin") {
		t.Errorf("an empty folder: %v", err)
	}
}

func TestABrokenMarketplaceNamesItsLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, MarketplaceFile), []byte("{\n  \"name\": \"m\",\n  \"plugins\": [\n    {\"name\": \"a\", \"source\": 3}\n  ]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := newStore(t).Add(context.Background(), dir, nil)
	if err == nil || !strings.Contains(err.Error(), "marketplace.json:4") {
		t.Errorf("error %v; want the file and line 4", err)
	}
}

// A marketplace entry may give hooks and servers inline, bare or already in
// their file's shape; either way the installed files are in that shape.
func TestInlineHooksAndServersAreWrittenInTheirFilesShape(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	market := `{"name": "m", "plugins": [
	  {"name": "bare", "source": "./", "strict": false,
	   "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]},
	   "mcpServers": {"files": {"command": "node", "args": ["index.js"]}}},
	  {"name": "wrapped", "source": "./", "strict": false,
	   "hooks": {"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "false"}]}]}},
	   "mcpServers": {"mcpServers": {"search": {"command": "npx"}}}}
	]}`
	if err := os.WriteFile(filepath.Join(dir, MarketplaceFile), []byte(market), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStore(t)
	if rep, err := s.Add(context.Background(), dir, nil); err != nil || len(rep.Installed) != 2 {
		t.Fatalf("%+v %v", rep, err)
	}
	want := map[string][2]string{"bare": {"PreToolUse true", "files node"}, "wrapped": {"PostToolUse false", "search npx"}}
	for name, w := range want {
		hooks, err := s.Hooks(name)
		if err != nil || len(hooks) != 1 || hooks[0].Event+" "+hooks[0].Command != w[0] {
			t.Errorf("%s: hooks %+v %v; want %s", name, hooks, err, w[0])
		}
		servers, err := s.MCPServers(name)
		if err != nil || len(servers) != 1 || servers[0].Name+" "+servers[0].Command != w[1] {
			t.Errorf("%s: servers %+v %v; want %s", name, servers, err, w[1])
		}
	}
}

func TestAHooksOwnConditionIsListed(t *testing.T) {
	s := newStore(t)
	if _, err := s.Add(context.Background(), fixture, []string{"docs"}); err != nil {
		t.Fatal(err)
	}
	data := `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./c.sh", "if": "Bash(git commit *)"}]}]}}`
	if err := os.WriteFile(filepath.Join(s.PluginDir("docs"), HooksFile), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	hooks, err := s.Hooks("docs")
	if err != nil || len(hooks) != 1 || hooks[0].String() != "PostToolUse Bash if Bash(git commit *): ./c.sh" {
		t.Fatalf("hooks %v %v", hooks, err)
	}
}
