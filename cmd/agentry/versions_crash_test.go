package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// crashChildDir names the workspace of TestCrashChildSavesThenHangs.
const crashChildDir = "AGENTRY_TEST_CRASH_CHILD_DIR"

// A version is recorded after its save returns (delegation/versions): a
// process killed in between has saved the file but not its version. The
// next command that loads the folder records it, so the crash loses
// nothing.
func TestAVersionLostToACrashAfterTheSaveIsRecordedByTheNextCommand(t *testing.T) {
	dir, env := shippedSuite(t)
	if first := historyOf(t, env, "research-coordinator"); len(first) != 1 {
		t.Fatalf("history before the save: %+v", first)
	}
	child := exec.Command(os.Args[0], "-test.run", "^TestCrashChildSavesThenHangs$")
	child.Env = append(os.Environ(), crashChildDir+"="+dir)
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	child.Process.Kill() // SIGKILL: no deferred Close, no flush
	child.Wait()
	saved, ok := strings.CutPrefix(strings.TrimSpace(line), "saved ")
	if err != nil || !ok {
		t.Fatalf("the child printed %q before it was killed: %v", line, err)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "agents", "research-coordinator.md")); registry.Hash(now) != saved {
		t.Fatalf("the killed process's save is not on disk")
	}
	store, err := sqlite.Open(filepath.Join(dir, "trace.db"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := store.LatestVersion(context.Background(), registry.KindAgent, "research-coordinator")
	store.Close()
	if err != nil || v.Hash == saved {
		t.Fatalf("the newest version before the next command is %s (%v): the child recorded it, so the test proves nothing", v.Hash, err)
	}
	list := historyOf(t, env, "research-coordinator")
	if len(list) != 2 || list[0].Hash != saved || list[0].Source != "filesystem" || list[0].Summary != "description changed" || !list[0].Current {
		t.Fatalf("history after the crash = %+v, want the killed save's version first", list)
	}
}

// TestCrashChildSavesThenHangs is the process the test above kills: it
// saves research-coordinator.md as the editor does, with versions recorded
// into a store whose writes never finish, prints the new hash and waits.
// Run on its own (no workspace given) it does nothing.
func TestCrashChildSavesThenHangs(t *testing.T) {
	dir := os.Getenv(crashChildDir)
	if dir == "" {
		return
	}
	store, err := sqlite.Open(filepath.Join(dir, "trace.db"))
	if err != nil {
		t.Fatal(err)
	}
	versions := newVersionRecorder(neverWritten{store}, slog.New(slog.DiscardHandler))
	reg := registry.New(nil)
	f, err := folder.OpenContents(filepath.Join(dir, "agents"), agentContents(reg, registry.Options{}, versions), folder.Config{})
	if err != nil {
		t.Fatal(err)
	}
	file, _ := reg.Snapshot().File("research-coordinator.md")
	data, _ := reg.Snapshot().Raw(file.Path)
	edited := strings.Replace(string(data), "description: ", "description: Edited. ", 1)
	hash, err := folder.Sourced(f, registry.SourceWeb).Write(file.Path, []byte(edited), file.Hash)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("saved %s\n", hash)
	select {}
}

// neverWritten is a store whose version writes never finish: the disk
// hangs, and the process is killed before its version is written.
type neverWritten struct{ trace.VersionStore }

func (neverWritten) AddVersion(ctx context.Context, _ trace.Version) (bool, error) {
	<-ctx.Done()
	return false, ctx.Err()
}
