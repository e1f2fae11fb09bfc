package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/postgres"
	"github.com/agentry/agentry/trace/semconv"
)

// tracesCommand lists, shows, exports and imports recorded runs.
// Exit 0: done; 1: run not found, unreadable database or bad input; 2: usage.
func tracesCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("traces")
	asJSON := fs.Bool("json", false, "print JSON (list: an array of runs; show: the run document)")
	toOTLP := fs.Bool("otlp", false, "export: send the run to the OTLP collector (otel: or OTEL_EXPORTER_OTLP_ENDPOINT) instead of printing it")
	var f trace.RunFilter
	fs.StringVar(&f.Agent, "agent", "", "list: only runs of this root `AGENT`")
	status := fs.String("status", "", "list: only runs with this `STATUS` (ok, error, running, interrupted, ...)")
	fs.StringVar(&f.Text, "text", "", "list: only runs whose task or result contains this `TEXT`")
	since := fs.Duration("since", 0, "list: only runs started within this long `AGO`, e.g. 24h")
	fs.IntVar(&f.Limit, "limit", 50, "list: how many runs to show (`N`), newest first")
	rest, code, ok := s.parse(fs, args)
	if !ok {
		return code
	}
	if st := trace.Status(*status); st != "" && !st.IsKnown() {
		return s.usageError(fs, "unknown status %q (%s)", st, knownStatuses())
	}
	sub, operands := "list", rest
	if len(rest) > 0 {
		sub, operands = rest[0], rest[1:]
	}
	want := map[string]string{"list": "", "show": "RUN_ID", "export": "RUN_ID", "import": "FILE"}
	operand, known := want[sub]
	switch {
	case !known:
		return s.usageError(fs, "unknown subcommand %q%s", sub, didYouMean(sub, []string{"list", "show", "export", "import"}, ""))
	case operand == "" && len(operands) > 0:
		return s.usageError(fs, "traces %s takes no arguments, got %q", sub, strings.Join(operands, " "))
	case operand != "" && len(operands) != 1:
		return s.usageError(fs, "traces %s needs exactly one %s", sub, operand)
	}
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	if sub != "import" && !postgres.IsURL(cfg.DB) {
		if _, err := os.Stat(cfg.DB); errors.Is(err, os.ErrNotExist) {
			return s.tracesNoDB(sub, cfg.DB, *asJSON)
		}
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		return s.fail(err)
	}
	defer store.Close()
	switch sub {
	case "show":
		return s.tracesShow(ctx, store, operands[0], *asJSON)
	case "export":
		if *toOTLP {
			return s.tracesExportOTLP(ctx, store, cfg, operands[0])
		}
		return s.tracesShow(ctx, store, operands[0], true)
	case "import":
		return s.tracesImport(ctx, store, operands[0])
	}
	f.Status = trace.Status(*status)
	if *since > 0 {
		f.Since = time.Now().Add(-*since)
	}
	return s.tracesList(ctx, store, f, *asJSON)
}

// knownStatuses lists the statuses --status accepts, comma-separated.
func knownStatuses() string {
	names := make([]string, 0, 8)
	for _, st := range trace.Statuses() {
		names = append(names, string(st))
	}
	return strings.Join(names, ", ")
}

// tracesNoDB answers a read when no database exists yet: an empty list, or
// "not found" for a run, without creating the file.
func (s *session) tracesNoDB(sub, path string, asJSON bool) int {
	if sub != "list" {
		return s.fail(fmt.Errorf("no trace database at %s, so no such run", path))
	}
	if asJSON {
		fmt.Fprintln(s.stdout, "[]")
	} else {
		fmt.Fprintf(s.stderr, "no runs recorded yet (no trace database at %s)\n", path)
	}
	return 0
}

func (s *session) tracesList(ctx context.Context, store trace.Store, f trace.RunFilter, asJSON bool) int {
	page, err := store.Runs(ctx, f)
	if err != nil {
		return s.fail(err)
	}
	if asJSON {
		runs := page.Runs
		if runs == nil {
			runs = []trace.Run{}
		}
		return s.tracesWriteJSON(runs)
	}
	if len(page.Runs) == 0 {
		fmt.Fprintln(s.stderr, "no runs match")
		return 0
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tDURATION\tSTATUS\tAGENT\tTASK")
	for _, r := range page.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.StartedAt.Local().Format("2006-01-02 15:04:05"),
			traceDuration(r.StartedAt, r.EndedAt), r.Status, r.Agent, traceLine(r.Task, 60))
	}
	tw.Flush()
	if page.More {
		fmt.Fprintf(s.stderr, "more runs match; use --limit or filters to see them\n")
	}
	return 0
}

// tracesShow prints one run: its document as JSON, or a readable tree.
func (s *session) tracesShow(ctx context.Context, store trace.Store, id string, asJSON bool) int {
	doc, err := store.Export(ctx, id)
	if err != nil {
		return s.fail(err)
	}
	if asJSON {
		return s.tracesWriteJSON(doc)
	}
	rollup, err := store.Rollup(ctx, id)
	if err != nil {
		return s.fail(err)
	}
	printRunTree(s.stdout, doc, rollup)
	return 0
}

func (s *session) tracesImport(ctx context.Context, store trace.Store, path string) int {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(s.stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return s.fail(fmt.Errorf("import: %w", err))
	}
	var doc trace.Document
	if err := json.Unmarshal(b, &doc); err != nil {
		return s.fail(fmt.Errorf("import %s: not a trace document: %w", path, err))
	}
	id, err := store.Import(ctx, doc)
	if err != nil {
		return s.fail(fmt.Errorf("import %s: %w", path, err))
	}
	fmt.Fprintln(s.stdout, id)
	return 0
}

func (s *session) tracesWriteJSON(v any) int {
	enc := json.NewEncoder(s.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return s.fail(err)
	}
	return 0
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

// traceLine puts text on one line and cuts it to about n runes.
func traceLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
