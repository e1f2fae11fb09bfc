package trace_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

func TestRecordVersionSummarisesAgainstTheVersionBefore(t *testing.T) {
	m := memory.New()
	var calls []string
	summarize := func(path string, before, after []byte) string {
		calls = append(calls, fmt.Sprintf("%s %q→%q", path, before, after))
		return "changed"
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v := func(text string) trace.Version {
		return trace.Version{Kind: "agent", Name: "lead", Path: "lead.md", Hash: "h-" + text, Content: []byte(text), Time: at, Source: "web"}
	}
	deleted := trace.Version{Kind: "agent", Name: "lead", Path: "lead.md", Deleted: true, Time: at, Source: "filesystem"}
	if err := trace.RecordVersion(t.Context(), m, deleted, summarize); err != nil {
		t.Fatal(err)
	}
	steps := []trace.Version{v("one"), v("one"), v("two"), deleted}
	restore := v("one")
	restore.Summary = "restore of h-one"
	steps = append(steps, restore)
	for _, s := range steps {
		if err := trace.RecordVersion(t.Context(), m, s, summarize); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := m.Versions(t.Context(), "agent", "lead")
	var got []string
	for _, x := range list {
		got = append(got, x.Hash+" "+x.Summary)
	}
	want := []string{"h-one restore of h-one: changed", " changed", "h-two changed", "h-one changed"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("versions = %q, want %q", got, want)
	}
	wantCalls := []string{`lead.md ""→"one"`, `lead.md "one"→"two"`, `lead.md "two"→""`, `lead.md ""→"one"`}
	if fmt.Sprint(calls) != fmt.Sprint(wantCalls) {
		t.Errorf("summarize saw %q, want %q", calls, wantCalls)
	}
}

// Each version gets the runs of its content once, at its newest listing; a
// deletion gets none, not even the runs that recorded no version.
func TestUsesByVersionListsAContentsRunsOnceAndNoneOnADeletion(t *testing.T) {
	list := []trace.Version{{Hash: "aaaa"}, {Deleted: true}, {Hash: "bbbb"}, {Hash: "aaaa"}}
	uses := []trace.VersionUse{{RunID: "r4", Hash: "aaaa"}, {RunID: "r3", Hash: ""}, {RunID: "r2", Hash: "bbbb"}, {RunID: "r1", Hash: "aaaa"}}
	var got []string
	for i, us := range trace.UsesByVersion(list, uses) {
		var ids []string
		for _, u := range us {
			ids = append(ids, u.RunID)
		}
		got = append(got, fmt.Sprintf("%d:%v", i, ids))
	}
	if want := "[0:[r4 r1] 1:[] 2:[r2] 3:[]]"; fmt.Sprint(got) != want {
		t.Errorf("UsesByVersion = %v, want %s", got, want)
	}
}
