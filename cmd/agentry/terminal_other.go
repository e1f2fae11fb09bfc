//go:build !linux

package main

import "os"

// isTerminal falls back to the character-device test off Linux.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && f.Name() != os.DevNull
}
