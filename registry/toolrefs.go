package registry

import (
	"fmt"
	"regexp"
	"strings"
)

// toolRefRE finds VS Code's #tool:NAME references in a prompt
// (#tool:web/fetch, #tool:agent).
var toolRefRE = regexp.MustCompile(`#tool:([A-Za-z0-9_.*/-]+)`)

// toolRefs warns, once per name, about each tool the prompt names with VS
// Code's #tool:NAME that agentry has nothing for. VS Code puts the tool in
// where the prompt names it; agentry sends the prompt as written, so the
// model is told of a tool it does not have.
func (dc *decoder) toolRefs() {
	seen := map[string]bool{}
	for _, m := range toolRefRE.FindAllStringSubmatchIndex(dc.d.body, -1) {
		name := strings.TrimRight(dc.d.body[m[2]:m[3]], ".") // a sentence's full stop is no part of it
		if seen[name] {
			continue
		}
		seen[name] = true
		if t := dc.mapTool(name); t.Unavailable {
			dc.add(SeverityWarning, dc.d.bodyLine(m[0]), "body", fmt.Sprintf("the prompt names #tool:%s, which is not available in agentry (%s): the model reads of a tool it does not have", name, t.Reason))
		}
	}
}

// bodyLine is the file line of the byte at offset off of the body.
func (d *Document) bodyLine(off int) int {
	before := len(d.Bytes()) - len(d.body)
	return 1 + strings.Count(string(d.Bytes()[:before]), "\n") + strings.Count(d.body[:off], "\n")
}
