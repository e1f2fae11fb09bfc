// Package httpapi holds the rules the HTTP model providers (model/openai,
// model/anthropic) share, so that both behave the same way: what a failure
// means to the delegation runtime — worth retrying (a *model.TransientError
// carrying the server's requested wait) or final (an *APIError with the
// provider's own message) — and when a base URL is a local server that needs
// no API key. Neither provider lets its SDK retry behind the runtime's back;
// these rules are why that is safe.
package httpapi
