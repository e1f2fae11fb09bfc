// Package webfetch is the built-in `web.fetch` tool: an HTTP GET whose answer
// is capped in size and time, so one large or slow page cannot flood a model's
// context or hang an agent.
package webfetch
