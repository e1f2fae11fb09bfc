package webtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/registry"
)

// Team is a small, valid set of agents the handler tests share.
var Team = map[string]string{
	"lead.md":    "---\nname: lead\ndescription: Leads the work.\n# a comment the editor must keep\ncolor: blue\nsubagents:\n  allow: [analyst, writer]\n  deny: [intern]\n---\nYou lead.\n",
	"analyst.md": "---\nname: analyst\ndescription: Analyses data.\ntools:\n  allow: [filesystem.read_file]\n---\nYou analyse.\n",
	"writer.md":  "---\nname: writer\ndescription: Writes text.\nenabled: false\n---\nYou write.\n",
	"intern.md":  "---\nname: intern\ndescription: Helps.\n---\nYou help.\n",
}

// ExampleAgents reads the agent files shipped in the repository's agents/.
func ExampleAgents(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join(moduleRoot(t), "agents")
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !registry.IsAgentFile(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no example agents found in %s", root)
	}
	return out
}

// moduleRoot is the folder of go.mod above the test's working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}
