package main

import (
	"io"
	"os"
)

// interactive reports whether stdin is a terminal (a character device
// such as /dev/null is not one: it answers the terminal ioctl with an error).
func (s *session) interactive() bool {
	f, ok := s.stdin.(*os.File)
	return ok && isTerminal(f)
}

// terminal is stdin when a person can answer there, else nil.
func (s *session) terminal() io.Reader {
	if s.interactive() {
		return s.stdin
	}
	return nil
}
