// Package semconv is the vocabulary of agentry's spans: the attribute keys,
// event names and event attribute keys the runtime writes and the CLI, the
// UI, the exporters and the DESIGN §8 contract read. It is agentry's own
// semantic conventions, beside the OpenTelemetry GenAI ones that trace/otlp
// maps them to.
//
// It holds constants only and imports nothing, so every package that
// writes or reads spans, the trace domain included, can share one spelling
// of each name. A new attribute or event is added here, with a sentence
// saying where it is set and what its value means.
package semconv
