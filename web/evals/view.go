package evals

// ListView is the Evals page: every suite.
type ListView struct {
	Off    bool // no evals folder
	Suites []SuiteRow
}

// SuiteRow is one suite file and its latest eval.
type SuiteRow struct {
	Name, Path   string
	Target, Kind string
	Cases        int
	Problem      string // why the file does not parse
	Latest       *EvalRow
}

// EvalRow is one eval's totals.
type EvalRow struct {
	ID, Label, Version, When string
	Passed, Failed           int
	Rate                     string // pass rate, "75%"
}

// SuiteView is one suite's page.
type SuiteView struct {
	Name, Path, Target, Kind string
	Problem                  string // why the file does not parse
	Added                    string // a case was just added
	Evals                    []EvalRow
	Latest                   []CaseRow // the newest eval's cases
}

// CaseRow is one case of an eval.
type CaseRow struct {
	Name     string
	Passed   bool
	RunID    string
	Failures []string
	Tokens   int64
	Cost     string
	Latency  string
	Judge    string // the rubric judge's answer and reasoning
}

// CompareView is two evals of a suite, case by case.
type CompareView struct {
	Suite        string
	A, B         EvalRow
	Cases        []CompareRow
	Broke, Fixed int
}

// CompareRow is one case in both evals.
type CompareRow struct {
	Name   string
	A, B   *CaseRow // nil when the eval has no such case
	Change string   // broke, fixed, same, new, gone
}

// Traces is the run diff of the case's two runs, "" when one is missing.
func (r CompareRow) Traces() string {
	if r.A == nil || r.B == nil || r.A.RunID == "" || r.B.RunID == "" {
		return ""
	}
	return "/runs/" + r.A.RunID + "/diff/" + r.B.RunID
}

// CaseForm is the form that adds a run as an eval case.
type CaseForm struct {
	RunID        string
	Kind, Target string
	Suite        string   // the suite chosen (or to create)
	Suites       []string // the suites of the run's target
	Name         string
	YAML         string
	CanSave      bool
	Problem      string
	CSRF         string
}
