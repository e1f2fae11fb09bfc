package folder

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/registry"
)

// awaitFixture opens path, which does not exist yet, with OpenAwaiting.
func awaitFixture(t *testing.T, path string) *fixture {
	t.Helper()
	reg := registry.New(nil)
	f, err := OpenAwaiting(path, Agents(reg, registry.Options{}), Config{})
	if err != nil {
		t.Fatalf("open a missing folder: %v", err)
	}
	return fixtureOf(t, path, reg, f)
}

func hasAgent(name string) func(*registry.Snapshot) bool {
	return func(s *registry.Snapshot) bool { _, ok := s.Agent(name); return ok }
}

func TestAFolderCreatedAfterOpenIsLoadedAndWatched(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents")
	fx := awaitFixture(t, dir)
	if err := fx.f.Delete("a.md", "x"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("delete in a missing folder: %v, want fs.ErrNotExist", err)
	}
	writeFile(t, dir, "a.md", agentText("a", "made with the folder"))
	fx.waitFor(t, "the agent of a folder created after Open", hasAgent("a"))
	writeFile(t, dir, "team/b.md", agentText("b", "made later"))
	fx.waitFor(t, "an agent written once the folder is watched", hasAgent("b"))
	if real, _ := filepath.EvalSymlinks(dir); fx.f.Dir() != real {
		t.Fatalf("Dir = %s, want %s", fx.f.Dir(), real)
	}
}

func TestAFolderMadePartByPartIsFollowedDownTheWay(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, ".claude", "skills", "agents")
	fx := awaitFixture(t, dir)
	for _, part := range []string{".claude", ".claude/skills", ".claude/skills/agents"} {
		if err := os.Mkdir(filepath.Join(base, filepath.FromSlash(part)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, "a.md", agentText("a", "deep"))
	fx.waitFor(t, "the agent of a folder made one part at a time", hasAgent("a"))
}

func TestASymlinkMadeAsTheFolderIsConfinedToItsTarget(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	writeFile(t, outside, "secret.md", agentText("secret", "SECRET CONTENT"))
	target := t.TempDir()
	writeFile(t, target, "real.md", agentText("real", "through the link"))
	symlink(t, secret, filepath.Join(target, "leak.md"))

	dir := filepath.Join(t.TempDir(), "agents")
	fx := awaitFixture(t, dir)
	symlink(t, target, dir)
	s := fx.waitFor(t, "the agents of a linked folder", hasAgent("real"))
	f, ok := s.File("leak.md")
	if !ok || len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Message, "outside the watched folder") {
		t.Fatalf("a link out of the appeared folder was not refused: %+v (listed %v)", f, ok)
	}
	if _, ok := s.Agent("secret"); ok {
		t.Fatal("the content of a link out of the folder was served")
	}
}

// A link made before its target (agents -> ../shared/agents, the shared
// folder made later) is awaited at its target: the folder is opened when
// the target appears, and confined to it as at start.
func TestALinkWhoseTargetAppearsLaterIsFollowed(t *testing.T) {
	base := t.TempDir()
	outside := t.TempDir()
	writeFile(t, outside, "secret.md", agentText("secret", "SECRET CONTENT"))
	target := filepath.Join(base, "shared", "team", "agents")
	dir := filepath.Join(base, "project", "agents")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join("..", "shared", "team", "agents"), dir)
	fx := awaitFixture(t, dir)
	staged := filepath.Join(base, "staged")
	writeFile(t, staged, "a.md", agentText("a", "in the target"))
	symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(staged, "leak.md"))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(staged, target); err != nil {
		t.Fatal(err)
	}
	s := fx.waitFor(t, "the agent of a link's target made after Open", hasAgent("a"))
	if f, ok := s.File("leak.md"); !ok || len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Message, "outside the watched folder") {
		t.Fatalf("a link out of the link's target was not refused: %+v (listed %v)", f, ok)
	}
	if _, ok := s.Agent("secret"); ok {
		t.Fatal("the content of a link out of the folder was served")
	}
	writeFile(t, target, "b.md", agentText("b", "written later"))
	fx.waitFor(t, "an agent written in the target once it is watched", hasAgent("b"))
}

// A save through an awaited link does not make the link's target: agentry
// writes through no link, and the target may be anywhere.
func TestASaveThroughAnAwaitedLinkMakesNoTarget(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "elsewhere", "agents")
	dir := filepath.Join(base, "agents")
	symlink(t, target, dir)
	fx := awaitFixture(t, dir)
	if _, err := fx.f.Write("a.md", []byte(agentText("a", "saved")), ""); err == nil {
		t.Error("a save through a link that leads nowhere succeeded")
	}
	if _, err := os.Lstat(filepath.Dir(target)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a save made the link's target: %v", err)
	}
}

// A link that is replaced while it is awaited is followed to its new
// target, and a real folder made in its place is found too.
func TestAnAwaitedLinkReplacedByAFolderIsFound(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "agents")
	symlink(t, filepath.Join(base, "nowhere"), dir)
	fx := awaitFixture(t, dir)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "a.md", agentText("a", "a real folder now"))
	fx.waitFor(t, "the agent of the folder made in the link's place", hasAgent("a"))
}

func TestASaveIntoAMissingFolderMakesIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "workflows", "agents")
	fx := awaitFixture(t, dir)
	if _, err := fx.f.Write("a.md", []byte(agentText("a", "saved")), ""); err != nil {
		t.Fatalf("write: %v", err)
	}
	if _, ok := fx.reg.Snapshot().Agent("a"); !ok {
		t.Fatal("the saved agent is not served when Write returns")
	}
	writeFile(t, dir, "b.md", agentText("b", "watched"))
	fx.waitFor(t, "an agent written beside the save", hasAgent("b"))
}

func TestClosingAFolderStillAwaitedStopsTheWatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents")
	reg := registry.New(nil)
	f, err := OpenAwaiting(dir, Agents(reg, registry.Options{}), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	writeFile(t, dir, "a.md", agentText("a", "after close"))
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Snapshot().Agent("a"); ok {
		t.Fatal("a closed Folder loaded its folder")
	}
	// A save after Close makes no folder of a Folder that never had one.
	other := filepath.Join(t.TempDir(), "skills")
	g, err := OpenAwaiting(other, Agents(registry.New(nil), registry.Options{}), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := g.Write("a.md", []byte(agentText("a", "after close")), ""); err == nil {
		t.Error("a closed Folder saved a file")
	}
	if _, err := os.Stat(other); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a closed Folder made its folder: %v", err)
	}
}

func TestTheFilesOfAnAppearedFolderAreHandedOnAsChanges(t *testing.T) {
	base := t.TempDir()
	made := filepath.Join(base, "made")
	writeFile(t, made, "a.md", agentText("a", "there when the folder appeared"))
	dir := filepath.Join(base, "agents")
	log := &changeLog{ch: make(chan struct{}, 1)}
	f, err := OpenAwaiting(dir, VersionedAgents(registry.New(nil), registry.Options{}, log.on), Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := os.Rename(made, dir); err != nil { // the folder appears with its file in one step
		t.Fatal(err)
	}
	if got := log.waitLen(t, 1); got[0].Path != "a.md" || got[0].Name != "a" || got[0].Deleted {
		t.Fatalf("handed on %+v, want a.md as a new version of a", got)
	}
}
