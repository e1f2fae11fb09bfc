//go:build linux

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/sqlite"
)

func TestRunAsksInlineOnATerminal(t *testing.T) {
	tests := []struct {
		name, answer string
		written      bool
		asked        int
		verdict      approval.Status
		note         string
	}{
		{"a approves every later call of the tool in the run", "a\n", true, 1, approval.Approved, ""},
		{"n denies with the reason typed next", "n\nnot on Fridays\nn\nstill no\n", false, 2, approval.Denied, "not on Fridays"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			master, slave := openPTY(t)
			if _, err := master.Write([]byte(tc.answer)); err != nil {
				t.Fatal(err)
			}
			dir, agents, db, sc := askFixture(t)
			s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
			s.stdin = slave
			if code := s.main(context.Background(), []string{"run", "writer", "go", "--agents", agents, "--db", db, "--model", "script:" + sc}); code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			if got := strings.Count(errOut.String(), "? writer wants to call filesystem.write_file"); got != tc.asked {
				t.Errorf("asked %d times, want %d:\n%s", got, tc.asked, errOut)
			}
			if exists(filepath.Join(dir, "b.txt")) != tc.written {
				t.Errorf("b.txt written %v, want %v", !tc.written, tc.written)
			}
			store, err := sqlite.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			list, _ := store.Approvals(context.Background(), approval.Filter{})
			if len(list) != tc.asked || list[len(list)-1].Status != tc.verdict || list[len(list)-1].DecidedBy != "terminal" || list[len(list)-1].Note != tc.note {
				t.Errorf("approvals %+v", list)
			}
		})
	}
}
