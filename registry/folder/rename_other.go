//go:build !linux

package folder

// exchange is not available here; saves fall back to a last check and a
// plain rename.
func exchange(a, b string) error { return errNoExchange }

// moveNoReplace renames from to to unless to exists (fs.ErrExist).
func moveNoReplace(from, to string) error { return linkMove(from, to) }
