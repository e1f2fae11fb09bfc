package agents

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/registry"
)

func TestToolPickersOfferConfiguredMCPGroups(t *testing.T) {
	snap := registry.Empty(registry.Options{KnownTools: append([]string{"everything.*"}, registry.BuiltinTools...)})
	got := strings.Join(toolChoices(snap), " ")
	if !strings.Contains(got, " everything ") || strings.Contains(got, "everything.*") || !strings.Contains(got, "web.fetch") {
		t.Errorf("choices %q, want the group everything offered beside the built-in tools, without a pseudo-name", got)
	}
}

// serve's known tools are the built-ins and then the optional ones
// (cmd/agentry's knownTools), some of them twice; a picker offers each once.
func TestToolPickersOfferEachToolOnce(t *testing.T) {
	known := append(append([]string{}, registry.BuiltinTools...), "shell.run", "shell.network", "web.search", "todo.write")
	choices := toolChoices(registry.Empty(registry.Options{KnownTools: known}))
	seen := map[string]bool{}
	for _, c := range choices {
		if seen[c] {
			t.Errorf("%q offered twice: %q", c, choices)
		}
		seen[c] = true
	}
	if !seen["shell.network"] {
		t.Errorf("choices %q lack shell.network", choices)
	}
}
