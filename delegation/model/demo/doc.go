// Package demo is the offline default model: deterministic and plausible, so a
// new user sees real-looking timelines without a key or a network.
//
// An agent that is offered the delegate tool hands a part of its task to each
// agent the tool lists (in one turn, so the runtime's execution mode decides
// whether they run in parallel) and then sums up their results; any other
// agent answers in a few sentences. Latency and token counts are simulated
// from the text, so the same input always gives the same timeline shape.
package demo
