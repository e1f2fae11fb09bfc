// Package collectortest holds the tests of trace/otlp that run the
// OpenTelemetry Collector's own OTLP receiver. It is a module of its own so
// the Collector's dependencies stay out of agentry's go.mod; see
// trace/otlp's doc.go.
package collectortest
