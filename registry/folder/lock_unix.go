//go:build unix

package folder

import (
	"os"

	"golang.org/x/sys/unix"
)

// flock takes an exclusive advisory lock on the open lock file, waiting
// for other processes (other agentry serves) to release theirs. Closing
// the file releases it.
func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

// openNoFollow opens p for reading, failing if p itself is a symlink, so
// a link swapped in after a check is not followed.
func openNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW, 0)
}
