package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/delegation/model"
)

// ErrMalformed is returned for a script file that does not parse or has turns
// that make no sense.
var ErrMalformed = errors.New("malformed script")

// ErrOutOfTurns is returned when an agent asks for a turn its script does not have.
var ErrOutOfTurns = errors.New("script ran out of turns")

// Turn is one scripted model call.
type Turn struct {
	Latency time.Duration
	Say     string
	Calls   []model.ToolCall
	Error   string
	Input   int64
	Output  int64
}

// Model plays a script. It is safe for concurrent use.
type Model struct {
	name  string
	turns map[string][]Turn
	// Sleep waits d or until ctx ends; tests replace it. Nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error

	mu   sync.Mutex
	next map[string]int // invocation → index of its next turn
}

var _ model.LLM = (*Model)(nil)

// Load reads and parses the script file at path.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	m.name = "script:" + path
	return m, nil
}

// Parse builds a Model from the YAML text of a script.
func Parse(data []byte) (*Model, error) {
	var raw map[string][]rawTurn
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	m := &Model{name: "script", turns: make(map[string][]Turn, len(raw)), next: map[string]int{}}
	for agent, rts := range raw {
		for i, rt := range rts {
			t, err := rt.turn(i)
			if err != nil {
				return nil, fmt.Errorf("%w: agent %q turn %d: %v", ErrMalformed, agent, i+1, err)
			}
			m.turns[agent] = append(m.turns[agent], t)
		}
	}
	return m, nil
}

type rawTurn struct {
	Latency string    `yaml:"latency"`
	Say     *string   `yaml:"say"` // nil when absent: say: "" is an empty answer
	Calls   []rawCall `yaml:"calls"`
	Error   string    `yaml:"error"`
	Tokens  struct {
		Input  int64 `yaml:"input"`
		Output int64 `yaml:"output"`
	} `yaml:"tokens"`
}

type rawCall struct {
	Tool string         `yaml:"tool"`
	Args map[string]any `yaml:"args"`
	// RawArgs is sent verbatim, so a script can play a model that produces
	// arguments that do not parse.
	RawArgs string `yaml:"raw_args"`
}

func (rt rawTurn) turn(i int) (Turn, error) {
	t := Turn{Error: rt.Error, Input: rt.Tokens.Input, Output: rt.Tokens.Output}
	if rt.Say != nil {
		t.Say = *rt.Say
	}
	if rt.Latency != "" {
		d, err := time.ParseDuration(rt.Latency)
		if err != nil || d < 0 {
			return t, fmt.Errorf("latency %q is not a duration", rt.Latency)
		}
		t.Latency = d
	}
	if rt.Say == nil && len(rt.Calls) == 0 && rt.Error == "" {
		return t, errors.New("a turn needs say, calls or error")
	}
	for j, c := range rt.Calls {
		if c.Tool == "" {
			return t, fmt.Errorf("call %d has no tool", j+1)
		}
		args := []byte(c.RawArgs)
		if c.RawArgs == "" {
			if c.Args == nil {
				c.Args = map[string]any{}
			}
			b, err := json.Marshal(c.Args)
			if err != nil {
				return t, fmt.Errorf("call %d args: %v", j+1, err)
			}
			args = b
		}
		t.Calls = append(t.Calls, model.ToolCall{ID: fmt.Sprintf("call_%d_%d", i+1, j+1), Name: c.Tool, Args: args})
	}
	return t, nil
}

// Name returns "script:PATH" (or "script" for a parsed text).
func (m *Model) Name() string { return m.name }

// Generate plays the invocation's next turn.
func (m *Model) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req.Purpose == model.PurposeSummary {
		return &model.Response{Text: summarize(req.Messages)}, nil
	}
	t, err := m.take(req.Agent, req.Invocation, req.Calls)
	if err != nil {
		return nil, err
	}
	if t.Latency > 0 {
		if err := m.sleep(ctx, t.Latency); err != nil {
			return nil, err
		}
	}
	if t.Error != "" {
		return nil, &model.TransientError{Err: errors.New(t.Error)}
	}
	return &model.Response{Text: t.Say, ToolCalls: t.Calls, InputTokens: t.Input, OutputTokens: t.Output}, nil
}

func (m *Model) take(agent, invocation string, calls int) (Turn, error) {
	turns, ok := m.turns[agent]
	if !ok {
		return Turn{}, fmt.Errorf("%w: no turns for agent %q", ErrOutOfTurns, agent)
	}
	key := agent + "\x00" + invocation
	m.mu.Lock()
	defer m.mu.Unlock()
	i := max(m.next[key], calls)
	if i >= len(turns) {
		return Turn{}, fmt.Errorf("%w: agent %q has %d turns and asked for turn %d", ErrOutOfTurns, agent, len(turns), i+1)
	}
	// A say turn usually ends the invocation, but not always: an agent
	// with background agents still running is asked again once they end,
	// and then plays its next turn.
	m.next[key] = i + 1
	return turns[i], nil
}

func (m *Model) sleep(ctx context.Context, d time.Duration) error {
	if m.Sleep != nil {
		return m.Sleep(ctx, d)
	}
	return model.Sleep(ctx, d)
}

// summarize answers a summary request without consuming a turn: the
// conversation's text, shortened, so a test can see what the child was given.
func summarize(msgs []model.Message) string {
	var b strings.Builder
	b.WriteString("Summary:")
	for _, m := range msgs {
		if m.Content == "" {
			continue
		}
		c := m.Content
		if len(c) > 200 {
			c = c[:200] + "…"
		}
		fmt.Fprintf(&b, " [%s] %s", m.Role, c)
	}
	return b.String()
}
