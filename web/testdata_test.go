package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/registry"
)

// team is a small, valid set of agents the handler tests share.
var team = map[string]string{
	"lead.md":    "---\nname: lead\ndescription: Leads the work.\n# a comment the editor must keep\ncolor: blue\nsubagents:\n  allow: [analyst, writer]\n  deny: [intern]\n---\nYou lead.\n",
	"analyst.md": "---\nname: analyst\ndescription: Analyses data.\ntools:\n  allow: [filesystem.read_file]\n---\nYou analyse.\n",
	"writer.md":  "---\nname: writer\ndescription: Writes text.\nenabled: false\n---\nYou write.\n",
	"intern.md":  "---\nname: intern\ndescription: Helps.\n---\nYou help.\n",
}

// exampleAgents reads the agent files shipped in the repository's agents/.
func exampleAgents(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "agents")
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
		t.Fatal("no example agents found in ../agents")
	}
	return out
}
