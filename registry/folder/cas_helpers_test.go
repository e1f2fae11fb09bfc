package folder

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

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

// outsideAppend is another program that takes no lock and saves the way
// editors do: it reads the file, writes a temp file beside it, checks the
// file still holds what it read ("changed on disk?") and renames the temp
// file over it. The check is not atomic with the rename, so this writer
// can still overwrite a save; a save must never overwrite it.
func outsideAppend(dir, rel, line string) error {
	p := filepath.Join(dir, rel)
	tmp := p + ".outside.tmp"
	for {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(tmp, append(bytes.Clone(data), line+"\n"...), 0o644); err != nil {
			return err
		}
		if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, data) {
			continue
		}
		return os.Rename(tmp, p)
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
// each with goroutines savers, plus, when outside > 0, an unlocking outside
// writer making that many edits. It returns the saves lost (two savers'
// edits missing) and the outside edits lost; saves lost to the outside
// writer's own unguarded read-modify-write are not the save's doing and
// are only counted when there is no outside writer.
func raceSaves(t testing.TB, goroutines, edits, outside int) (lostSaves, lostOutside int) {
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
	if outside > 0 {
		wg.Go(func() {
			for i := range outside {
				if outErr = outsideAppend(dir, rel, fmt.Sprintf("out-0-%d", i)); outErr != nil {
					return
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
	if outside == 0 {
		lostSaves, _ = lostLines(string(data), append(linesFor("p1", goroutines, edits), linesFor("p2", goroutines, edits)...))
	}
	lostOutside, _ = lostLines(string(data), linesFor("out", 1, outside))
	return lostSaves, lostOutside
}
