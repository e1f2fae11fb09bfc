package runs

import (
	"encoding/json"
	"slices"
	"strings"
)

// Why a tokens or cost cell is "—" (core.Dash).
const (
	noTokens = "no model call has reported tokens yet"
	noCost   = "no priced model call: set prices for its models (docs/cost.md)"
)

// marksOf finds which marks the rows show.
func marksOf(rows []*TimelineRow) Marks {
	var m Marks
	for _, r := range rows {
		m.NotOK = m.NotOK || r.Sub.NotOK > 0 || NotOK(r.Status) && r.Group == nil
		m.Retries = m.Retries || r.Retry > 0 || r.Sub.Retries > 0
		m.Queued = m.Queued || r.Queued != ""
		m.Critical = m.Critical || r.Critical
	}
	return m
}

// workflowInputs reads a workflow run's task, the JSON object of its
// inputs, as name: value pairs in name order; a string is shown as it is,
// any other value as JSON. A task that is not such an object gives nil,
// and the page shows it as text.
func workflowInputs(task string) []Input {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(task), &obj); err != nil || len(obj) == 0 {
		return nil
	}
	out := make([]Input, 0, len(obj))
	for name, raw := range obj {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		out = append(out, Input{Name: name, Value: s})
	}
	slices.SortFunc(out, func(a, b Input) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// InputsText is a workflow run's inputs on one line, for the runs list:
// "audience: homeowners · topic: solar panels"; "" when task is not a JSON
// object.
func InputsText(task string) string {
	in := workflowInputs(task)
	parts := make([]string, len(in))
	for i, kv := range in {
		parts[i] = kv.Name + ": " + kv.Value
	}
	return strings.Join(parts, " · ")
}
