package files

import (
	"fmt"
	"io/fs"
)

// List lists the files of fsys in folder dir and below it that isFile
// accepts, as paths from the root of fsys (so rules about where a file
// sits apply to a subfolder listed alone), sorted. It walks only the
// folders isFolder accepts. Symbolic links are listed, never followed
// into; reading one decides whether it may be used. what names the files
// in the error ("agent", "skill").
func List(fsys fs.FS, dir, what string, isFolder, isFile func(string) bool) ([]string, error) {
	var paths []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && p == dir:
			return err
		case err != nil:
			return nil // an unreadable subfolder does not stop the others
		case d.IsDir() && !isFolder(p):
			return fs.SkipDir
		case !d.IsDir() && isFile(p):
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s files: %w", what, err)
	}
	return paths, nil
}
