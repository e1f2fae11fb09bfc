// Package modeltest is the contract every model provider passes, run by
// each provider's own tests, so what the runtime relies on is tested once
// and the same way for all of them: Run for every model.LLM (openai,
// anthropic, demo, script), RunHTTP for the providers that call an HTTP
// API (openai, anthropic) against the local fake API of
// model/internal/fakeapi. What is particular to one provider (the request
// it sends, compared with golden files; how it reads its API's answers and
// errors) stays in that provider's tests.
package modeltest
