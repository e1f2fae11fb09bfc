package sqlite_test

import (
	"os"
	"testing"
)

// TestMain removes the list benchmark's shared fixture, which outlives any
// one benchmark's temp dir so it is built only once.
func TestMain(m *testing.M) {
	code := m.Run()
	if listFixture.dir != "" {
		os.RemoveAll(listFixture.dir)
	}
	os.Exit(code)
}
