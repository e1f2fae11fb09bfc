package loop

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// Names of the tools the loop itself tells apart.
const (
	DelegateTool        = permissions.DelegateTool
	GetSkillTool        = "get_skill"
	DispatchAgentTool   = "dispatch_agent"
	GetAgentResultsTool = "get_agent_results"
)

// beginTurn starts model turn m.turn, or ends the invocation at its cap.
func (m *Machine) beginTurn() {
	if m.turn >= m.spec.MaxTurns {
		why := turnLimit(m.spec.MaxTurns, m.spec.LoopLimit)
		m.finish(Outcome{Status: trace.StatusLimit, Result: progress(m.conv, m.last, why, m.pending()), Error: why})
		return
	}
	m.attempt = 0
	m.askModel()
}

func (m *Machine) nextTurn() {
	m.turn++
	m.beginTurn()
}

// askModel makes the turn's next model call, once the budget allows it.
func (m *Machine) askModel() {
	if m.stop != nil {
		m.finish(*m.stop)
		return
	}
	if m.spec.AskBudget {
		m.ph = phBudget
		m.emit(Action{Kind: ActBudget})
		return
	}
	m.callModel()
}

func (m *Machine) callModel() {
	m.ph = phModel
	m.emit(Action{Kind: ActModel, Attempt: m.attempt, Retry: m.attempt+1 < m.spec.Attempts})
}

// onBudget: no model call starts once the run's budget is spent.
func (m *Machine) onBudget(why string) {
	if m.ph != phBudget {
		return
	}
	if why != "" {
		m.finish(Outcome{Status: trace.StatusLimit, Error: ErrBudget.Error() + ": " + why})
		return
	}
	m.callModel()
}

// onModelFailed retries a transient failure after its wait while attempts
// are left, and otherwise ends the invocation as the driver says.
func (m *Machine) onModelFailed(ev Event) {
	if m.ph != phModel {
		return
	}
	if ev.Transient && m.stop == nil && m.attempt+1 < m.spec.Attempts {
		m.ph = phSleep
		m.emit(Action{Kind: ActSleep, Wait: ev.Wait})
		return
	}
	m.finish(ev.Outcome)
}

func (m *Machine) onModel(resp *model.Response) {
	if m.ph != phModel {
		return
	}
	if resp.Text != "" {
		m.last = resp.Text
	}
	m.conv = append(m.conv, model.Message{Role: model.RoleAssistant, Content: resp.Text, ToolCalls: resp.ToolCalls})
	if len(resp.ToolCalls) == 0 {
		m.answer(resp.Text)
		return
	}
	m.runTurn(resp.ToolCalls)
}

// answer ends the invocation with a text answer, unless background agents
// it has not collected still run or ended unread: then it waits for them
// and gives the model their results for one more turn.
func (m *Machine) answer(text string) {
	m.waiting = append(m.waiting[:0], m.uncollected()...)
	if len(m.waiting) == 0 {
		m.finish(answered(text))
		return
	}
	m.waitFor(false, phLate)
}

// late gives the model the results it did not collect before answering.
func (m *Machine) late() {
	reps := make([]Report, 0, len(m.waiting))
	for _, j := range m.waiting {
		it := m.jobs[j]
		it.taken = true
		reps = append(reps, m.report(it))
	}
	m.conv = append(m.conv, model.Message{Role: model.RoleUser, Content: lateResults(reps)})
	m.nextTurn()
}

// runTurn runs a turn's tool calls under the caps: an orchestrator's last
// turn runs none, max_tool_calls and the ledger (ActCalls) may run fewer
// than asked. A cap that trips stops the invocation after the turn.
func (m *Machine) runTurn(calls []model.ToolCall) {
	m.calls = calls
	m.results = slices.Grow(m.results[:0], len(calls))[:len(calls)]
	clear(m.results)
	if why := loopLimitWhy(m.spec.MaxTurns, m.spec.LoopLimit, m.turn); why != "" {
		m.n, m.why = 0, why
		m.afterTools()
		return
	}
	n, why := toolCallCap(m.used, len(calls), m.spec.MaxToolCalls)
	m.n, m.why = n, why
	if m.spec.AskCalls && n > 0 {
		m.ph = phCalls
		m.emit(Action{Kind: ActCalls, N: n})
		return
	}
	m.execute(n, why)
}

// execute runs the first n calls: plain tools one by one in call order,
// then the async calls, then the delegate calls as one batch, then
// get_agent_results.
func (m *Machine) execute(n int, why string) {
	m.n, m.why = n, why
	m.used += n
	m.classify()
	m.next = 0
	m.nextTool()
}

// classify sorts the turn's calls that run into plain tools, async calls,
// the batch and get_agent_results; a parallel_streaming turn's delegate
// calls are async.
func (m *Machine) classify() {
	m.kinds = slices.Grow(m.kinds[:0], m.n)[:m.n]
	m.stream = m.streaming()
	for i, c := range m.calls[:m.n] {
		k := plain
		switch c.Name {
		case GetSkillTool, DispatchAgentTool:
			if m.spec.Dispatcher {
				k = async
			}
		case GetAgentResultsTool:
			if m.spec.Dispatcher || m.spec.Collects {
				k = collect
			}
		case DelegateTool:
			k = batched
			if m.stream || background(c.Args) {
				k = async
			}
		default:
			if m.spec.Hidden && slices.Contains(m.spec.Own, c.Name) {
				k = async
			}
		}
		m.kinds[i] = k
	}
}

// background reports whether a delegate call asks to run in the
// background. Most calls do not name the key, so they are not decoded
// twice.
func background(args []byte) bool {
	if !mayHaveKey(args, "background") {
		return false
	}
	var a struct {
		Background bool `json:"background"`
	}
	return json.Unmarshal(args, &a) == nil && a.Background
}

// streaming reports whether the turn's delegate calls stream: the batch's
// mode (the file's, or what the calls ask within it) is
// parallel_streaming and no call uses depends_on (a DAG runs as
// parallel). They then start in the background and the model hears each
// result as it lands.
func (m *Machine) streaming() bool {
	if m.spec.Execution != registry.ParallelStreaming {
		return false
	}
	var ds []Item
	for _, c := range m.calls[:m.n] {
		if c.Name != DelegateTool {
			continue
		}
		a, err := ParseDelegate(c)
		if len(a.DependsOn) > 0 || a.ID != "" && err != "" {
			return false
		}
		ds = append(ds, Item{Args: a, ArgErr: err})
	}
	return len(ds) > 0 && chooseExec(m.spec.Execution, ds).Mode == registry.ParallelStreaming
}

func (m *Machine) nextTool() {
	for m.next < m.n && m.kinds[m.next] != plain {
		m.next++
	}
	if m.next < m.n {
		m.ph = phTools
		m.emit(Action{Kind: ActTool, Index: m.next})
		return
	}
	m.startAsync()
}

func (m *Machine) onTool(ev Event) {
	switch m.ph {
	case phTools:
		m.results[ev.Index] = ev.Text
		m.next = ev.Index + 1
		m.nextTool()
	case phCollect:
		m.results[ev.Index] = ev.Text
		m.next = ev.Index + 1
		m.nextCollect()
	}
}

func (m *Machine) startAsync() {
	var idxs []int
	for i, k := range m.kinds {
		if k == async {
			idxs = append(idxs, i)
		}
	}
	if len(idxs) == 0 {
		m.startBatch()
		return
	}
	m.ph = phAsync
	m.emit(Action{Kind: ActAsync, Indexes: idxs, Stream: m.stream})
}

func (m *Machine) onAsync(ev Event) {
	if m.ph != phAsync {
		return
	}
	for i, kind := range m.kinds {
		if kind == async && i < len(ev.Results) {
			m.results[i] = ev.Results[i]
		}
	}
	m.addJobs(ev.Jobs)
	m.startBatch()
}

// startCollect answers the turn's get_agent_results calls in call order,
// after its other calls have started.
func (m *Machine) startCollect() {
	m.next = 0
	m.nextCollect()
}

func (m *Machine) nextCollect() {
	for m.next < m.n && m.kinds[m.next] != collect {
		m.next++
	}
	if m.next >= m.n {
		m.afterTools()
		return
	}
	i := m.next
	m.ph = phCollect
	m.emit(Action{Kind: ActOpenCall, Index: i})
	ids, ok := agentIDs(m.calls[i])
	if !ok {
		m.emit(Action{Kind: ActCollect, Index: i, Bad: true})
		return
	}
	m.waiting, m.unknown = m.waiting[:0], m.unknown[:0]
	if len(ids) == 0 {
		m.waiting = append(m.waiting, m.uncollected()...)
	}
	for _, id := range ids {
		if j := m.jobNumber(id); j >= 0 {
			m.waiting = append(m.waiting, j)
		} else {
			m.unknown = append(m.unknown, unknownAgent(id))
		}
	}
	if len(m.waiting) > 0 {
		m.waitFor(false, phCollectWait)
		return
	}
	m.collectNow()
}

// collectNow answers the get_agent_results call under way with the
// reports of the agents it waited for, as they stand.
func (m *Machine) collectNow() {
	reps := make([]Report, 0, len(m.waiting)+len(m.unknown))
	for _, j := range m.waiting {
		it := m.jobs[j]
		r := m.report(it)
		it.taken = it.taken || r.Status != ReportRunning
		reps = append(reps, r)
	}
	reps = append(reps, m.unknown...)
	m.ph = phCollect
	m.emit(Action{Kind: ActCollect, Index: m.next, Reports: reps})
}

// afterTools ends the turn's tool calls: a cap that tripped is recorded,
// a stopped run ends here, the results join the conversation (a call the
// cap kept from running says so), and a tripped cap ends the invocation
// with the work so far.
func (m *Machine) afterTools() {
	if m.why != "" {
		m.emit(Action{Kind: ActLimit, Why: m.why})
	}
	if m.stop != nil {
		m.finish(*m.stop)
		return
	}
	m.conv = slices.Grow(m.conv, len(m.calls)) // a result per call: a fan-out's grow at once
	for i, c := range m.calls {
		out := notRunPrefix + m.why
		if i < m.n {
			out = m.results[i]
		}
		m.conv = append(m.conv, model.Message{Role: model.RoleTool, ToolCallID: c.ID, Content: out})
	}
	if m.why != "" {
		m.finish(Outcome{Status: trace.StatusLimit, Result: progress(m.conv, m.last, m.why, m.pending()), Error: m.why})
		return
	}
	m.landing()
}

// landing gives the model, after a turn, every streamed result landed so
// far and names those still running. After a turn whose calls were all
// streamed delegations it has nothing to read yet, so it first waits for
// the next result to land.
func (m *Machine) landing() {
	m.waiting = append(m.waiting[:0], m.streamed()...)
	if len(m.waiting) == 0 {
		m.nextTurn()
		return
	}
	if m.stream && onlyDelegates(m.calls) && !m.anyDone(m.waiting) {
		m.waitFor(true, phLanding)
		return
	}
	m.land()
}

func (m *Machine) land() {
	var landed []Report
	var running []string
	for _, j := range m.streamed() {
		it := m.jobs[j]
		if !it.done {
			running = append(running, it.Job.ID+" ("+it.Job.Agent+")")
			continue
		}
		it.taken = true
		landed = append(landed, m.report(it))
	}
	if msg := landedMessage(landed, running); msg != "" {
		m.conv = append(m.conv, model.Message{Role: model.RoleUser, Content: msg})
	}
	m.nextTurn()
}

func onlyDelegates(calls []model.ToolCall) bool {
	for _, c := range calls {
		if c.Name != DelegateTool {
			return false
		}
	}
	return len(calls) > 0
}

// waitFor waits for the background agents m.waiting names (all of them,
// or anyOf), its
// run-wide slot given up meanwhile so a cap of one cannot deadlock the
// dispatcher and its agents, then goes on in phase then.
func (m *Machine) waitFor(anyOf bool, then phase) {
	m.anyOf = anyOf
	m.ph = then
	m.emit(Action{Kind: ActRelease})
	m.checkWait()
}

// checkWait ends the wait under way once it is over (or the run stopped).
func (m *Machine) checkWait() {
	if m.ph != phCollectWait && m.ph != phLate && m.ph != phLanding {
		return
	}
	over := !m.anyOf
	for _, j := range m.waiting {
		if m.jobs[j].done == m.anyOf {
			over = m.anyOf
			break
		}
	}
	if over || m.stop != nil {
		m.endWait()
	}
}

func (m *Machine) endWait() {
	m.then, m.ph = m.ph, phSlotBack
	m.emit(Action{Kind: ActAcquire})
}

// resume goes on after the invocation took its run-wide slot back.
func (m *Machine) resume() {
	switch m.then {
	case phBatch:
		m.startCollect()
	case phCollectWait:
		m.collectNow()
	case phLate:
		m.late()
	case phLanding:
		m.land()
	}
}

// ParseDelegate reads a delegate call's arguments: a non-empty second
// result says why they cannot be used.
func ParseDelegate(c model.ToolCall) (DelegateArgs, string) {
	var a DelegateArgs
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return a, "arguments are not a valid delegate call: " + err.Error()
	}
	if a.Agent == "" || strings.TrimSpace(a.Task) == "" {
		return a, "arguments need agent and task"
	}
	return a, ""
}

// agentIDs reads a get_agent_results call's agent_ids (none: every agent
// whose result the model has not had); false when the arguments are bad.
func agentIDs(c model.ToolCall) ([]string, bool) {
	var args struct {
		AgentIDs []string `json:"agent_ids"`
	}
	if len(c.Args) > 0 && json.Unmarshal(c.Args, &args) != nil {
		return nil, false
	}
	return args.AgentIDs, true
}
