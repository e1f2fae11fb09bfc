package delegation

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry/skills"
	"github.com/agentry/agentry/trace"
)

// A durable engine's steps keep what a skill load changed through the
// Frame: a later step refuses what the skill's allowed-tools leaves out,
// and when the skill is gone from the folder by a later step, its agent
// keeps only the skill tool instead of getting its tools back.
func TestALoadedSkillsNarrowingHoldsAcrossStepsAndFailsClosed(t *testing.T) {
	f, _, _ := skillsSetup(t, map[string]string{"writer": ""}, `{}`)
	st, ctx := f.rt.Steps(), context.Background()
	fr, ended, err := st.Root(ctx, "k/0", trace.Run{ID: "run1"}, Request{Agent: "writer", Task: "fill the form"})
	if err != nil || ended != nil {
		t.Fatalf("root: %v %v", ended, err)
	}
	call := func(key Key, name, args string) string {
		t.Helper()
		out, loaded, err := st.Tool(ctx, key, fr, model.ToolCall{ID: string(key), Name: name, Args: json.RawMessage(args)}, string(key), nil)
		if err != nil {
			t.Fatal(err)
		}
		fr.Load(loaded) // as the engine does
		return out
	}
	if out := call("k/1", "skill", `{"name":"pdf-forms"}`); !strings.HasPrefix(out, `Loaded skill "pdf-forms"`) {
		t.Fatalf("load: %s", out)
	}
	if !slices.Equal(fr.Loaded(), []string{"pdf-forms"}) {
		t.Fatalf("frame's skills: %v", fr.Skills)
	}
	if out := call("k/2", "web.fetch", `{"url":"https://example.com"}`); !strings.Contains(out, `denied by skill "pdf-forms"'s allowed-tools`) {
		t.Errorf("web.fetch in the step after the load: %s", out)
	}
	if out := call("k/3", "filesystem.read_file", `{"path":"notes.txt"}`); strings.Contains(out, "not allowed") {
		t.Errorf("Read is allowed-tools' own: %s", out)
	}
	f.rt.cfg.Skills = skills.NewCatalog() // the skills folder emptied during the run
	if out := call("k/4", "filesystem.read_file", `{"path":"notes.txt"}`); !strings.Contains(out, `denied by skill "pdf-forms"'s allowed-tools`) {
		t.Errorf("with the skill gone: %s", out)
	}
}
