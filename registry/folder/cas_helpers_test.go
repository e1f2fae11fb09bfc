package folder

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
)

// The test binary doubles as a second agentry process: with saverEnv set,
// TestMain runs saverMain instead of the tests, so two processes save the
// same file through their own Folder, as two `serve`s would.
const (
	saverEnv     = "AGENTRY_FOLDER_TEST_SAVER" // dir|file|tag|goroutines|edits
	saverDoneMsg = "saver done"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(saverEnv); spec != "" {
		if err := saverMain(spec); err != nil {
			fmt.Fprintln(os.Stderr, "saver:", err)
			os.Exit(1)
		}
		fmt.Println(saverDoneMsg)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func saverMain(spec string) error {
	parts := strings.Split(spec, "|")
	if len(parts) != 5 {
		return fmt.Errorf("bad spec %q", spec)
	}
	goroutines, _ := strconv.Atoi(parts[3])
	edits, _ := strconv.Atoi(parts[4])
	reg := registry.New(nil)
	f, err := Open(parts[0], reg, registry.Options{}, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	return saveConcurrently(f, parts[1], parts[2], goroutines, edits)
}

// saveConcurrently runs goroutines that each append edits lines to the
// file's body, every edit a read-modify-save with the hash it read, retried
// on conflict as a user would after reloading.
func saveConcurrently(f *Folder, rel, tag string, goroutines, edits int) error {
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for i := range edits {
				if err := appendLine(f, rel, fmt.Sprintf("%s-%d-%d", tag, g, i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// appendLine adds line to the file with Folder.Write, retrying conflicts.
func appendLine(f *Folder, rel, line string) error {
	for attempt := 0; ; attempt++ {
		data, err := os.ReadFile(filepath.Join(f.Dir(), rel))
		if err != nil {
			return err
		}
		if !bytes.HasSuffix(data, []byte("\n")) {
			continue // read between an outside writer's truncate and write
		}
		next := append(bytes.Clone(data), line+"\n"...)
		_, err = f.Write(rel, next, registry.Hash(data))
		if errors.Is(err, registry.ErrConflict) && attempt < 100000 {
			continue
		}
		return err
	}
}

// outsider is how another program, not agentry, writes the shared file.
type outsider int

const (
	noOutsider outsider = iota
	// outsideReplace writes whole new versions without reading the file
	// (a generator, a cp), each through a temp file renamed over it, and
	// takes no lock.
	outsideReplace
	// outsideEditor reads, appends and saves as editors do: a temp file,
	// a "changed on disk?" look, a rename; no lock.
	outsideEditor
	// outsideLocking reads, appends and saves holding the folder's lock
	// file, as a script run under flock(1) would.
	outsideLocking
)

// write makes the outsider's edit number i, adding line; it returns
// whether the edit is known lost (only outsideReplace can tell, by looking
// for its line after writing).
func (o outsider) write(dir, rel, line string) (lost bool, err error) {
	p := filepath.Join(dir, rel)
	tmp := p + ".outside.tmp"
	switch o {
	case outsideReplace:
		if err := os.WriteFile(tmp, []byte(agentText("shared", "replaced")+"\n"+line+"\n"), 0o644); err != nil {
			return false, err
		}
		if err := os.Rename(tmp, p); err != nil {
			return false, err
		}
		return !stillThere(p, line), nil
	case outsideLocking:
		lf, err := os.Open(dir) // the lock agentry takes: flock on the folder
		if err != nil {
			return false, err
		}
		defer lf.Close()
		if err := flock(lf); err != nil {
			return false, err
		}
	}
	for {
		data, err := os.ReadFile(p)
		if err != nil {
			return false, err
		}
		if err := os.WriteFile(tmp, append(bytes.Clone(data), line+"\n"...), 0o644); err != nil {
			return false, err
		}
		if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, data) {
			continue
		}
		return false, os.Rename(tmp, p)
	}
}

// stillThere reports whether the file holds line, the outsider's last
// edit, now or within a while. Every save appends to what it read, so a
// line once overwritten never comes back: only a save that swapped out the
// outsider's version without being based on it makes it disappear for
// good. A save that swaps it out and back shows another version meanwhile,
// for microseconds, or for as long as the saving thread is descheduled on
// a loaded machine, hence the looks for up to two seconds.
func stillThere(p, line string) bool {
	deadline := time.Now().Add(2 * time.Second)
	for {
		data, err := os.ReadFile(p)
		if err == nil && slices.Contains(strings.Split(string(data), "\n"), line) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		runtime.Gosched()
	}
}

// startSaver re-executes the test binary as a second saving process.
func startSaver(t testing.TB, dir, rel, tag string, goroutines, edits int) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%s|%d|%d", saverEnv, dir, rel, tag, goroutines, edits))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// lostLines counts the expected lines missing from the file's content.
func lostLines(content string, want []string) (lost int, first string) {
	have := map[string]bool{}
	for _, l := range strings.Split(content, "\n") {
		have[l] = true
	}
	for _, w := range want {
		if !have[w] {
			if lost == 0 {
				first = w
			}
			lost++
		}
	}
	return lost, first
}

func linesFor(tag string, goroutines, edits int) []string {
	var out []string
	for g := range goroutines {
		for i := range edits {
			out = append(out, fmt.Sprintf("%s-%d-%d", tag, g, i))
		}
	}
	return out
}

// raceSaves runs two processes (this one and a re-executed test binary)
// each with goroutines savers making edits edits, and an outside program
// making outside edits the way how says. It returns the savers' edits lost
// (counted unless the outsider replaces the whole file, which drops them
// by design) and the outsider's edits lost.
func raceSaves(t testing.TB, goroutines, edits, outside int, how outsider) (lostSaves, lostOutside int) {
	t.Helper()
	dir := t.TempDir()
	const rel = "shared.md"
	writeFile(t, dir, rel, agentText("shared", "edited by many")+"\n")
	f, err := Open(dir, registry.New(nil), registry.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	other := startSaver(t, dir, rel, "p2", goroutines, edits)
	var wg sync.WaitGroup
	var outErr error
	if how != noOutsider {
		wg.Go(func() {
			for i := range outside {
				lost, err := how.write(dir, rel, fmt.Sprintf("out-0-%d", i))
				if err != nil {
					outErr = err
					return
				}
				if lost {
					lostOutside++
				}
			}
		})
	}
	if err := saveConcurrently(f, rel, "p1", goroutines, edits); err != nil {
		t.Errorf("saver in this process: %v", err)
	}
	if err := other.Wait(); err != nil {
		t.Errorf("saver process: %v", err)
	}
	wg.Wait()
	if outErr != nil {
		t.Fatalf("outside writer: %v", outErr)
	}
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if how == outsideReplace {
		if n, _ := lostLines(string(data), []string{fmt.Sprintf("out-0-%d", outside-1)}); n > 0 {
			lostOutside++ // the last version was overwritten after its look
		}
		return 0, lostOutside
	}
	if how != outsideEditor {
		lostSaves, _ = lostLines(string(data), append(linesFor("p1", goroutines, edits), linesFor("p2", goroutines, edits)...))
	}
	lostOutside, _ = lostLines(string(data), linesFor("out", 1, outside))
	return lostSaves, lostOutside
}
