package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentry/agentry/delegation/model"
)

// DelegateTool is the name of the runtime's delegation tool, which the demo
// model recognises among the tools it is offered.
const DelegateTool = "delegate"

// MaxFanOut caps how many sub-agents one demo turn delegates to.
const MaxFanOut = 4

// Model is the demo model. The zero value is not usable; call New.
type Model struct {
	// Latency is the base simulated latency of one call; each call adds up to
	// the same again, chosen from a hash of its input. 0 means no waiting.
	Latency time.Duration
	// Sleep waits d or until ctx ends; tests replace it. Nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

var _ model.LLM = (*Model)(nil)

// New returns a demo model with a simulated latency of 300–600 ms per call.
func New() *Model { return &Model{Latency: 300 * time.Millisecond} }

// Name returns "demo".
func (m *Model) Name() string { return "demo" }

// Generate plays one plausible turn, chosen from the conversation so far.
func (m *Model) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	task := coreTask(firstUser(req.Messages))
	h := hash(req.Agent + "\x00" + task + "\x00" + fmt.Sprint(len(req.Messages)))
	if err := m.wait(ctx, h); err != nil {
		return nil, err
	}
	var resp model.Response
	switch {
	case isWorkflowTurn(req):
		resp.Text = workflowAnswer(req, h)
	case req.Purpose == model.PurposeSummary:
		resp.Text = "Summary of the conversation so far: " + shorten(task, 160)
	case offers(req.Tools, dispatchTool):
		resp = orchestrate(req.Agent, task, req.Messages)
	case len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Role == model.RoleTool:
		resp.Text = sumUp(req.Agent, task, req.Messages)
	case !answered(req.Messages):
		if targets := delegateTargets(req.Tools); len(targets) > 0 {
			resp.ToolCalls = delegations(task, targets)
			break
		}
		resp.Text = leafAnswer(req.Agent, task, h)
	default:
		resp.Text = leafAnswer(req.Agent, task, h)
	}
	resp.InputTokens = int64(len(req.System)/4 + 20)
	for _, msg := range req.Messages {
		resp.InputTokens += int64(len(msg.Content)/4 + 4)
	}
	resp.OutputTokens = int64(len(resp.Text)/4 + 25*len(resp.ToolCalls) + 1)
	return &resp, nil
}

func (m *Model) wait(ctx context.Context, h uint32) error {
	if m.Latency <= 0 {
		return nil
	}
	d := m.Latency + time.Duration(h%1000)*m.Latency/1000
	if m.Sleep != nil {
		return m.Sleep(ctx, d)
	}
	return model.Sleep(ctx, d)
}

func hash(s string) uint32 {
	f := fnv.New32a()
	f.Write([]byte(s))
	return f.Sum32()
}

func firstUser(msgs []model.Message) string {
	for _, m := range msgs {
		if m.Role == model.RoleUser {
			return m.Content
		}
	}
	return ""
}

func answered(msgs []model.Message) bool {
	for _, m := range msgs {
		if m.Role == model.RoleAssistant {
			return true
		}
	}
	return false
}

// target is one agent the delegate tool offers.
type target struct{ name, description string }

// delegateTargets reads the agent enum (and the descriptions listed in the
// parameter's description, "- name: text" lines) from the delegate tool.
func delegateTargets(tools []model.Tool) []target {
	for _, t := range tools {
		if t.Name != DelegateTool {
			continue
		}
		var schema struct {
			Properties struct {
				Agent struct {
					Enum        []string `json:"enum"`
					Description string   `json:"description"`
				} `json:"agent"`
			} `json:"properties"`
		}
		if json.Unmarshal(t.Parameters, &schema) != nil {
			return nil
		}
		descs := map[string]string{}
		for _, line := range strings.Split(schema.Properties.Agent.Description, "\n") {
			name, desc, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "- "), ": ")
			if ok {
				descs[name] = desc
			}
		}
		var out []target
		for _, name := range schema.Properties.Agent.Enum {
			if name == "general-purpose" {
				continue // the demo hands work to named specialists
			}
			out = append(out, target{name, descs[name]})
		}
		if len(out) > MaxFanOut {
			out = out[:MaxFanOut]
		}
		return out
	}
	return nil
}

// focusMark separates a delegated task from the note on the child's part in
// it, so a grandchild gets the same task with its own note, not a pile of them.
const focusMark = "\n\nFocus: "

// coreTask is the task a message asks about: after any context the runtime
// put before it ("…\n\nYour task:\n"), and before a demo focus note.
func coreTask(message string) string {
	if i := strings.LastIndex(message, "Your task:\n"); i >= 0 {
		message = message[i+len("Your task:\n"):]
	}
	message, _, _ = strings.Cut(message, focusMark)
	return strings.TrimSpace(message)
}

func delegations(task string, targets []target) []model.ToolCall {
	calls := make([]model.ToolCall, 0, len(targets))
	for i, t := range targets {
		sub := shorten(task, 200)
		if t.description != "" {
			sub += focusMark + shorten(t.description, 160)
		}
		args, _ := json.Marshal(map[string]string{"agent": t.name, "task": sub})
		calls = append(calls, model.ToolCall{ID: fmt.Sprintf("demo_call_%d", i+1), Name: DelegateTool, Args: args})
	}
	return calls
}

func sumUp(agent, task string, msgs []model.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Here is what the team found on %q.", shorten(task, 80))
	for _, m := range msgs {
		if m.Role != model.RoleTool {
			continue
		}
		var r struct{ Status, Agent, Result, Error string }
		if json.Unmarshal([]byte(m.Content), &r) != nil || r.Agent == "" {
			fmt.Fprintf(&b, "\n- %s", shorten(m.Content, 160))
			continue
		}
		if r.Status != "ok" {
			fmt.Fprintf(&b, "\n- %s could not help (%s: %s).", r.Agent, r.Status, shorten(r.Error, 100))
			continue
		}
		fmt.Fprintf(&b, "\n- %s: %s", r.Agent, shorten(r.Result, 160))
	}
	fmt.Fprintf(&b, "\nTaken together, %s recommends acting on these points in order.", agent)
	return b.String()
}

var openers = []string{
	"I looked into %q.",
	"Here is my take on %q.",
	"I worked through %q.",
}

var findings = []string{
	"The main driver is steady demand in the core segment, with a smaller lift from new channels.",
	"Three sources agree on the overall direction; one older report disagrees on the size of the effect.",
	"The data shows a clear pattern once seasonal effects are removed.",
	"Most of the risk sits in a few assumptions that are worth checking first.",
}

// leafAnswer is an opener and two different findings, chosen by h.
func leafAnswer(agent, task string, h uint32) string {
	n := uint32(len(findings))
	first := h % n
	second := (first + 1 + (h/7)%(n-1)) % n // never the first again
	return fmt.Sprintf(openers[h%uint32(len(openers))]+" %s %s (%s)",
		shorten(task, 80), findings[first], findings[second], agent)
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
