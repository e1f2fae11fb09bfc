package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// tracesShowCommand is `agentry traces show RUN_ID`: the run as a tree of
// its spans and what each agent did, or with --json its document (DESIGN §8).
func (s *session) tracesShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "show RUN_ID",
		Short:             "show a run as a tree of its spans; --json for the document",
		Args:              oneRunID,
		ValidArgsFunction: firstArg(s.recentRunIDs),
		RunE: s.withRun(func(cmd *cobra.Command, o *opened, doc trace.Document) error {
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				return writeJSON(s.stdout, doc)
			}
			rollup, err := o.store.Rollup(cmd.Context(), doc.Run.ID)
			if err != nil {
				return err
			}
			printRunTree(s.stdout, doc, rollup)
			return nil
		}),
	}
}

// printRunTree writes a run as a header, its spans indented under their
// parents, and what each agent did.
func printRunTree(w io.Writer, doc trace.Document, rollup []trace.AgentRollup) {
	r := doc.Run
	fmt.Fprintf(w, "run %s  %s  %s\n", r.ID, r.Status, traceDuration(r.StartedAt, r.EndedAt))
	fmt.Fprintf(w, "agent:   %s\n", r.Agent)
	fmt.Fprintf(w, "started: %s\n", r.StartedAt.Local().Format("2006-01-02 15:04:05.000"))
	fmt.Fprintf(w, "task:    %s\n", traceLine(r.Task, 200))
	if r.Result != "" {
		fmt.Fprintf(w, "result:  %s\n", traceLine(r.Result, 200))
	}
	if r.Error != "" {
		fmt.Fprintf(w, "error:   %s\n", traceLine(r.Error, 200))
	}
	fmt.Fprintf(w, "tokens:  %d in, %d out\n\n", r.InputTokens, r.OutputTokens)

	children := map[string][]trace.Span{}
	known := map[string]bool{}
	for _, sp := range doc.Spans {
		known[sp.ID] = true
	}
	var roots []trace.Span
	for _, sp := range doc.Spans { // in start order, so children are too
		if sp.ParentID == "" || !known[sp.ParentID] {
			roots = append(roots, sp)
		} else {
			children[sp.ParentID] = append(children[sp.ParentID], sp)
		}
	}
	var walk func(sp trace.Span, level int)
	walk = func(sp trace.Span, level int) {
		fmt.Fprintf(w, "%s%s\n", strings.Repeat("  ", level), spanSummary(sp))
		for _, c := range children[sp.ID] {
			walk(c, level+1)
		}
	}
	for _, sp := range roots {
		walk(sp, 0)
	}
	if len(rollup) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tINVOCATIONS\tTIME\tMODEL CALLS\tTOOL CALLS\tTOKENS IN\tTOKENS OUT\tERRORS")
	for _, a := range rollup {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\n", a.Agent, a.Invocations, roundDuration(a.Duration),
			a.ModelCalls, a.ToolCalls, a.InputTokens, a.OutputTokens, a.Errors)
	}
	tw.Flush()
}

// spanSummary is one line of the tree: name, status, duration, tokens and
// what matters for the span's kind.
func spanSummary(sp trace.Span) string {
	parts := []string{sp.Name, "[" + string(sp.Status) + "]", traceDuration(sp.StartedAt, sp.EndedAt)}
	if sp.InputTokens+sp.OutputTokens > 0 {
		parts = append(parts, fmt.Sprintf("tokens %d/%d", sp.InputTokens, sp.OutputTokens))
	}
	a := sp.Attributes
	if target, ok := a[semconv.AttrTargetAgent]; ok {
		detail := fmt.Sprintf("→ %v", target)
		if mode, ok := a[semconv.AttrContextMode]; ok {
			detail += fmt.Sprintf(" (context %v)", mode)
		}
		parts = append(parts, detail)
	}
	if n, ok := a[semconv.AttrRetryAttempt].(float64); ok && n > 0 {
		parts = append(parts, fmt.Sprintf("retry %v", n))
	}
	if sp.Kind == trace.KindInvokeAgent {
		if task, ok := a[semconv.AttrTask]; ok {
			parts = append(parts, "task: "+traceLine(fmt.Sprint(task), 80))
		}
	}
	if sp.Error != "" {
		parts = append(parts, "error: "+traceLine(sp.Error, 120))
	}
	return strings.Join(parts, "  ")
}

// traceDuration is how long something took, or "running" while it has not
// ended.
func traceDuration(start, end time.Time) string {
	if end.IsZero() {
		return "running"
	}
	return roundDuration(end.Sub(start))
}

// roundDuration keeps three significant figures or so: 1.23s, 45ms, 310µs.
func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// traceLine puts text on one line and cuts it to n runes, ellipsis included.
func traceLine(s string, n int) string { return progress.OneLine(s, n-1) }
