package folder

import (
	"fmt"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentry/agentry/registry"
)

// driven is a Folder whose events come from the test, inside a synctest
// bubble: time is fake, and synctest.Wait returns once the loop has done
// everything it can without time passing.
type driven struct {
	*fixture
	events chan fsnotify.Event
}

// drive loads dir and runs the debounce loop on test events; it must be
// called inside synctest.Test. The real watcher is not used: its reader
// goroutine sits in a system call, which a bubble cannot wait for.
func drive(t *testing.T, dir string, debounce time.Duration) *driven {
	fsys, err := openFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New(nil)
	f := newFolder(dir, fsys, Agents(reg, registry.Options{}), Config{Debounce: debounce})
	s, err := registry.Load(fsys, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg.Replace(s)
	d := &driven{fixture: &fixture{dir: dir, reg: reg, f: f}, events: make(chan fsnotify.Event)}
	go f.run(d.events, make(chan error))
	t.Cleanup(func() {
		close(f.done)
		<-f.stopped
		fsys.Close()
	})
	return d
}

// write changes a file on disk and delivers its event, as the watcher would.
func (d *driven) write(t *testing.T, rel, text string) {
	writeFile(t, d.dir, rel, text)
	d.events <- fsnotify.Event{Name: filepath.Join(d.dir, rel), Op: fsnotify.Write}
}

func TestABurstOfWritesBecomesOneReloadOnceTheFolderIsQuiet(t *testing.T) {
	dir := resolvedTempDir(t)
	writeFile(t, dir, "a.md", agentText("a", "v0"))
	synctest.Test(t, func(t *testing.T) {
		const debounce = 50 * time.Millisecond
		d := drive(t, dir, debounce)
		start := d.reg.Snapshot().Version()
		for i := 1; i <= 20; i++ {
			d.write(t, "a.md", agentText("a", fmt.Sprintf("v%d", i)))
			time.Sleep(debounce / 10) // 20 writes within the cap of maxDelay intervals
		}
		time.Sleep(debounce - debounce/10 - time.Nanosecond)
		synctest.Wait()
		if v := d.reg.Snapshot().Version(); v != start {
			t.Fatalf("version %d before the folder was quiet for %v, want still %d", v, debounce, start)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		s := d.reg.Snapshot()
		if s.Version() != start+1 || description(s, "a") != "v20" {
			t.Fatalf("once quiet: version %d (want %d, one reload), description %q (want v20)", s.Version(), start+1, description(s, "a"))
		}
		d.write(t, "a.md", agentText("a", "later"))
		time.Sleep(debounce)
		synctest.Wait()
		if s := d.reg.Snapshot(); s.Version() != start+2 || description(s, "a") != "later" {
			t.Fatalf("a later write: version %d (want %d), description %q", s.Version(), start+2, description(s, "a"))
		}
	})
}

func TestContinuousActivityPostponesAReloadByAtMostTheCap(t *testing.T) {
	dir := resolvedTempDir(t)
	writeFile(t, dir, "a.md", agentText("a", "v0"))
	synctest.Test(t, func(t *testing.T) {
		const debounce = 50 * time.Millisecond
		d := drive(t, dir, debounce)
		start := d.reg.Snapshot().Version()
		began := time.Now()
		var firstReload time.Duration
		for i := 1; firstReload == 0 && i < 1000; i++ {
			d.write(t, "a.md", agentText("a", fmt.Sprintf("v%d", i)))
			time.Sleep(debounce / 5)
			synctest.Wait()
			if d.reg.Snapshot().Version() > start {
				firstReload = time.Since(began)
			}
		}
		if limit := (maxDelay + 1) * debounce; firstReload == 0 || firstReload > limit {
			t.Fatalf("first reload after %v of continuous writes, want within %v", firstReload, limit)
		}
	})
}

// resolvedTempDir is a temp dir with symlinks resolved, as Open would make
// it (on some systems the temp dir is reached through a link).
func resolvedTempDir(t *testing.T) string {
	dir, err := resolve(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
