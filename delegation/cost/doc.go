// Package cost prices model calls: a table of USD per million tokens per
// model (input, output, cached input), shipped with list prices of common
// models and overridable from config (`prices:`).
//
// Prices are looked up by the model spec the runtime resolved
// ("anthropic:claude-sonnet-4-5"), then by the bare model id
// ("claude-sonnet-4-5"), then by the id without a date suffix
// ("claude-sonnet-4-5-20250929" → "claude-sonnet-4-5"), so an override can
// be as specific as one provider's model or as broad as a model id. A model
// without a price gets no cost at all, never a guessed one: local models
// (demo, script:, Ollama) are free or unknown, and a wrong figure is worse
// than none.
//
// Cached input tokens are the part of the input read from the provider's
// prompt cache; they are priced at cached_input, the rest of the input at
// input. Anthropic's cache writes are counted as plain input (they cost
// 1.25× input there): a small underestimate, written down here.
package cost
