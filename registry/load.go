package registry

import (
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/agentry/agentry/registry/internal/files"
)

// Load reads every agent file (see IsAgentFile and agentPaths) from fsys
// and validates them together. Files are read and parsed in parallel
// (files.Parallel). Only an unreadable root is an error; broken files are
// reported as problems.
func Load(fsys fs.FS, opts Options) (*Snapshot, error) {
	paths, err := agentPaths(fsys)
	if err != nil {
		return nil, err
	}
	entries := make([]*entry, len(paths))
	files.Parallel(len(paths), func(i int) { entries[i] = readEntry(fsys, paths[i], opts) })
	m := make(map[string]*entry, len(entries))
	for _, e := range entries {
		m[e.path] = e
	}
	return build(1, opts, m, nil), nil
}

// readEntry reads and decodes one file.
func readEntry(fsys fs.FS, p string, opts Options) *entry {
	data, err := ReadLimited(fsys, p)
	if err != nil {
		e := &entry{path: p, own: []Problem{fileProblem(p, 0, "", "cannot read file: "+err.Error())}}
		e.own[0].Agent = NameFromFile(p)
		return e
	}
	return newEntry(p, data, nil, opts)
}

// ReadLimited reads a file but stops just past MaxFileSize, so a huge file
// costs no more than that to reject. Like os.ReadFile, it sizes its buffer
// from the file's size (one byte more, to see the end without growing):
// io.ReadAll's doubling from 512 bytes was a third of reading a
// marketplace's files.
func ReadLimited(fsys fs.FS, p string) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 512
	if info, err := f.Stat(); err == nil && info.Size() > 0 {
		size = int(min(info.Size(), MaxFileSize)) + 1
	}
	data, r := make([]byte, 0, size), io.LimitReader(f, MaxFileSize+1)
	for { // os.ReadFile's loop
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		switch {
		case err == io.EOF:
			return data, nil
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", path.Base(p), err)
		case len(data) == cap(data):
			data = append(data, 0)[:len(data)] // the file grew: let append pick a bigger buffer
		}
	}
}

// ReadAll reads the files the changes name into them (each up to just
// past MaxFileSize), in parallel.
func ReadAll(fsys fs.FS, changes []Change) {
	files.Parallel(len(changes), func(i int) { changes[i].Data, changes[i].Err = ReadLimited(fsys, changes[i].Path) })
}

// TopLevelChanges reads the files at fsys's top level that isFile takes, as
// the changes a catalog of a flat folder (workflows, eval suites) applies
// when it loads.
func TopLevelChanges(fsys fs.FS, isFile func(name string) bool) ([]Change, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, e := range entries {
		if !e.IsDir() && isFile(e.Name()) {
			changes = append(changes, Change{Path: e.Name()})
		}
	}
	ReadAll(fsys, changes)
	return changes, nil
}
