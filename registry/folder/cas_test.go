package folder

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
)

func TestSavesFromTwoProcessesLoseNoEdit(t *testing.T) {
	const goroutines, edits = 3, 15
	lost, _ := raceSaves(t, goroutines, edits, 0, noOutsider)
	if lost != 0 {
		t.Fatalf("%d of %d edits lost", lost, 2*goroutines*edits)
	}
}

func TestSavesNeverOverwriteAnOutsideWriter(t *testing.T) {
	const goroutines, edits, outside = 2, 15, 60
	if _, lost := raceSaves(t, goroutines, edits, outside, outsideReplace); lost != 0 {
		t.Fatalf("saves overwrote %d of %d versions written by another program", lost, outside)
	}
}

func TestSavesAndAProgramHoldingTheLockLoseNoEdit(t *testing.T) {
	const goroutines, edits, outside = 2, 15, 30
	lostSaves, lostOutside := raceSaves(t, goroutines, edits, outside, outsideLocking)
	if lostSaves != 0 || lostOutside != 0 {
		t.Fatalf("lost %d of %d saves and %d of %d outside edits", lostSaves, 2*goroutines*edits, lostOutside, outside)
	}
}

// withBeforeSwap runs fn at the moment a save has checked the file and is
// about to swap in its new version.
func withBeforeSwap(t *testing.T, fn func(target string)) {
	once := false
	beforeSwap = func(target string) {
		if !once {
			once = true
			fn(target)
		}
	}
	t.Cleanup(func() { beforeSwap = nil })
}

func TestASaveRacingAnOutsideWriterIsRefusedAndKeepsItsVersion(t *testing.T) {
	outside := agentText("a", "written by another program")
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, p string)
	}{
		{"the other program renames its temp file over the file", func(t *testing.T, p string) {
			if err := os.WriteFile(p+".new", []byte(outside), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
		}},
		{"the other program writes the file in place", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(outside), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := open(t, 0, map[string]string{"a.md": agentText("a", "loaded")})
			hash := registry.Hash([]byte(agentText("a", "loaded")))
			p := filepath.Join(fx.dir, "a.md")
			withBeforeSwap(t, func(string) { tc.write(t, p) })
			_, err := fx.f.Write("a.md", []byte(agentText("a", "mine")), hash)
			if !errors.Is(err, registry.ErrConflict) {
				t.Fatalf("save = %v, want a conflict", err)
			}
			if got, _ := os.ReadFile(p); string(got) != outside {
				t.Fatalf("file holds %q, want the other program's version", got)
			}
			assertNoTempFiles(t, fx.dir)
		})
	}
}

// A version written while a save hands back the one it displaced is newer
// still: it must end up in the file, not in the save's temp file.
func TestAVersionArrivingDuringTheSwapBackIsKept(t *testing.T) {
	fx := open(t, 0, map[string]string{"a.md": agentText("a", "loaded")})
	hash := registry.Hash([]byte(agentText("a", "loaded")))
	p := filepath.Join(fx.dir, "a.md")
	replace := func(desc string) {
		if err := os.WriteFile(p+".new", []byte(agentText("a", desc)), 0o644); err != nil {
			t.Error(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Error(err)
		}
	}
	withBeforeSwap(t, func(string) { replace("first outside version") })
	rounds := 0
	beforeSwapBack = func() {
		if rounds++; rounds == 1 {
			replace("second outside version")
		}
	}
	t.Cleanup(func() { beforeSwapBack = nil })
	if _, err := fx.f.Write("a.md", []byte(agentText("a", "mine")), hash); !errors.Is(err, registry.ErrConflict) {
		t.Fatalf("save = %v, want a conflict", err)
	}
	if got, _ := os.ReadFile(p); string(got) != agentText("a", "second outside version") {
		t.Fatalf("file holds %q, want the newest outside version", got)
	}
	assertNoTempFiles(t, fx.dir)
}

func TestDeleteAndRenameRacingAnOutsideWriterAreRefused(t *testing.T) {
	outside := agentText("a", "written by another program")
	for _, tc := range []struct {
		name string
		do   func(f *Folder, hash string) error
	}{
		{"delete", func(f *Folder, hash string) error { return f.Delete("a.md", hash) }},
		{"rename", func(f *Folder, hash string) error { return f.Rename("a.md", "b.md", hash) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := open(t, 0, map[string]string{"a.md": agentText("a", "loaded")})
			hash := registry.Hash([]byte(agentText("a", "loaded")))
			p := filepath.Join(fx.dir, "a.md")
			beforeMove = func() {
				beforeMove = nil
				if err := os.WriteFile(p, []byte(outside), 0o644); err != nil {
					t.Error(err)
				}
			}
			t.Cleanup(func() { beforeMove = nil })
			if err := tc.do(fx.f, hash); !errors.Is(err, registry.ErrConflict) {
				t.Fatalf("%s = %v, want a conflict", tc.name, err)
			}
			if got, _ := os.ReadFile(p); string(got) != outside {
				t.Fatalf("a.md holds %q, want the other program's version", got)
			}
			if _, err := os.Stat(filepath.Join(fx.dir, "b.md")); err == nil {
				t.Fatal("b.md was created")
			}
			assertNoTempFiles(t, fx.dir)
		})
	}
}

func TestASaveOverASymlinkIsRefused(t *testing.T) {
	fx := open(t, 0, nil)
	secret := filepath.Join(t.TempDir(), "secret.md")
	writeFile(t, filepath.Dir(secret), "secret.md", "secret\n")
	if err := os.Symlink(secret, filepath.Join(fx.dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	_, err := fx.f.Write("a.md", []byte(agentText("a", "A")), registry.Hash([]byte("secret\n")))
	if !errors.Is(err, registry.ErrInvalidPath) {
		t.Fatalf("save over a symlink = %v, want ErrInvalidPath", err)
	}
	if got, _ := os.ReadFile(secret); string(got) != "secret\n" {
		t.Fatalf("the link's target was changed: %q", got)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != "a.md" { // no temp file, and no lock file either
			t.Errorf("left behind: %s", n)
		}
	}
}

func TestARefusedSaveRereadsTheFileSoTheCallerSeesTheOtherVersion(t *testing.T) {
	// A debounce longer than the test: only the refusal can bring the
	// other program's version in.
	fx := open(t, time.Hour, map[string]string{"a.md": agentText("a", "loaded")})
	loaded := registry.Hash([]byte(agentText("a", "loaded")))
	writeFile(t, fx.dir, "a.md", agentText("a", "written by another program"))
	if _, err := fx.f.Write("a.md", []byte(agentText("a", "mine")), loaded); !errors.Is(err, registry.ErrConflict) {
		t.Fatalf("Write = %v, want a conflict", err)
	}
	if got := description(fx.reg.Snapshot(), "a"); got != "written by another program" {
		t.Fatalf("after the refusal the registry serves %q, not the version on disk", got)
	}
}
