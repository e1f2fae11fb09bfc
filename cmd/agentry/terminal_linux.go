package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal asks the terminal ioctl, which /dev/null and pipes fail.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
