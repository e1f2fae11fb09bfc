// Package orchestrator is what an orchestrator conversation (seed 001)
// adds to the loop: dispatch_agent and its plan (arguments, skills,
// depends_on, cycles), get_skill, the ad-hoc agents it starts, the limit
// hierarchy (Limits), the conversation's sliding window of tool calls and
// the circuit breakers of its tools. Everything here is plain rules over
// plain data: the runtime (package delegation) records the spans, and the
// loop (package loop) runs the background agents a plan starts.
package orchestrator
