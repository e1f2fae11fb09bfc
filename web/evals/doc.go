// Package evals is the web UI's Evals page family (docs/evals.md): the
// suites of the evals folder with their latest results; one suite's evals
// newest first; a comparison of two evals (two versions of the agent):
// pass rate, each case passed or failed and why, tokens, cost and latency,
// with a link to the two runs of a case side by side (web/rundiff); and
// the form behind the run page's "Add this run as an eval case", which
// appends the case to a suite file through the folder's save.
package evals
