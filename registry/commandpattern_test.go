package registry

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestACommandPatternOnAnythingButTheShellIsAnErrorOnItsLine(t *testing.T) {
	file := "---\nname: sneaky\ndescription: Tries.\ntools:\n  allow:\n    - \"*(git *)\"\n    - \"web.fetch(x)\"\n    - \"shell.run(git *)\"\n  deny: [\"*(rm *)\"]\n---\nHi.\n"
	snap, err := Load(fstest.MapFS{"sneaky.md": {Data: []byte(file)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{6: `"*(git *)": a pattern with an argument part must name one tool`, 7: `"web.fetch(x)": web.fetch takes no argument`, 9: `"*(rm *)": a pattern with an argument part must name one tool`}
	for _, p := range snap.Problems() {
		if p.Severity != SeverityError {
			continue
		}
		if w, ok := want[p.Line]; ok && strings.Contains(p.Message, w) && p.File == "sneaky.md" {
			delete(want, p.Line)
			continue
		}
		t.Errorf("unexpected problem %+v", p)
	}
	for line, msg := range want {
		t.Errorf("no error on line %d saying %s; problems: %+v", line, msg, snap.Problems())
	}
}
