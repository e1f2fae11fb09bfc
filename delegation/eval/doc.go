// Package eval runs evaluation suites: the cases of an evals/*.yaml file,
// each a run of an agent or workflow whose output, trajectory and spending
// are checked against the case's expectations (docs/evals.md).
//
// It lives under delegation because it runs agents: a suite's cases are
// runs of the same runtime, with the same permissions, limits and traces,
// started in parallel (Options.Parallel at once) and recorded as ordinary
// runs; the eval is stored beside them (trace.EvalStore) with the versions
// of every agent the cases invoked.
//
// Decisions:
//
//   - A suite parses strictly: an unknown key, a value of the wrong kind,
//     a bad regex or a JSON Schema that does not compile is an error naming
//     the file and line, before anything runs. It is decoded by
//     registry/yamlstruct, as agent and workflow files are, so its messages
//     read the same ("unknown key cases[0].expct (expected name, ...)");
//     scalars by their text, as in workflow files.
//   - A case's own script: turns play every agent of its run (and the
//     rubric's judge), so a suite runs offline and deterministically; the
//     suite's model: is the default for cases without turns.
//   - A run that does not end ok fails its case unless the case expects
//     that status (status: error).
//   - The trajectory score is ADK's tool_trajectory_avg_score with partial
//     credit: order exact scores the longest common subsequence over the
//     longer list (1 only for the same list), in_order the expected calls
//     found in order, any the expected calls found at all (a multiset);
//     the case passes at min_score (default 1).
//   - A rubric is judged by a model asked for {"pass", "reasoning"}; its
//     answer and reasoning are kept with the case, and a judge that does
//     not answer in that shape fails the check with what it said.
package eval
