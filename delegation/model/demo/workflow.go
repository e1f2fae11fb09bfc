package demo

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/workflow/rules"
)

// Workflow steps (delegation/workflow) get plausible structured answers:
// the demo reads the shapes a prompt asks for ("Return: { score: number,
// ... }"), the requirements the engine appends (the validation rules), and
// answers in that shape, so the shipped workflows run offline with demo.
// The agent names below are the engine's; they are matched by name so this
// package need not import the engine.
const (
	workflowMarker = "one step of the workflow"
	judgeAgent     = "rule-judge"
	writerAgent    = "workflow-writer"
)

func isWorkflowTurn(req *model.Request) bool {
	return req.Purpose != model.PurposeSummary && (strings.Contains(req.System, workflowMarker) ||
		req.Agent == judgeAgent || req.Agent == writerAgent)
}

func workflowAnswer(req *model.Request, h uint32) string {
	task := firstUser(req.Messages)
	switch req.Agent {
	case judgeAgent:
		return "PASS: the output meets the rule (demo judge)"
	case writerAgent:
		return WriteWorkflow(task)
	}
	if wantsJSON(task) {
		b, _ := json.MarshalIndent(shapeAnswer(task, h), "", "  ")
		return string(b)
	}
	return fmt.Sprintf("# %s\n\n%s\n\n- %s\n- %s\n", agentTitle(req.Agent), shorten(firstLineOf(task), 160),
		findings[h%uint32(len(findings))], findings[(h/7)%uint32(len(findings))])
}

func agentTitle(a string) string {
	words := strings.FieldsFunc(a, func(r rune) bool { return r == '_' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

func firstLineOf(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func wantsJSON(task string) bool {
	return strings.Contains(task, "JSON") || strings.Contains(task, "Return: {") || strings.Contains(task, "passed")
}

var (
	shapeStart = regexp.MustCompile(`(?i)return(?: json)?:\s*\{`)
	// exactly is looser than rules.Exactly: a prompt's "exactly 3 risks"
	// shapes the answer too, not only a rule's "must list exactly 3 risks".
	exactly = regexp.MustCompile(`(?i)exactly (\d+) ([A-Za-z_ ]+)`)
)

// shapeAnswer builds a JSON value from the shape in the prompt and the rules.
func shapeAnswer(task string, h uint32) any {
	obj := promptShape(task, h)
	if strings.Contains(task, "passed") {
		passingVerdict(obj, task)
	}
	list, listNoun := applyRules(obj, task, h)
	if list != nil {
		if len(obj) == 0 {
			return list
		}
		obj[strings.ReplaceAll(strings.ToLower(listNoun), " ", "_")] = list
	}
	if len(obj) == 0 {
		obj["summary"] = findings[h%uint32(len(findings))]
	}
	return obj
}

// promptShape is the object of the shape the prompt asks to return
// ("Return JSON: { ... }"), filled with samples; empty without one.
func promptShape(task string, h uint32) map[string]any {
	if loc := shapeStart.FindStringIndex(task); loc != nil {
		p := &shapeParser{s: task[loc[1]-1:], h: h}
		if v, ok := p.value("").(map[string]any); ok {
			return v
		}
	}
	return map[string]any{}
}

// passingVerdict makes obj a validator's pass: passed, no feedback, and
// the score and issues the prompt names.
func passingVerdict(obj map[string]any, task string) {
	obj["passed"], obj["feedback"] = true, []any{}
	if _, ok := obj["overall_score"]; !ok && strings.Contains(task, "overall_score") {
		obj["overall_score"] = 8
	}
	if strings.Contains(task, "critical_issues") {
		obj["critical_issues"] = []any{}
	}
}

// applyRules follows the prompt's rules line by line: a field to include
// is added to obj, "between lo and hi" sets a number, "exactly N nouns"
// makes a list of N named elements, which "each … must have" fills. It
// returns that list and its noun.
func applyRules(obj map[string]any, task string, h uint32) (list []any, listNoun string) {
	for _, line := range strings.Split(task, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "-"))
		if m := rules.Include.FindStringSubmatch(line); m != nil {
			if _, ok := obj[m[1]]; !ok {
				obj[m[1]] = sample(m[1], strings.ToLower(m[2]), h)
			}
		}
		if m := exactly.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			listNoun = strings.TrimSpace(m[2])
			list = make([]any, n)
			for i := range list {
				list[i] = map[string]any{"name": fmt.Sprintf("%s %d", strings.TrimSuffix(listNoun, "s"), i+1)}
			}
		}
		if m := rules.Each.FindStringSubmatch(line); m != nil && list != nil {
			for i, el := range list {
				for _, f := range rules.Names(m[2]) {
					el.(map[string]any)[f] = sample(f, "string", h+uint32(i))
				}
			}
		}
		if m := rules.Between.FindStringSubmatch(line); m != nil {
			lo, _ := strconv.ParseFloat(m[2], 64)
			hi, _ := strconv.ParseFloat(m[3], 64)
			obj[sameField(obj, m[1])] = lo + (hi-lo)*0.75
		}
	}
	return list, listNoun
}

// sameField is the field of obj a rule names: the one of that name, else
// the first (in sorted order) that differs from it only in case, else the
// name itself; a fixed choice, so the demo answers the same each time.
func sameField(obj map[string]any, name string) string {
	if _, ok := obj[name]; ok {
		return name
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return name
}

// sample is a plausible value for a field of a kind.
func sample(name, kind string, h uint32) any {
	switch kind {
	case "number":
		if strings.Contains(name, "confidence") {
			return 0.7
		}
		return 55 + int(h%40)
	case "boolean", "bool":
		return true
	case "array", "list", "string[]":
		return []any{findings[h%uint32(len(findings))], findings[(h/7)%uint32(len(findings))]}
	case "object":
		return map[string]any{"note": findings[h%uint32(len(findings))]}
	}
	if strings.Contains(name, "score") {
		return 55 + int(h%40)
	}
	return strings.ReplaceAll(name, "_", " ") + ": " + findings[(h/3)%uint32(len(findings))]
}

// shapeParser reads the TypeScript-like shapes prompts write:
// { a: number, b: string[], c: "x" | "y", d: [{ e: string }] }.
type shapeParser struct {
	s string
	i int
	h uint32
}

func (p *shapeParser) skip() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\r\n,", rune(p.s[p.i])) {
		p.i++
	}
}

// value reads the shape at the cursor: an object, a list, quoted options
// or a type word. name is the field it is the value of, which a type word
// gets a sample for.
func (p *shapeParser) value(name string) any {
	p.skip()
	if p.i >= len(p.s) {
		return nil
	}
	switch p.s[p.i] {
	case '{':
		return p.object()
	case '[':
		return p.list(name)
	case '"':
		return p.option()
	}
	kind := p.scan(func(b byte) bool { return isWord(b) || b == '[' || b == ']' })
	return sample(name, kind, p.h)
}

// object reads { key: shape, ... }; a key without a shape gets a string,
// and the object ends at its brace or after 50 keys.
func (p *shapeParser) object() map[string]any {
	p.i++
	obj := map[string]any{}
	for guard := 0; guard < 50; guard++ {
		p.skip()
		if p.i >= len(p.s) || p.s[p.i] == '}' {
			p.i++
			return obj
		}
		key := p.scan(isWord)
		p.skip()
		if key == "" {
			p.i++
			continue
		}
		if p.at(':') {
			p.i++
			obj[key] = p.value(key)
		} else {
			obj[key] = sample(key, "string", p.h) // { firmographic, technographic }
		}
	}
	return obj
}

// list reads [shape]: three numbered copies of an object, or one value.
func (p *shapeParser) list(name string) []any {
	p.i++
	el := p.value(name)
	p.skip()
	if p.at(']') {
		p.i++
	}
	if m, ok := el.(map[string]any); ok {
		return []any{m, cloneWith(m, 2), cloneWith(m, 3)}
	}
	return []any{el}
}

// option reads "hot" | "warm" and gives the first option.
func (p *shapeParser) option() string {
	v, ok := p.quoted()
	if !ok {
		p.i = len(p.s)
		return ""
	}
	for {
		p.skip()
		if !p.at('|') {
			return v
		}
		p.i++
		p.skip()
		if !p.at('"') {
			return v
		}
		if _, ok := p.quoted(); !ok {
			return v
		}
	}
}

// quoted reads the string between the quote at the cursor and the next
// one; without a closing quote it reads nothing.
func (p *shapeParser) quoted() (string, bool) {
	end := strings.IndexByte(p.s[p.i+1:], '"')
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, true
}

// scan reads the bytes from the cursor on that ok accepts.
func (p *shapeParser) scan(ok func(byte) bool) string {
	start := p.i
	for p.i < len(p.s) && ok(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// at reports whether the cursor is at c.
func (p *shapeParser) at(c byte) bool { return p.i < len(p.s) && p.s[p.i] == c }

func cloneWith(m map[string]any, n int) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			v = fmt.Sprintf("%s (%d)", s, n)
		}
		c[k] = v
	}
	return c
}

func isWord(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

var listSplit = regexp.MustCompile(`(?i)\s*(?:,|;|\bthen\b|\band\b)\s*`)

// WriteWorkflow turns "three steps: research, identify pains, draft an
// email" into a sequential workflow, each step fed the previous output.
func WriteWorkflow(desc string) string {
	body := desc
	if _, after, ok := strings.Cut(desc, ":"); ok {
		body = after
	}
	var names []string
	for _, p := range listSplit.Split(body, -1) {
		if p = strings.Trim(strings.TrimSpace(p), "."); p != "" {
			names = append(names, p)
		}
	}
	if len(names) == 0 {
		names = []string{"research", "summarise"}
	}
	var b strings.Builder
	name := "workflow-" + fmt.Sprint(hash(desc)%10000)
	fmt.Fprintf(&b, "workflow:\n  name: %s\n  description: %q\n  version: \"1.0.0\"\n  timeout: \"15m\"\n\n", name, shorten(desc, 120))
	b.WriteString("inputs:\n  - name: subject\n    type: string\n    required: true\n    description: What the workflow works on\n\nagents:\n")
	ids := make([]string, len(names))
	for i, n := range names {
		ids[i] = snake(n, i)
		prev := ""
		if i > 0 {
			prev = fmt.Sprintf("\n      Previous step's output:\n      {{steps.%s.output}}", ids[i-1])
		}
		fmt.Fprintf(&b, "  %s:\n    name: %s\n    role: %s\n    prompt: |\n      %s for {{inputs.subject}}.%s\n    tools: [Read]\n    timeout: \"3m\"\n",
			ids[i], agentTitle(ids[i]), strings.ToUpper(n[:1])+n[1:], strings.ToUpper(n[:1])+n[1:], prev)
	}
	b.WriteString("\nsteps:\n")
	for i, id := range ids {
		in := "{{inputs.subject}}"
		if i > 0 {
			in = "{{steps." + ids[i-1] + ".output}}"
		}
		fmt.Fprintf(&b, "  - id: %s\n    agent: %s\n    type: sequential\n    input: %q\n    output:\n      store_as: %s_result\n      format: markdown\n", id, id, in, id)
	}
	return b.String()
}

func snake(s string, i int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = fmt.Sprintf("step_%d", i+1)
	}
	if len(out) > 30 {
		out = strings.Trim(out[:30], "_")
	}
	return out
}
