package temporal_test

import (
	"os"
	"path/filepath"
)

func writeNote(dir string) error {
	return os.WriteFile(filepath.Join(dir, "note.txt"), []byte("the note"), 0o644)
}
