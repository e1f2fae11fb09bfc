package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// header is how every SQLite database file begins.
var header = []byte("SQLite format 3\x00")

// fileIdentity is the database file as opened: an open connection keeps
// working on a file deleted or replaced under it, so only a look at the
// path tells that what is written is no longer what others read.
type fileIdentity struct {
	path string
	info fs.FileInfo
}

func (f *fileIdentity) remember() (err error) {
	f.info, err = os.Stat(f.path)
	return err
}

// Ping reports whether the database is still usable: the file at its path
// is the one opened, readable, still begins as a SQLite database, and a
// query answers. It is cheap (a stat, a 16-byte read, one query), for a
// server's readiness probe.
func (s *Store) Ping(ctx context.Context) error {
	f := s.file
	info, err := os.Stat(f.path)
	if err != nil {
		return fmt.Errorf("trace database %s: %w", f.path, err)
	}
	if !os.SameFile(info, f.info) {
		return fmt.Errorf("trace database %s was replaced by another file since it was opened", f.path)
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return fmt.Errorf("trace database %s: %w", f.path, err)
	}
	defer fh.Close()
	got := make([]byte, len(header))
	if _, err := io.ReadFull(fh, got); err != nil || !bytes.Equal(got, header) {
		return fmt.Errorf("trace database %s: %w", f.path, ErrNotDatabase)
	}
	var one int
	if err := s.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("trace database %s: %w", f.path, err)
	}
	return nil
}
