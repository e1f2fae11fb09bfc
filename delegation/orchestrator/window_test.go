package orchestrator

import (
	"fmt"
	"testing"
	"time"
)

func TestStaleConversationWindowsAreDropped(t *testing.T) {
	l := Limits{WindowCalls: 5, Window: time.Minute}
	var w Windows
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range minSweep {
		w.Take(l, fmt.Sprint("old-", i), 1, start)
	}
	w.Take(l, "new", 1, start.Add(2*time.Minute))
	if len(w.m) != 1 {
		t.Fatalf("%d windows kept, want only the live one", len(w.m))
	}
}
