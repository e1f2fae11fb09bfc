package registry

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"runtime"
	"sync"
)

// Load reads every agent file (see IsAgentFile and agentPaths) from fsys and validates them together. Files are
// read and parsed in parallel. Only an unreadable root is an error; broken
// files are reported as problems.
func Load(fsys fs.FS, opts Options) (*Snapshot, error) {
	paths, err := agentPaths(fsys)
	if err != nil {
		return nil, err
	}
	entries := make([]*entry, len(paths))
	var wg sync.WaitGroup
	work := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range work {
				entries[i] = readEntry(fsys, paths[i], opts)
			}
		})
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()
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
// costs no more than that to reject.
func ReadLimited(fsys fs.FS, p string) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path.Base(p), err)
	}
	return data, nil
}
