package workflow

import (
	"fmt"
	"strings"
	"time"
)

// Report is the Markdown execution report of the seed document.
func Report(wf *Workflow, r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Workflow Execution Report: %s\n\n", wf.Name)
	writeSummary(&b, r)
	writeSteps(&b, r.Steps)
	b.WriteString("\n### Final Output\n\n")
	if r.Final == nil {
		b.WriteString("(none)\n")
	} else {
		b.WriteString(strings.TrimSpace(Text(r.Final)) + "\n")
	}
	writeIssues(&b, r)
	return b.String()
}

// writeSummary writes the Execution Summary: the run's status and its
// steps counted by how they ended, the agents and retries they took.
func writeSummary(b *strings.Builder, r *Result) {
	completed, failed, cancelled, skipped, agents, retries := 0, 0, 0, 0, 0, 0
	for _, s := range r.Steps {
		switch s.Status {
		case StepOK, StepFallback, StepMaxIterations:
			completed++
		case StepSkipped:
			skipped++
		case StepCancelled: // stopped by an abort or Cancel: not a failure of its own
			cancelled++
		default:
			failed++
		}
		agents += s.Attempts
		retries += s.Retries
	}
	b.WriteString("### Execution Summary\n")
	fmt.Fprintf(b, "- Status: %s\n- Total steps: %d\n- Steps completed: %d\n- Steps failed: %d\n- Steps skipped: %d\n",
		statusWord(r.Status), len(r.Steps), completed, failed, skipped)
	if cancelled > 0 {
		fmt.Fprintf(b, "- Steps cancelled: %d\n", cancelled)
	}
	fmt.Fprintf(b, "- Total agents deployed: %d\n- Total time: %s\n- Retries used: %d\n", agents, minSec(r.Duration), retries)
	if r.RunID != "" {
		fmt.Fprintf(b, "- Run: %s\n", r.RunID)
	}
}

// writeSteps writes the Step-by-Step Results, a table of one row a step.
func writeSteps(b *strings.Builder, steps []*StepResult) {
	b.WriteString("\n### Step-by-Step Results\n\n| Step | Agent | Status | Duration | Retries | Output Size |\n|------|-------|--------|----------|---------|-------------|\n")
	for i, s := range steps {
		fmt.Fprintf(b, "| %d %s | %s | %s | %s | %d | %s |\n", i+1, cell(s.ID), cell(s.Agent), stepWord(s.Status),
			minSec(s.Duration), s.Retries, size(s.Size))
	}
}

// writeIssues writes Issues and Warnings: each step's notes and error,
// then the run's warnings, or None.
func writeIssues(b *strings.Builder, r *Result) {
	b.WriteString("\n### Issues and Warnings\n\n")
	n := 0
	for _, s := range r.Steps {
		for _, note := range s.Notes {
			fmt.Fprintf(b, "- %s: %s\n", s.ID, note)
			n++
		}
		if s.Error != "" {
			fmt.Fprintf(b, "- %s: %s\n", s.ID, s.Error)
			n++
		}
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "- %s\n", w)
		n++
	}
	if n == 0 {
		b.WriteString("- None\n")
	}
}

// cell makes s one GFM table cell: a | (a conditional's "gate → a | b")
// is escaped and line breaks become spaces, so a row keeps its columns.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

func statusWord(s string) string {
	switch s {
	case StatusOK:
		return "COMPLETE"
	case StatusPartial:
		return "PARTIAL"
	case StatusTimeout:
		return "FAILED (timeout)"
	case StatusCancelled:
		return "FAILED (cancelled)"
	}
	return "FAILED"
}

func stepWord(s string) string {
	switch s {
	case StepOK:
		return "SUCCESS"
	case StepMaxIterations:
		return "SUCCESS (max iterations)"
	case StepFallback:
		return "SUCCESS (fallback)"
	}
	return strings.ToUpper(s)
}

func minSec(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	s := int(d.Round(time.Second).Seconds())
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm %ds", s/60, s%60)
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%dB", n)
	}
	return fmt.Sprintf("%.1fKB", float64(n)/1024)
}
