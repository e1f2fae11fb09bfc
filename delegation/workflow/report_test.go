package workflow_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/agentry/agentry/delegation/workflow"
)

// Every shipped workflow's report renders its step table as a GFM table
// whose rows hold exactly the step, agent and status they should: a | in a
// cell (a conditional's "gate → a | b") would add a column and shift the
// rest (issue 30).
func TestShippedWorkflowReportsAreValidMarkdownTables(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	forEachShipped(t, func(t *testing.T, wf *workflow.Workflow, res *workflow.Result) {
		rep := workflow.Report(wf, res)
		rows := tableRows(t, md, []byte(rep))
		if len(rows) != len(res.Steps)+1 {
			t.Fatalf("%d table rows, want a header and %d steps:\n%s", len(rows), len(res.Steps), rep)
		}
		if h := strings.Join(rows[0], ","); h != "Step,Agent,Status,Duration,Retries,Output Size" {
			t.Fatalf("header = %s", h)
		}
		for i, s := range res.Steps {
			row := rows[i+1]
			want := []string{fmt.Sprintf("%d %s", i+1, s.ID), strings.Join(strings.Fields(s.Agent), " ")}
			if len(row) != 6 || row[0] != want[0] || row[1] != want[1] || strings.Contains(row[2], "|") {
				t.Errorf("row %d = %q, want step %q agent %q in six cells:\n%s", i+1, row, want[0], want[1], rep)
			}
		}
	})
}

// tableRows parses src and returns the cells' texts of its one table.
func tableRows(t *testing.T, md goldmark.Markdown, src []byte) [][]string {
	t.Helper()
	doc := md.Parser().Parse(text.NewReader(src))
	var rows [][]string
	tables := 0
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *east.Table:
			tables++
		case *east.TableHeader, *east.TableRow:
			var cells []string
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, strings.TrimSpace(inlineText(c, src)))
			}
			rows = append(rows, cells)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil || tables != 1 {
		t.Fatalf("%d tables (%v) in:\n%s", tables, err, src)
	}
	return rows
}

// inlineText is the text a reader sees in n: its text segments with
// backslash escapes resolved, as goldmark's HTML renderer writes them.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := c.(type) {
		case *ast.Text:
			b.Write(util.UnescapePunctuations(v.Segment.Value(src)))
		case *ast.String:
			b.Write(v.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
