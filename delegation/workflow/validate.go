package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agentry/agentry/delegation/workflow/rules"
)

// Verdict is one validation check and how it came out.
type Verdict struct {
	Rule   string `json:"rule"`
	Passed bool   `json:"passed"`
	Reason string `json:"reason,omitempty"`
	// By is "pattern", "schema", "format" or "model" (a rule no pattern matched).
	By string `json:"by"`
}

// Judge decides a plain-English rule no pattern matches, with a model.
type Judge func(rule, output string) (passed bool, reason string, err error)

// fence is a Markdown code block around the whole output.
var fence = regexp.MustCompile("(?s)^\\s*```[A-Za-z0-9_-]*\\s*\\n(.*?)\\n?```\\s*$")

// Unfence returns the body of a fenced block that is the whole text, else the text.
func Unfence(s string) string {
	if m := fence.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return s
}

// parseOutput turns an agent's text into the value steps see: JSON when the
// format is json (it must parse) or when it looks like JSON, else the text.
func parseOutput(text, format string) (any, error) {
	body := strings.TrimSpace(Unfence(text))
	if body == "" {
		return nil, errors.New("empty output")
	}
	looksJSON := strings.HasPrefix(body, "{") || strings.HasPrefix(body, "[")
	if format == "json" || (format == "" && looksJSON) {
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			if format == "json" {
				return nil, fmt.Errorf("format json: output does not parse: %v", err)
			}
			return text, nil
		}
		return v, nil
	}
	return text, nil
}

var printer = message.NewPrinter(language.English)

// checkSchema validates v against sch; the message names the instance
// location and the keyword of the first failing leaf.
func checkSchema(sch *jsonschema.Schema, v any) Verdict {
	if reason := SchemaViolation(sch, v); reason != "" {
		return Verdict{Rule: "JSON Schema", By: "schema", Reason: reason}
	}
	return Verdict{Rule: "JSON Schema", Passed: true, By: "schema"}
}

// SchemaViolation says why v does not validate against sch: the instance
// location and the keyword of the first failing leaf; "" when it does.
func SchemaViolation(sch *jsonschema.Schema, v any) string {
	raw, _ := json.Marshal(v)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err == nil {
		err = sch.Validate(inst)
	}
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		for len(ve.Causes) > 0 {
			ve = ve.Causes[0]
		}
		loc := "/" + strings.Join(ve.InstanceLocation, "/")
		kw := strings.Join(ve.ErrorKind.KeywordPath(), "/")
		return fmt.Sprintf("at %s: %s: %s", loc, kw, ve.ErrorKind.LocalizedString(printer))
	}
	return err.Error()
}

// checkRule applies the deterministic pattern that matches rule; ok is false
// when none does.
func checkRule(rule string, v any) (Verdict, bool) {
	vd := Verdict{Rule: rule, By: "pattern"}
	switch {
	case rules.Include.MatchString(rule):
		m := rules.Include.FindStringSubmatch(rule)
		f, found := field(v, m[1])
		switch {
		case !found:
			vd.Reason = fmt.Sprintf("no %s field", m[1])
		case !isKind(f, strings.ToLower(m[2])):
			vd.Reason = fmt.Sprintf("%s is not a %s", m[1], m[2])
		default:
			vd.Passed = true
		}
	case rules.Exactly.MatchString(rule):
		m := rules.Exactly.FindStringSubmatch(rule)
		n, _ := strconv.Atoi(m[1])
		arr, ok := items(v, m[2])
		switch {
		case !ok:
			vd.Reason = "no list of " + strings.TrimSpace(m[2]) + " in the output"
		case len(arr) != n:
			vd.Reason = fmt.Sprintf("found %d, want exactly %d", len(arr), n)
		default:
			vd.Passed = true
		}
	case rules.Each.MatchString(rule):
		m := rules.Each.FindStringSubmatch(rule)
		arr, ok := items(v, m[1])
		if !ok {
			vd.Reason = "no list of " + strings.TrimSpace(m[1]) + " in the output"
			break
		}
		vd.Passed = true
		for i, el := range arr {
			for _, name := range rules.Names(m[2]) {
				if _, ok := field(el, name); !ok {
					vd.Passed, vd.Reason = false, fmt.Sprintf("item %d has no %s field", i+1, name)
					break
				}
			}
			if !vd.Passed {
				break
			}
		}
	case rules.Between.MatchString(rule):
		m := rules.Between.FindStringSubmatch(rule)
		lo, _ := strconv.ParseFloat(m[2], 64)
		hi, _ := strconv.ParseFloat(m[3], 64)
		f, found := field(v, m[1])
		x, isNum := f.(float64)
		switch {
		case !found:
			vd.Reason = fmt.Sprintf("no %s field", m[1])
		case !isNum:
			vd.Reason = fmt.Sprintf("%s is not a number", m[1])
		case x < lo || x > hi:
			vd.Reason = fmt.Sprintf("%s is %v, not between %v and %v", m[1], x, lo, hi)
		default:
			vd.Passed = true
		}
	default:
		return vd, false
	}
	return vd, true
}

// field finds key in an object, case-insensitively, at the top or one level down.
func field(v any, key string) (any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	for k, x := range obj {
		if strings.EqualFold(k, key) {
			return x, true
		}
	}
	for _, x := range obj {
		if inner, ok := x.(map[string]any); ok {
			for k, y := range inner {
				if strings.EqualFold(k, key) {
					return y, true
				}
			}
		}
	}
	return nil, false
}

// items finds the list a rule speaks of: the output itself, a field named
// after the noun (pain points → pain_points), or the object's only list.
func items(v any, noun string) ([]any, bool) {
	if arr, ok := v.([]any); ok {
		return arr, true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	key := strings.ReplaceAll(strings.TrimSpace(strings.ToLower(noun)), " ", "_")
	if x, ok := field(obj, key); ok {
		if arr, ok := x.([]any); ok {
			return arr, true
		}
	}
	var only []any
	n := 0
	for _, x := range obj {
		if arr, ok := x.([]any); ok {
			only, n = arr, n+1
		}
	}
	return only, n == 1
}

func isKind(v any, kind string) bool {
	switch kind {
	case "array", "list":
		_, ok := v.([]any)
		return ok
	case "boolean", "bool":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	}
	return true // field, key: presence is enough
}

// validate checks an agent's output: not empty, the format, the schema and
// each rule. It returns the parsed value, the verdicts, and the first failure.
func validate(a *Agent, format, text string, judge Judge) (any, []Verdict, error) {
	v, err := parseOutput(text, format)
	if err != nil {
		return nil, []Verdict{{Rule: "format " + orText(format), By: "format", Reason: err.Error()}}, err
	}
	if a == nil || (a.Schema == nil && len(a.RuleTexts) == 0) {
		return v, nil, nil
	}
	var verdicts []Verdict
	var failure error
	note := func(vd Verdict) {
		verdicts = append(verdicts, vd)
		if !vd.Passed && failure == nil {
			failure = fmt.Errorf("validation: %s: %s", vd.Rule, vd.Reason)
		}
	}
	if a.Schema != nil {
		note(checkSchema(a.Schema, v))
	}
	for _, rule := range a.RuleTexts {
		if vd, ok := checkRule(rule, v); ok {
			note(vd)
			continue
		}
		vd := Verdict{Rule: rule, By: "model"}
		if failure != nil {
			continue // the output fails anyway; spare the model call
		}
		if judge == nil {
			vd.Passed, vd.Reason = true, "not judged: no validator model"
		} else if ok, reason, err := judge(rule, Text(v)); err != nil {
			vd.Passed, vd.Reason = true, "not judged: "+err.Error()
		} else {
			vd.Passed, vd.Reason = ok, reason
		}
		note(vd)
	}
	return v, verdicts, failure
}

func orText(f string) string {
	if f == "" {
		return "text"
	}
	return f
}
