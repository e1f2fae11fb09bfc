package folder

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentry/agentry/registry"
)

// errNoExchange means the file system cannot swap two files in one step.
var errNoExchange = errors.New("atomic exchange not supported")

// beforeSwap, when set by a test, runs after a save has checked the file
// and written its temp file, just before it is swapped in: the moment an
// outside writer is most dangerous.
var beforeSwap func(target string)

// beforeSwapBack, when set by a test, runs before each exchange that
// hands a displaced version back.
var beforeSwapBack func()

// beforeMove, when set by a test, runs after a delete or rename has
// checked the file, just before it moves it.
var beforeMove func()

// locked runs fn holding the save lock: saveMu within this process, flock
// on the folder itself across processes. Locking the directory, not a
// file in it, leaves nothing behind in the user's folder (a lock file
// showed in git status).
func (f *Folder) locked(fn func() error) error {
	f.saveMu.Lock()
	defer f.saveMu.Unlock()
	lf, err := os.Open(f.dir)
	if err != nil {
		return fmt.Errorf("lock %s folder: %w", f.contents.Name(), err)
	}
	defer lf.Close()
	if err := flock(lf); err != nil {
		return fmt.Errorf("lock %s folder: %w", f.contents.Name(), err)
	}
	return fn()
}

// onDisk is the file a save found at its target, kept open: its identity
// and content hash are checked again after the swap.
type onDisk struct {
	file *os.File
	info fs.FileInfo
	data []byte
	hash string
}

// readChecked opens the regular file at p; nil (no error) when nothing is
// there. A symlink is refused: agentry never writes through a link.
func readChecked(p string) (*onDisk, error) {
	li, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !li.Mode().IsRegular() {
		return nil, notRegular(li)
	}
	fh, err := openNoFollow(p)
	if err != nil {
		return nil, err
	}
	d := &onDisk{file: fh}
	if d.info, err = fh.Stat(); err == nil {
		d.data, err = readAllFrom(fh)
	}
	if err != nil {
		fh.Close()
		return nil, err
	}
	d.hash = registry.Hash(d.data)
	return d, nil
}

func notRegular(info fs.FileInfo) error {
	if info.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: it is a symbolic link (agentry does not write through links)", registry.ErrInvalidPath)
	}
	return fmt.Errorf("%w: not a regular file", registry.ErrInvalidPath)
}

// readAllFrom reads f from its start, as the registry does: at most
// MaxFileSize+1 bytes, so hashes compare with registry.File.Hash.
func readAllFrom(f *os.File) ([]byte, error) {
	return io.ReadAll(io.NewSectionReader(f, 0, registry.MaxFileSize+1))
}

func (d *onDisk) close() {
	if d != nil {
		d.file.Close()
	}
}

// still reports whether p is the same file, with the same content, as was
// checked: no outside writer replaced it or wrote into it meanwhile.
func (d *onDisk) still(p string) bool {
	li, err := os.Lstat(p)
	if err != nil || !os.SameFile(d.info, li) {
		return false
	}
	data, err := readAllFrom(d.file)
	return err == nil && registry.Hash(data) == d.hash
}

// staged is new content written and synced to a hidden temp file beside
// its target before the save lock is taken, so the check and the swap that
// follow are as close together as they can be. The file stays open until
// the save ends: were it closed, and an outside program's rename unlinked
// it, its inode number could be handed to that program's next file, and a
// later "is this still my file?" would answer yes about another file.
type staged struct {
	path string
	file *os.File
	info fs.FileInfo
}

func stage(target string, data []byte) (*staged, error) {
	f, info, err := writeTemp(filepath.Dir(target), data, 0o644)
	if err != nil {
		return nil, err
	}
	return &staged{path: f.Name(), file: f, info: info}, nil
}

// discard closes and removes the temp file; after a swap it holds the old
// version, after a create it is gone already.
func (s *staged) discard() {
	s.file.Close()
	os.Remove(s.path)
}

// createNew puts the staged file at target unless something is there
// (ErrExists), without a moment when a half-written file is visible.
func createNew(target string, s *staged) error {
	err := moveNoReplace(s.path, target)
	if errors.Is(err, fs.ErrExist) {
		return registry.ErrExists
	}
	return err
}

// replaceChecked is the compare-and-swap of a save: target is replaced by
// the staged file only if it still holds the content whose hash is expect.
// The new file is swapped with the old one in one step (RENAME_EXCHANGE),
// and the old one, now under the temp name, is checked again: if an
// outside program replaced or rewrote the file between the check and the
// swap, its version is swapped back and the save refused.
func replaceChecked(target string, s *staged, expect string) error {
	cur, err := readChecked(target)
	if err != nil {
		return err
	}
	if cur == nil {
		return fmt.Errorf("%w (it was deleted)", registry.ErrConflict)
	}
	defer cur.close()
	if cur.hash != expect {
		return registry.ErrConflict
	}
	if mode := cur.info.Mode().Perm(); mode != s.info.Mode().Perm() {
		if err := os.Chmod(s.path, mode); err != nil {
			return err
		}
	}
	if li, err := os.Lstat(target); err != nil || !os.SameFile(li, cur.info) {
		return registry.ErrConflict // replaced since the check: a last cheap look
	}
	if beforeSwap != nil {
		beforeSwap(target)
	}
	err = exchange(s.path, target)
	if errors.Is(err, errNoExchange) {
		if !cur.still(target) {
			return registry.ErrConflict
		}
		s.file.Close() // some systems cannot rename an open file
		return os.Rename(s.path, target)
	}
	if err != nil {
		return err
	}
	if cur.still(s.path) {
		return nil
	}
	return swapBack(s.path, target, s.info)
}

// maxSwaps bounds how long a save keeps handing back versions to an
// outside program that writes faster than the save can undo its swap.
const maxSwaps = 100

// swapBack undoes a swap that displaced an outside writer's version into
// tmp. Versions may keep arriving at target meanwhile: each exchange takes
// out whatever is there, and if that is neither ours nor one we already put
// back, it is newer, and goes back in next. Every version handled stays
// open until the end, so no inode number is reused under the comparison.
func swapBack(tmp, target string, mine fs.FileInfo) error {
	known := []fs.FileInfo{mine}
	var pins []*os.File
	defer func() {
		for _, f := range pins {
			f.Close()
		}
	}()
	for range maxSwaps {
		info, err := pin(tmp, &pins)
		if err != nil {
			return fmt.Errorf("restore the version written meanwhile: %w", err)
		}
		known = append(known, info)
		if beforeSwapBack != nil {
			beforeSwapBack()
		}
		if err := exchange(tmp, target); err != nil {
			return fmt.Errorf("restore the version written meanwhile: %w", err)
		}
		out, err := os.Lstat(tmp)
		if err != nil {
			return fmt.Errorf("restore the version written meanwhile: %w", err)
		}
		if slices.ContainsFunc(known, func(k fs.FileInfo) bool { return os.SameFile(k, out) }) {
			return fmt.Errorf("%w (another program wrote it just now)", registry.ErrConflict)
		}
	}
	return fmt.Errorf("%w (another program keeps rewriting it)", registry.ErrConflict)
}

// pin opens the file at p, adding it to pins, and returns its identity;
// what cannot be opened without following it (a symlink swapped in by
// another program) is identified by Lstat alone.
func pin(p string, pins *[]*os.File) (fs.FileInfo, error) {
	f, err := openNoFollow(p)
	if err != nil {
		return os.Lstat(p)
	}
	*pins = append(*pins, f)
	return f.Stat()
}

// errDeleted answers a delete or rename of a file that is gone: the caller
// read it (it holds a hash), so it was deleted since, which is a conflict.
var errDeleted = fmt.Errorf("%w (it was deleted)", registry.ErrConflict)

// removeChecked deletes target if it still holds expect's content: it is
// moved aside, checked, then removed, or moved back.
func removeChecked(target, expect string) error {
	cur, err := readChecked(target)
	if err != nil {
		return err
	}
	if cur == nil {
		return errDeleted
	}
	defer cur.close()
	if cur.hash != expect {
		return registry.ErrConflict
	}
	aside := tempName(filepath.Dir(target))
	if beforeMove != nil {
		beforeMove()
	}
	if err := moveNoReplace(target, aside); err != nil {
		return err
	}
	if cur.still(aside) {
		return os.Remove(aside)
	}
	return putBack(aside, target)
}

// moveChecked renames from to to if from still holds expect's content and
// to does not exist.
func moveChecked(from, to, expect string) ([]byte, error) {
	cur, err := readChecked(from)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, errDeleted
	}
	defer cur.close()
	if cur.hash != expect {
		return nil, registry.ErrConflict
	}
	if _, err := os.Lstat(to); err == nil {
		return nil, registry.ErrExists
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return nil, err
	}
	if beforeMove != nil {
		beforeMove()
	}
	err = moveNoReplace(from, to)
	if errors.Is(err, fs.ErrExist) {
		return nil, registry.ErrExists
	}
	if err != nil {
		return nil, err
	}
	if cur.still(to) {
		return cur.data, nil
	}
	return nil, putBack(to, from)
}

// putBack returns a file moved by mistake (an outside writer's version) to
// where it was. If a newer version is there already, the moved one is
// superseded and removed.
func putBack(moved, home string) error {
	err := moveNoReplace(moved, home)
	if errors.Is(err, fs.ErrExist) {
		err = os.Remove(moved)
	}
	if err != nil {
		return fmt.Errorf("restore the version written meanwhile: %w", err)
	}
	return fmt.Errorf("%w (another program wrote it just now)", registry.ErrConflict)
}

// linkMove renames without replacing where rename cannot: a hard link
// fails when to exists.
func linkMove(from, to string) error {
	if err := os.Link(from, to); err != nil {
		return err
	}
	return os.Remove(from)
}

// tempName is a fresh hidden name in dir; hidden names are never loaded.
func tempName(dir string) string {
	return filepath.Join(dir, ".agentry-"+rand.Text()+".tmp")
}

// writeTemp writes data, synced, to a new hidden temp file in dir and
// returns it still open, with its identity.
func writeTemp(dir string, data []byte, mode fs.FileMode) (*os.File, fs.FileInfo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	tmp, err := os.CreateTemp(dir, ".agentry-*.tmp")
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, fs.FileInfo, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, nil, err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	info, err := tmp.Stat()
	if err != nil {
		return fail(err)
	}
	return tmp, info, nil
}
