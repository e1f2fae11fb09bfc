package filesystem

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/tool"
)

// ownWorkspace is the default layout: workspace ".", with the trace
// database, the agents and workflows folders and the config inside it.
func ownWorkspace(t *testing.T) (*Workspace, string) {
	t.Helper()
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, "agents"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "agents", "coder.md"), []byte("---\nname: coder\n---\nCode.\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "agentry.yaml"), []byte("models: {openai: {api_key: CONFIG-SECRET}}\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(ws, "agentry.db"), []byte("TRACE-SECRET"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "notes.md"), []byte("notes\n"), 0o644))
	must(t, os.Symlink("agents/coder.md", filepath.Join(ws, "link.md")))
	must(t, os.Symlink("agents", filepath.Join(ws, "ag")))
	w, err := Open(ws,
		tool.Protected{Path: filepath.Join(ws, "agentry.db"), What: "the trace database", Hidden: true},
		tool.Protected{Path: filepath.Join(ws, "agents"), What: "the agents folder", Dir: true},
		tool.Protected{Path: filepath.Join(ws, "workflows"), What: "the workflows folder", Dir: true},
		tool.Protected{Path: filepath.Join(ws, "agentry.yaml"), What: "the config file", Hidden: true},
	)
	must(t, err)
	t.Cleanup(func() { w.Close() })
	return w, ws
}

func TestTheFilesystemToolsRefuseAgentrysOwnState(t *testing.T) {
	w, ws := ownWorkspace(t)
	refused := []struct{ tool, args string }{
		{"filesystem.write_file", `{"path":"agentry.yaml","content":"permissions: {tools: {allow: [\"*\"]}}"}`},
		{"filesystem.edit_file", `{"path":"agents/coder.md","old_string":"Code.","new_string":"Code.\ntools: [shell.network]"}`},
		{"filesystem.write_file", `{"path":"agents/new.md","content":"x"}`},
		{"filesystem.write_file", `{"path":"workflows/evil.yaml","content":"x"}`},
		{"filesystem.write_file", `{"path":"link.md","content":"x"}`},
		{"filesystem.write_file", `{"path":"ag/other.md","content":"x"}`},
		{"filesystem.write_file", `{"path":"./docs/../agentry.db","content":"x"}`},
		{"filesystem.read_file", `{"path":"agentry.db"}`},
		{"filesystem.read_file", `{"path":"agentry.yaml"}`},
	}
	for _, c := range refused {
		out, err := call(t, w, c.tool, json.RawMessage(c.args))
		if !errors.Is(err, tool.ErrOwnState) || !strings.Contains(err.Error(), "agents may not") {
			t.Errorf("%s %s = %q, %v; want it refused as agentry's own state", c.tool, c.args, out, err)
		}
	}
	for p, want := range map[string]string{"agentry.yaml": "models: {openai: {api_key: CONFIG-SECRET}}\n",
		"agents/coder.md": "---\nname: coder\n---\nCode.\n", "agentry.db": "TRACE-SECRET"} {
		if b, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want it unchanged", p, b, err)
		}
	}
	for _, p := range []string{"agents/new.md", "workflows", "ag/other.md"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after a refused write: %v", p, err)
		}
	}
	if out, err := call(t, w, "filesystem.read_file", json.RawMessage(`{"path":"agents/coder.md"}`)); err != nil || !strings.Contains(out, "name: coder") {
		t.Errorf("reading an agent file = %q, %v; the agents folder is read-only, not hidden", out, err)
	}
	if out, err := call(t, w, "filesystem.grep", json.RawMessage(`{"pattern":"SECRET"}`)); err != nil || strings.Contains(out, "SECRET") {
		t.Errorf("grep = %q, %v; hidden state must not be searched", out, err)
	}
	if out, err := call(t, w, "filesystem.write_file", json.RawMessage(`{"path":"notes.md","content":"mine"}`)); err != nil {
		t.Errorf("writing an ordinary file = %q, %v", out, err)
	}
}

func TestAFileOpenedOnProtectedStateIsRefusedByItsRealPath(t *testing.T) {
	w, _ := ownWorkspace(t)
	f, err := w.root.Open("agents/coder.md") // as if a link had been swapped after the first check
	must(t, err)
	defer f.Close()
	if err := w.opened("write", "innocent.md", f, true); !errors.Is(err, tool.ErrOwnState) {
		t.Fatalf("opened = %v; want the descriptor's real path refused", err)
	}
}
