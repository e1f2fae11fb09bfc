package sqlite

import (
	"os"
	"testing"
)

func TestOwnerAlive(t *testing.T) {
	me := self()
	parentStart, _ := procStart(os.Getppid())
	cases := []struct {
		name string
		o    owner
		want bool
	}{
		{"this process is alive", me, true},
		{"this pid with another start time is a previous process", owner{me.host, me.pid, me.start + "1"}, false},
		{"a live parent process is alive", owner{me.host, os.Getppid(), parentStart}, true},
		{"a live pid with another start time was reused", owner{me.host, os.Getppid(), parentStart + "9"}, false},
		{"a pid that does not exist is dead", owner{me.host, 1 << 30, ""}, false},
		{"a process on another host is assumed alive", owner{me.host + "-other", 1 << 30, ""}, true},
	}
	for _, c := range cases {
		if got := me.alive(c.o); got != c.want {
			t.Errorf("%s: alive(%+v) = %v, want %v", c.name, c.o, got, c.want)
		}
	}
}
