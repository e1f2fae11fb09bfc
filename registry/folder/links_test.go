package folder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/registry"
)

// problemOf is the first problem of the file at rel, "" when it has none
// or is not listed.
func problemOf(s *registry.Snapshot, rel string) string {
	if f, ok := s.File(rel); ok && len(f.Problems) > 0 {
		return f.Problems[0].Message
	}
	return ""
}

// A file that is a link to a file not made yet (agents/late.md ->
// ../.shared/deep/late.md, made before the folders on the way) is read as
// soon as its target is made, and again whenever the target changes, even
// where none of the folder's own watches look (a hidden folder): a link
// there at Open and one made after alike.
func TestAFileLinkIsReadWhenItsTargetIsMadeOrChanged(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/lead.md", agentText("lead", "there"))
	symlink(t, filepath.Join("..", ".shared", "early.md"), filepath.Join(dir, "agents", "early.md"))
	reg := registry.New(nil)
	f, err := OpenConfig(dir, reg, Config{})
	if err != nil {
		t.Fatal(err)
	}
	fx := fixtureOf(t, dir, reg, f)
	symlink(t, filepath.Join("..", ".shared", "deep", "late.md"), filepath.Join(dir, "agents", "late.md"))
	fx.waitFor(t, "the link made after Open, leading nowhere yet", func(s *registry.Snapshot) bool {
		return strings.Contains(problemOf(s, "agents/late.md"), "leads nowhere")
	})
	if p := problemOf(reg.Snapshot(), "agents/early.md"); !strings.Contains(p, "leads nowhere") {
		t.Fatalf("the link there at Open: problem %q, want that it leads nowhere", p)
	}

	writeFile(t, dir, ".shared/deep/late.md", agentText("late", "made later"))
	fx.waitFor(t, "the agent of a link whose target was made after it", hasAgent("late"))
	writeFile(t, dir, ".shared/early.md", agentText("early", "made later"))
	fx.waitFor(t, "the agent of a link there at Open whose target was made later", hasAgent("early"))

	writeFile(t, dir, ".shared/deep/late.md", agentText("late", "changed"))
	fx.waitFor(t, "the change of a link's target", func(s *registry.Snapshot) bool { return description(s, "late") == "changed" })
	if err := os.RemoveAll(filepath.Join(dir, ".shared")); err != nil {
		t.Fatal(err)
	}
	fx.waitFor(t, "both links leading nowhere again", func(s *registry.Snapshot) bool {
		return strings.Contains(problemOf(s, "agents/late.md"), "leads nowhere") &&
			strings.Contains(problemOf(s, "agents/early.md"), "leads nowhere")
	})
	writeFile(t, dir, ".shared/deep/late.md", agentText("late", "made again"))
	fx.waitFor(t, "the target made again", func(s *registry.Snapshot) bool { return description(s, "late") == "made again" })
}

// A link whose target appears outside the folder (the way to it made a
// link out of it) is refused as soon as it appears, as at start: its
// content never reaches the registry.
func TestAFileLinkWhoseTargetAppearsOutsideTheFolderIsRefused(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, outside, "helper.md", agentText("helper", "SECRET CONTENT"))
	fx := open(t, 0, map[string]string{"agents/lead.md": agentText("lead", "there")})
	symlink(t, filepath.Join("..", ".shared", "helper.md"), filepath.Join(fx.dir, "agents", "helper.md"))
	fx.waitFor(t, "the link leading nowhere yet", func(s *registry.Snapshot) bool {
		return strings.Contains(problemOf(s, "agents/helper.md"), "leads nowhere")
	})
	symlink(t, outside, filepath.Join(fx.dir, ".shared"))
	s := fx.waitFor(t, "the link refused once its target is there", func(s *registry.Snapshot) bool {
		return strings.Contains(problemOf(s, "agents/helper.md"), "outside the watched folder")
	})
	if _, ok := s.Agent("helper"); ok {
		t.Fatal("the content of a link out of the folder was served")
	}
}
