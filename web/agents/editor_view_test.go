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
