// Package prometheus derives agentry's Prometheus metrics at the edge of
// the runtime, from what a run already reports: the stream of run and span
// records every run writes (Metrics.Sink, teed beside the trace recorder)
// and the trace store's writes (Metrics.Applier wraps the store the
// recorder writes to). The runtime itself keeps no counters, so the
// in-process and the Temporal engine are measured alike, and a metric
// cannot disagree with the trace it was derived from.
//
// Names are agentry_<noun>_<unit>; labels take bounded values only: a
// status (one of trace.Statuses, else "other"), a model name (the first
// MaxModels distinct ones, the rest "other"), a token direction. Run ids,
// agent names and tool names are never labels.
//
//	agentry_runs_started_total                   runs this process started
//	agentry_runs_ended_total{status}             runs that ended, by final status
//	agentry_runs_running                         runs started here and not ended
//	agentry_delegations_total{status}            ended delegations by delegation_status
//	agentry_model_calls_total{model,status}      ended chat spans
//	agentry_model_tokens_total{model,direction}  input and output tokens of chat spans
//	agentry_model_cost_usd_total{model}          priced chat spans' cost (docs/cost.md)
//	agentry_tool_call_duration_seconds{status}   tool calls other than delegations
//	agentry_delegation_queue_depth               delegations waiting for the run-wide cap
//	agentry_store_write_duration_seconds         one Apply of the trace store
//	agentry_store_write_errors_total             Applies that failed
//
// The server adds gauges read at scrape time (agentry_approvals_pending,
// agentry_registry_reloads_total, agentry_registry_errors) through
// Metrics.GaugeFunc and Metrics.CounterFunc, and the Go runtime's and the
// process's standard collectors.
package prometheus
