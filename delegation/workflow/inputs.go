package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentry/agentry/delegation"
)

// MissingInputError names the required inputs nobody gave.
type MissingInputError struct{ Names []string }

func (e *MissingInputError) Error() string {
	return "missing required input: " + strings.Join(e.Names, ", ")
}

// ResolveInputs converts given values (text from --input, or JSON values
// from --inputs) to each input's type and applies defaults. Unknown names
// and values that do not fit their type are errors; missing required
// inputs come back as a *MissingInputError.
func ResolveInputs(wf *Workflow, given map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(wf.Inputs))
	declared := map[string]bool{}
	var missing []string
	for _, in := range wf.Inputs {
		declared[in.Name] = true
		v, ok := given[in.Name]
		if !ok {
			switch {
			case in.HasDefault:
				out[in.Name] = in.Default
			case in.Required:
				missing = append(missing, in.Name)
			default:
				out[in.Name] = nil
			}
			continue
		}
		cv, err := convert(in, v)
		if err != nil {
			return nil, err
		}
		out[in.Name] = cv
	}
	for name := range given {
		if !declared[name] {
			return nil, fmt.Errorf("input %q is not declared by workflow %s", name, wf.Name)
		}
	}
	if len(missing) > 0 {
		return nil, &MissingInputError{Names: missing}
	}
	return out, nil
}

func convert(in Input, v any) (any, error) {
	s, isText := v.(string)
	if !isText {
		return v, nil // a JSON value from --inputs is already typed
	}
	switch in.Type {
	case "number":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("input %s: %q is not a number", in.Name, s)
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("input %s: %q is not true or false", in.Name, s)
		}
		return b, nil
	case "json":
		var x any
		if err := json.Unmarshal([]byte(s), &x); err != nil {
			return nil, fmt.Errorf("input %s: not JSON: %v", in.Name, err)
		}
		return x, nil
	}
	return s, nil
}

// Run runs wf as a run of rt: the run's root span is invoke_workflow NAME
// and every step's agents are invocations of the same runtime. model, when
// set, overrides every agent's model (script:FILE, demo).
func Run(ctx context.Context, rt *delegation.Runtime, wf *Workflow, model string, opt Options) *Result {
	ex := Start(ctx, rt, wf, model, opt)
	<-ex.Done()
	return ex.Result()
}

// Execution is a workflow run going on in the background (Start). Its
// methods are safe for concurrent use.
type Execution struct {
	sess *delegation.Session
	done chan struct{}
	res  *Result
}

// RunID is the run's trace ID, known as soon as Start returns.
func (e *Execution) RunID() string { return e.sess.RunID() }

// Done is closed when the run has ended and its run record is final.
func (e *Execution) Done() <-chan struct{} { return e.done }

// Cancel stops every step of the run; it may be called more than once.
func (e *Execution) Cancel() { e.sess.Cancel() }

// Result is how the run ended; nil until Done is closed.
func (e *Execution) Result() *Result {
	select {
	case <-e.done:
		return e.res
	default:
		return nil
	}
}

// Start records a run of wf and runs it in the background, as Run does;
// cancelling ctx cancels the run. The web starts workflow runs this way, so
// it can send the browser to the run's timeline at once.
func Start(ctx context.Context, rt *delegation.Runtime, wf *Workflow, model string, opt Options) *Execution {
	task, _ := json.Marshal(opt.Inputs)
	sess, sctx := rt.StartSession(ctx, delegation.SessionRequest{Name: wf.Name, Task: string(task), Model: model, Tools: opt.Tools})
	ex := &Execution{sess: sess, done: make(chan struct{})}
	go func() {
		defer close(ex.done)
		stop := context.AfterFunc(ctx, sess.Cancel)
		defer stop()
		res := Execute(sctx, SessionHost{sess}, wf, opt)
		res.RunID = sess.RunID()
		sess.Finish(traceStatus(res.Status), Text(res.Final), res.Error)
		ex.res = res
	}()
	return ex
}
