//go:build !unix

package folder

import "os"

// flock is a no-op where flock(2) does not exist: saves are serialised
// within the process only, and the content check still refuses a save over
// a file another process changed.
func flock(*os.File) error { return nil }

// openNoFollow opens p for reading; callers have checked with Lstat that
// it is not a symlink.
func openNoFollow(p string) (*os.File, error) { return os.Open(p) }
