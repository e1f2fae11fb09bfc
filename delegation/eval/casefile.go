package eval

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/trace"
)

// caseOut is a case as CaseFromRun writes it, keys in reading order.
type caseOut struct {
	Name   string         `yaml:"name"`
	Task   string         `yaml:"task,omitempty"`
	Inputs map[string]any `yaml:"inputs,omitempty"`
	Expect expectOut      `yaml:"expect"`
}

type expectOut struct {
	OutputContains []string `yaml:"output_contains,omitempty"`
	Trajectory     *trajOut `yaml:"trajectory,omitempty"`
	MaxTokens      int64    `yaml:"max_tokens,omitempty"`
	NoDenied       bool     `yaml:"no_denied,omitempty"`
	Status         string   `yaml:"status,omitempty"`
}

type trajOut struct {
	Agents []string `yaml:"agents,omitempty,flow"`
	Tools  []string `yaml:"tools,omitempty,flow"`
	Order  string   `yaml:"order"`
}

// CaseFromRun is the YAML of a case (one list item) that expects what the
// recorded run did, for a person to edit ("Add this run as an eval case"):
// its task (a workflow's inputs), the first line of its answer, the
// agents and tools it called in order, its tokens with half again as
// headroom, no denied calls when it had none, and its status when that
// was not ok.
func CaseFromRun(name string, doc trace.Document) []byte {
	c := caseOut{Name: name, Task: doc.Run.Task}
	for _, sp := range doc.Spans {
		if sp.Kind == trace.KindInvokeWorkflow && sp.ParentID == "" {
			if in, ok := sp.Attributes["inputs"].(map[string]any); ok {
				c.Task, c.Inputs = "", in
			}
		}
	}
	if excerpt := firstWords(doc.Run.Result, 80); excerpt != "" {
		c.Expect.OutputContains = []string{excerpt}
	}
	agents, tools := Called(doc.Spans)
	if len(agents) > 0 || len(tools) > 0 {
		order := OrderExact
		if overlapping(doc.Spans) {
			order = OrderAny // parallel branches start in no fixed order
		}
		c.Expect.Trajectory = &trajOut{Agents: agents, Tools: tools, Order: order}
	}
	if n := doc.Run.InputTokens + doc.Run.OutputTokens; n > 0 {
		c.Expect.MaxTokens = n + n/2
	}
	c.Expect.NoDenied = true
	for _, sp := range doc.Spans {
		if sp.Status == trace.StatusDenied {
			c.Expect.NoDenied = false
		}
	}
	if doc.Run.Status != trace.StatusOK {
		c.Expect.Status = string(doc.Run.Status)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode([]caseOut{c}) // plain values always encode
	return b.Bytes()
}

// overlapping reports whether two sub-agent invocations or two tool calls
// of the run overlapped in time: their order may differ in the next run.
func overlapping(spans []trace.Span) bool {
	var ends []trace.Span
	for _, sp := range spans {
		if sp.ParentID == "" || sp.Kind != trace.KindInvokeAgent && sp.Kind != trace.KindExecuteTool {
			continue
		}
		for _, o := range ends {
			if o.Kind == sp.Kind && sp.StartedAt.Before(o.EndedAt) && o.StartedAt.Before(sp.EndedAt) {
				return true
			}
		}
		ends = append(ends, sp)
	}
	return false
}

// firstWords is the first non-empty line of s, cut at a word boundary to
// at most n runes.
func firstWords(s string, n int) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#*->"))
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > n {
			cut := string(r[:n])
			if i := strings.LastIndexByte(cut, ' '); i > n/2 {
				cut = cut[:i]
			}
			return cut
		}
		return line
	}
	return ""
}

// NewSuiteText is a suite file with one case: the target (kind "agent" or
// "workflow") and caseYAML as CaseFromRun writes it.
func NewSuiteText(kind, target string, caseYAML []byte) []byte {
	return []byte(fmt.Sprintf("%s: %s\ncases:\n%s", kind, target, caseYAML))
}

// AppendCase adds caseYAML (one list item, as CaseFromRun writes it) to the
// cases of the suite text data. When cases: is the file's last key, the
// item is appended as text at the indentation of the items before it, so
// the rest of the file stays byte for byte; otherwise the document is
// re-encoded. The result must parse as a suite (a duplicate name does
// not), or nothing is returned but the problem.
func AppendCase(file string, data, caseYAML []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, Problem{File: file, Message: "the suite is not a YAML mapping; fix it before adding cases"}
	}
	doc := root.Content[0]
	var cases *yaml.Node
	last := false
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "cases" {
			cases, last = doc.Content[i+1], i+2 == len(doc.Content)
		}
	}
	var out []byte
	switch {
	case cases != nil && last && cases.Kind == yaml.SequenceNode && cases.Style&yaml.FlowStyle == 0 && len(cases.Content) > 0:
		indent := strings.Repeat(" ", max(cases.Content[0].Column-3, 0))
		var b strings.Builder
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
		for _, line := range strings.SplitAfter(string(caseYAML), "\n") {
			if line != "" {
				b.WriteString(indent + line)
			}
		}
		out = []byte(b.String())
	default:
		var item []yaml.Node
		if err := yaml.Unmarshal(caseYAML, &item); err != nil || len(item) != 1 {
			return nil, errors.New("the case to add is not one YAML list item")
		}
		if cases == nil {
			doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "cases"}, &yaml.Node{Kind: yaml.SequenceNode})
			cases = doc.Content[len(doc.Content)-1]
		}
		cases.Content = append(cases.Content, &item[0])
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&root); err != nil {
			return nil, err
		}
		out = b.Bytes()
	}
	if _, err := Parse(file, out); err != nil {
		return nil, err
	}
	return out, nil
}
