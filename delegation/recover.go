package delegation

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// PanicError is a panic in a tool, a model or the runtime's own goroutines,
// turned into an error so that one bad tool or provider fails only the span
// it ran in: the run, its other branches and the process go on.
type PanicError struct {
	// Where names what panicked ("tool web.fetch", "model demo").
	Where string
	// Value is the panic value as text.
	Value string
	// Stack is a short stack of the panicking goroutine (innermost first,
	// at most panicFrames frames), for the span's panic_stack attribute.
	Stack string
}

func (e *PanicError) Error() string { return fmt.Sprintf("%s panicked: %s", e.Where, e.Value) }

// Span attributes of a span whose work panicked.
const (
	AttrPanic      = "panic"       // the panic value as text
	AttrPanicStack = "panic_stack" // a short stack, innermost frame first
)

// panicFrames bounds the stack kept on a span: enough to find the culprit,
// small enough for a timeline's detail pane.
const panicFrames = 8

// recovered turns a recovered panic value into a *PanicError; call it only
// from the deferred function that called recover, so the stack is the
// panicking goroutine's.
func recovered(where string, v any) *PanicError {
	return &PanicError{Where: where, Value: fmt.Sprint(v), Stack: shortStack()}
}

// shortStack formats the frames below the panic: runtime frames (gopanic and
// the deferred calls) and this file's helpers are left out.
func shortStack() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var b strings.Builder
	kept, seenPanic := 0, false
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "runtime.") {
			seenPanic = seenPanic || f.Function == "runtime.gopanic" || strings.HasPrefix(f.Function, "runtime.panic")
		} else if seenPanic && kept < panicFrames {
			fmt.Fprintf(&b, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
			kept++
		}
		if !more || kept == panicFrames {
			break
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// panicAttrs are the span attributes for err when it is (or wraps) a
// *PanicError, else nil.
func panicAttrs(err error) map[string]any {
	var pe *PanicError
	if !errors.As(err, &pe) {
		return nil
	}
	return map[string]any{AttrPanic: pe.Value, AttrPanicStack: pe.Stack}
}
