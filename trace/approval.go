package trace

import (
	"context"
	"errors"
	"time"
)

// ApprovalStatus is where a request for a person's approval stands.
type ApprovalStatus string

// Approval statuses. Pending is the only one that changes.
const (
	ApprovalPending  ApprovalStatus = "pending"
	ApprovalApproved ApprovalStatus = "approved"
	ApprovalDenied   ApprovalStatus = "denied"
)

// Approval is one call that waits, or waited, for a person's answer: a tool
// call or a delegation whose permission verdict was ask (DESIGN §10).
type Approval struct {
	ID    string `json:"id"`
	RunID string `json:"run_id"`
	// SpanID is the execute_tool span of the call that waits.
	SpanID string `json:"span_id"`
	Agent  string `json:"agent"` // the agent making the call
	Tool   string `json:"tool"`  // the tool, "delegate" for a delegation
	// Subject is what "approve for this run" covers: the tool's name, or
	// "delegate:AGENT" for a delegation to AGENT.
	Subject   string `json:"subject"`
	Arguments string `json:"arguments"` // the call's arguments, as the model wrote them
	// Reason is why the call asks: the permission decision's reason, which
	// names the level and the ask pattern.
	Reason      string         `json:"reason"`
	Status      ApprovalStatus `json:"status"`
	RequestedAt time.Time      `json:"requested_at"`
	// DecidedAt, DecidedBy, ForRun and Note are set once it is answered:
	// when, by whom ("web", "cli", "terminal", "timeout", ...), whether the
	// approval covers every later call of Subject in the run, and the
	// reason the person gave (a denial's reason reaches the model).
	DecidedAt time.Time `json:"decided_at"`
	DecidedBy string    `json:"decided_by,omitempty"`
	ForRun    bool      `json:"for_run,omitempty"`
	Note      string    `json:"note,omitempty"`
}

// Answer is a person's (or a timeout's) answer to an Approval.
type Answer struct {
	Approve bool
	ForRun  bool // approve every later call of the same subject in this run
	By      string
	Note    string
	At      time.Time
}

// ApprovalFilter selects approvals for ApprovalStore.Approvals. Zero fields do
// not filter.
type ApprovalFilter struct {
	RunID  string
	Status ApprovalStatus
	Limit  int // 0 means DefaultLimit, capped at MaxLimit
}

// ApprovalStore keeps approvals where every process on the same database
// sees them: a CLI run waits on a row that a `serve` or `agentry approvals`
// answers. Implementations are safe for concurrent use, by several
// processes too; tracetest.RunApprovalTests is their contract.
type ApprovalStore interface {
	// RequestApproval records a pending approval. An approval without ID or
	// RunID is rejected with ErrInvalid; an ID already used, with ErrConflict.
	RequestApproval(ctx context.Context, a Approval) error
	// DecideApproval answers a pending approval and returns it as stored.
	// An unknown ID is ErrNotFound; one already answered returns the stored
	// answer with ErrDecided, so the first answer always wins.
	DecideApproval(ctx context.Context, id string, ans Answer) (Approval, error)
	// Approval returns one approval, or ErrNotFound.
	Approval(ctx context.Context, id string) (Approval, error)
	// Approvals lists approvals matching f: pending ones first, oldest
	// first (the order to answer them in), then answered ones, newest first.
	Approvals(ctx context.Context, f ApprovalFilter) ([]Approval, error)
	// PendingApprovals counts the approvals waiting for an answer, for the
	// UI's badge.
	PendingApprovals(ctx context.Context) (int, error)
}

// Errors of an ApprovalStore.
var (
	ErrDecided  = errors.New("approval already decided")
	ErrConflict = errors.New("already exists")
)

// CheckApproval is the validation every ApprovalStore applies to a request.
func CheckApproval(a Approval) error {
	if a.ID == "" || a.RunID == "" {
		return errors.Join(ErrInvalid, errors.New("an approval needs an id and a run id"))
	}
	return nil
}

// Decided is a with ans applied, as stores record it.
func (a Approval) Decided(ans Answer) Approval {
	a.Status = ApprovalDenied
	if ans.Approve {
		a.Status = ApprovalApproved
	}
	a.DecidedAt, a.DecidedBy, a.ForRun, a.Note = ans.At.UTC(), ans.By, ans.Approve && ans.ForRun, ans.Note
	return a
}

// Names of the approval events on a waiting call's span.
const (
	// EventApprovalRequested is on the span of a call that waits for a
	// person's answer: EventAttrApprovalID, EventAttrReason (why it asks).
	EventApprovalRequested = "approval_requested"
	// EventApproval is the answer: EventAttrVerdict (approved | denied),
	// EventAttrDecidedBy, EventAttrForRun, EventAttrReason (the person's
	// note), at the time it was decided.
	EventApproval = "approval"

	EventAttrApprovalID = "approval_id"
	EventAttrDecidedBy  = "decided_by"
	EventAttrForRun     = "for_run"
	EventAttrAsk        = "ask" // the permission reason on a request
)
