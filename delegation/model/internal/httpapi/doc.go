// Package httpapi holds the rules the HTTP model providers (model/openai,
// model/anthropic) share, so that both behave the same way: the steps of a
// turn (Generate: tools under wire names, the provider's request, its
// answer read back); what a failure means to the delegation runtime — worth
// retrying (a *model.TransientError carrying the server's requested wait)
// or final (an *APIError with the provider's own message), decided from the
// raw response that Generate has the SDK keep; how a call carries its trace
// (the traceparent header); and when a base URL is a local server that
// needs no API key. Neither provider lets its SDK retry behind the
// runtime's back; these rules are why that is safe.
package httpapi
