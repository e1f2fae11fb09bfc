// Package webfetch is the built-in `web.fetch` tool: an HTTP GET whose answer
// is capped in size and time, so one large or slow page cannot flood a model's
// context or hang an agent.
//
// It reaches only the public internet unless configured otherwise: its
// client dials through a netguard.Guard, which checks the address of every
// connection, redirects included (see package netguard).
package webfetch
