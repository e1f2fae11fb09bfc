package httpapi

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
)

func tools(names ...string) []model.Tool {
	ts := make([]model.Tool, len(names))
	for i, n := range names {
		ts[i] = model.Tool{Name: n}
	}
	return ts
}

var wireName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestToolNamesTranslateBothWays(t *testing.T) {
	long := "server." + strings.Repeat("x", 80)
	tests := []struct {
		name     string
		offered  []string
		tool     string
		wantWire string
	}{
		{"a plain name is sent unchanged", []string{"delegate"}, "delegate", "delegate"},
		{"a dot becomes a double underscore", []string{"filesystem.read_file"}, "filesystem.read_file", "filesystem__read_file"},
		{"other characters become underscores", []string{"my server.do/it"}, "my server.do/it", "my_server__do_it"},
		{"a clash gets a numeric suffix", []string{"a.b", "a__b"}, "a__b", "a__b_2"},
		{"an over-long name is cut with a hash", []string{long}, long, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewToolNames(tools(tt.offered...))
			w := n.Wire(tt.tool)
			if tt.wantWire != "" && w != tt.wantWire {
				t.Errorf("Wire(%q) = %q, want %q", tt.tool, w, tt.wantWire)
			}
			if !wireName.MatchString(w) {
				t.Errorf("Wire(%q) = %q, which the APIs refuse", tt.tool, w)
			}
			if back := n.Agentry(w); back != tt.tool {
				t.Errorf("Agentry(%q) = %q, want %q", w, back, tt.tool)
			}
		})
	}
}

func TestToolNamesLeaveAnUnofferedNameAlone(t *testing.T) {
	n := NewToolNames(tools("web.fetch"))
	if got := n.Agentry("made_up"); got != "made_up" {
		t.Errorf("Agentry(made_up) = %q, want it unchanged", got)
	}
}
