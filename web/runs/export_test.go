package runs

// Fixtures of the internal tests, exported for the tests of this folder that
// drive the whole server (package runs_test, which can import web).
var (
	T0            = t0
	Ms            = ms
	FanOut        = fanOut
	FailedChain   = failedChain
	BigRun        = bigRun
	DeepChain     = deepChain
	NewFakeRunner = newFakeRunner
)

// FakeRunner is the hand-written Runner of the tests.
type FakeRunner = fakeRunner

// PageSize is how many runs the list shows per page.
const PageSize = runsPageSize

// Started is what the fake runner was asked to start, in order.
func (f *fakeRunner) Started() []RunRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]RunRequest(nil), f.started...)
}
