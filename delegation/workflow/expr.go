package workflow

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// placeholder is one {{ ... }} in a template or condition.
var placeholder = regexp.MustCompile(`\{\{\s*(.*?)\s*\}\}`)

// Template is text with {{expression}} placeholders, each compiled once.
type Template struct {
	Source string
	Line   int
	parts  []part
	refs   refs
}

type part struct {
	text string
	prog *vm.Program // nil for literal text
	src  string
	path []string // set when src is a plain a.b.c path, evaluated without the VM
}

// plainPath is an expression that only names a value: inputs.x, steps.a.output.b.
var plainPath = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// eval runs a placeholder. Plain paths are walked through the maps
// directly: the same result as the VM (nil for a missing key, an error for
// a field of a non-object), without its cost on every step.
func (p part) eval(env map[string]any) (any, error) {
	if p.path == nil {
		return expr.Run(p.prog, env)
	}
	var cur any = env
	for _, key := range p.path {
		switch m := cur.(type) {
		case map[string]any:
			cur = m[key]
		case nil:
			return nil, fmt.Errorf("cannot fetch %s from nil", key)
		default:
			return nil, fmt.Errorf("cannot fetch %s from %T", key, cur)
		}
	}
	return cur, nil
}

// refs are the names an expression reads: input names, step IDs, and other
// top-level names (store_as).
type refs struct {
	inputs, steps, names []string
}

func (r *refs) add(o refs) {
	r.inputs = append(r.inputs, o.inputs...)
	r.steps = append(r.steps, o.steps...)
	r.names = append(r.names, o.names...)
}

// compileExpr compiles src with expr and lists the names it reads.
func compileExpr(src string) (*vm.Program, refs, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, refs{}, fmt.Errorf("expression %q: %s", src, firstLine(err.Error()))
	}
	var v collector
	ast.Walk(&tree.Node, &v)
	prog, err := expr.Compile(src, expr.AllowUndefinedVariables())
	if err != nil {
		return nil, refs{}, fmt.Errorf("expression %q: %s", src, firstLine(err.Error()))
	}
	return prog, v.r, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// collector walks an expression's tree for the names it reads.
type collector struct {
	r       refs
	callees map[ast.Node]bool
}

func (c *collector) Visit(n *ast.Node) {
	switch node := (*n).(type) {
	case *ast.CallNode:
		if c.callees == nil {
			c.callees = map[ast.Node]bool{}
		}
		c.callees[node.Callee] = true
	case *ast.MemberNode:
		id, ok := node.Node.(*ast.IdentifierNode)
		prop, ok2 := node.Property.(*ast.StringNode)
		if ok && ok2 {
			switch id.Value {
			case "inputs":
				c.r.inputs = append(c.r.inputs, prop.Value)
			case "steps":
				c.r.steps = append(c.r.steps, prop.Value)
			}
		}
	case *ast.IdentifierNode:
		if c.callees[node] {
			return
		}
		if node.Value != "inputs" && node.Value != "steps" {
			c.r.names = append(c.r.names, node.Value)
		}
	}
}

// parseTemplate compiles every placeholder of src.
func parseTemplate(src string) (*Template, error) {
	t := &Template{Source: src}
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(src, -1) {
		if m[0] > last {
			t.parts = append(t.parts, part{text: src[last:m[0]]})
		}
		inner := src[m[2]:m[3]]
		prog, r, err := compileExpr(inner)
		if err != nil {
			return nil, err
		}
		pt := part{prog: prog, src: inner}
		if plainPath.MatchString(inner) {
			pt.path = strings.Split(inner, ".")
		}
		t.parts = append(t.parts, pt)
		t.refs.add(r)
		last = m[1]
	}
	if last < len(src) {
		t.parts = append(t.parts, part{text: src[last:]})
	}
	return t, nil
}

// compileCondition turns "{{a.b}} == 'x'" into the expression "(a.b) == 'x'".
func compileCondition(src string) (*vm.Program, refs, error) {
	plain := placeholder.ReplaceAllString(src, "($1)")
	return compileExpr(plain)
}

// Render evaluates the template against env. A placeholder that fails to
// evaluate renders empty and is reported in warnings.
func (t *Template) Render(env map[string]any) (string, []string) {
	if t == nil {
		return "", nil
	}
	if len(t.parts) == 1 && t.parts[0].prog == nil {
		return t.parts[0].text, nil
	}
	var b strings.Builder
	var warns []string
	for _, p := range t.parts {
		if p.prog == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := p.eval(env)
		if err != nil {
			warns = append(warns, fmt.Sprintf("{{%s}}: %s", p.src, firstLine(err.Error())))
			continue
		}
		b.WriteString(Text(v))
	}
	return b.String(), warns
}

// Value evaluates a template that is one placeholder to its value (a map's
// `over`); other templates give their rendered text.
func (t *Template) Value(env map[string]any) (any, error) {
	if len(t.parts) == 1 && t.parts[0].prog != nil {
		return t.parts[0].eval(env)
	}
	s, w := t.Render(env)
	if len(w) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(w, "; "))
	}
	return s, nil
}

// Text is how a value appears in a prompt: strings as they are, the rest as JSON.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
