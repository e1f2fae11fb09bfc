// Package skill is the skill tool: progressive disclosure of Agent Skills
// (DESIGN §15). An agent that may use skills reads each usable skill's name
// and description in its system prompt; when a task matches one it calls
// skill {name} and gets the skill's instructions, with the skill's folder
// as the base directory of the files they name: those are read with the
// filesystem tools (which read a loaded skill's folder, confined to it)
// and its scripts run with shell.run, in the sandbox, under the agent's
// permissions. Claude Code's Skill tool maps to it.
//
// Which skills an invocation may load, and what loading does to it (the
// trace, a skill's allowed-tools narrowing its tools), is the runtime's:
// the tool reaches it through tool.Call.Skills.
package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/registry/skills"
)

// Name is the tool's name, a group of its own for permission patterns.
const Name = "skill"

// maxListedFiles caps the file list the tool returns beside a body.
const maxListedFiles = 40

// Tool is the skill tool; its Call needs the invocation's tool.Skills on
// the context.
type Tool struct{}

var _ tool.Tool = Tool{}

// New returns the skill tool.
func New() Tool { return Tool{} }

// Spec is the tool as the runtime lists it; an invocation is offered
// SpecFor its usable skills instead, whose name is an enum of them.
func (Tool) Spec() model.Tool { return SpecFor(nil) }

// SpecFor is the spec offered to an invocation that may load ids: the name
// argument is an enum of them, as the Agent Skills reference client does,
// so a model cannot ask for a skill that is not there.
func SpecFor(ids []string) model.Tool {
	name := map[string]any{"type": "string", "description": "the skill's name, as listed under Skills in your instructions"}
	if len(ids) > 0 {
		name["enum"] = ids
	}
	schema, _ := json.Marshal(map[string]any{
		"type": "object", "properties": map[string]any{"name": name},
		"required": []string{"name"}, "additionalProperties": false,
	})
	return model.Tool{
		Name: Name,
		Description: "Load an Agent Skill's instructions when your task matches its description. " +
			"Returns the instructions and the skill's base directory: read the files they name there with the filesystem tools, and run its scripts with shell.run.",
		Parameters: schema,
	}
}

// Call loads the skill named in args through the invocation's skills.
func (Tool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := tool.Decode(args, &a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Name) == "" {
		return "", fmt.Errorf("%w: name is required", tool.ErrInvalidArgs)
	}
	sk := tool.CallFrom(ctx).Skills
	if sk == nil {
		return "", fmt.Errorf("%w: this agent may use no skills", tool.ErrDenied)
	}
	s, err := sk.Load(a.Name)
	if err != nil {
		return "", err
	}
	tool.CallFrom(ctx).SetAttribute("skill", s.ID)
	return Text(s), nil
}

// Text is what loading s returns: the base directory, the folder's files
// (so the model knows what it may read), and the instructions.
func Text(s skills.Skill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Loaded skill %q.\nBase directory for this skill: %s\n", s.ID, s.Path)
	if len(s.Files) > 0 {
		b.WriteString("Its files (read them with filesystem.read_file at the base directory; run scripts with shell.run):\n")
		for i, f := range s.Files {
			if i == maxListedFiles {
				fmt.Fprintf(&b, "- … and %d more (filesystem.list_dir lists them)\n", len(s.Files)-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", f.Path)
		}
	}
	if len(s.AllowedTools) > 0 {
		fmt.Fprintf(&b, "While you follow it you may use only: %s\n", strings.Join(s.AllowedTools, ", "))
	}
	b.WriteString("\n")
	b.WriteString(s.Body)
	return b.String()
}
