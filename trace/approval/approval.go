package approval

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/agentry/agentry/trace"
)

// Status is where a request for a person's approval stands.
type Status string

// Approval statuses. Pending is the only one that changes.
const (
	Pending  Status = "pending"
	Approved Status = "approved"
	Denied   Status = "denied"
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
	Reason      string    `json:"reason"`
	Status      Status    `json:"status"`
	RequestedAt time.Time `json:"requested_at"`
	// DecidedAt, DecidedBy, ForRun and Note are set once it is answered:
	// when, by whom ("web", "cli", "terminal", "timeout", ...), whether the
	// approval covers every later call of Subject in the run, and the
	// reason the person gave (a denial's reason reaches the model).
	DecidedAt time.Time `json:"decided_at,omitzero"`
	DecidedBy string    `json:"decided_by,omitempty"`
	ForRun    bool      `json:"for_run,omitempty"`
	Note      string    `json:"note,omitempty"`
	// Secret is the request's secret (NewSecret), stored with the
	// pending row and kept by the process that waits; Seal is the
	// decision's HMAC under it (Decided). Neither is ever shown or
	// exported. Only agentry's own processes, through a store, write a
	// decision that carries the seal: a row changed around the store (an
	// UPDATE by a command that reached the database) does not count
	// (Checked, Confirms; DESIGN §12).
	Secret string `json:"-"`
	Seal   string `json:"-"`
}

// Answer is a person's (or a timeout's) answer to an Approval.
type Answer struct {
	Approve bool
	ForRun  bool // approve every later call of the same subject in this run
	By      string
	Note    string
	At      time.Time
}

// Filter selects approvals for Store.Approvals. Zero fields do not filter.
type Filter struct {
	RunID  string
	Status Status
	Limit  int // 0 means trace.DefaultLimit, capped at trace.MaxLimit
}

// Store keeps approvals where every process on the same database
// sees them: a CLI run waits on a row that a `serve` or `agentry approvals`
// answers. Implementations are safe for concurrent use, by several
// processes too; tracetest.RunApprovalTests is their contract.
type Store interface {
	// RequestApproval records a pending approval, its Secret included. An
	// approval without ID or RunID is rejected with trace.ErrInvalid; an ID
	// already used, with ErrConflict.
	RequestApproval(ctx context.Context, a Approval) error
	// DecideApproval answers a pending approval, sealed with its secret
	// (Approval.Decided), and returns it as stored. An unknown ID is
	// trace.ErrNotFound; one already answered returns the stored answer with
	// ErrDecided, so the first answer always wins. A decision that does
	// not carry its seal (Approval.Checked) is no answer and is replaced.
	DecideApproval(ctx context.Context, id string, ans Answer) (Approval, error)
	// Approval returns one approval, Checked, or trace.ErrNotFound. Approvals
	// and Approval return rows with their Secret and Seal, which callers
	// must not show.
	Approval(ctx context.Context, id string) (Approval, error)
	// Approvals lists approvals matching f: pending ones first, oldest
	// first (the order to answer them in), then answered ones, newest first.
	Approvals(ctx context.Context, f Filter) ([]Approval, error)
	// PendingApprovals counts the approvals waiting for an answer, for the
	// UI's badge.
	PendingApprovals(ctx context.Context) (int, error)
}

// Errors of a Store.
var (
	ErrDecided  = errors.New("approval already decided")
	ErrConflict = errors.New("already exists")
)

// Check is the validation every Store applies to a request.
func Check(a Approval) error {
	if a.ID == "" || a.RunID == "" {
		return errors.Join(trace.ErrInvalid, errors.New("an approval needs an id and a run id"))
	}
	return nil
}

// Decided is a with ans applied, as stores record it, sealed with a's
// secret.
func (a Approval) Decided(ans Answer) Approval {
	a.Status = Denied
	if ans.Approve {
		a.Status = Approved
	}
	a.DecidedAt, a.DecidedBy, a.ForRun, a.Note = ans.At.UTC(), ans.By, ans.Approve && ans.ForRun, ans.Note
	a.Seal = a.seal()
	return a
}

// NewSecret returns a fresh random secret for a request.
func NewSecret() string {
	return rand.Text()
}

// seal is the HMAC of a's request and decision under its secret; "" for
// a request made without one (rows written before seals existed).
func (a Approval) seal() string {
	if a.Secret == "" {
		return ""
	}
	mac := hmac.New(sha256.New, []byte(a.Secret))
	for _, f := range []string{a.ID, a.RunID, a.SpanID, a.Tool, a.Subject, a.Arguments, string(a.Status), a.DecidedBy,
		strconv.FormatBool(a.ForRun), a.Note, strconv.FormatInt(a.DecidedAt.UnixNano(), 10)} {
		mac.Write([]byte(strconv.Itoa(len(f)) + ":" + f))
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// Confirms reports whether stored, the row read back for the request a
// (which holds the secret it was made with), carries a decision sealed for
// exactly that request with that secret: a decision agentry wrote. A row
// whose decision, arguments or secret were changed by anything else does
// not confirm it.
func (a Approval) Confirms(stored Approval) bool {
	d := a
	d.Status, d.DecidedAt, d.DecidedBy, d.ForRun, d.Note = stored.Status, stored.DecidedAt, stored.DecidedBy, stored.ForRun, stored.Note
	return d.Status != Pending && d.Secret != "" && hmac.Equal([]byte(stored.Seal), []byte(d.seal()))
}

// Checked is a row as a store returns it: a decision that does not carry
// the seal of the row's own secret was written around the store, so the
// row reads as still pending (and a person's answer may replace it). Rows
// written before seals existed have no secret and are taken as they are.
func (a Approval) Checked() Approval {
	if a.Status == Pending || a.Secret == "" || a.Confirms(a) {
		return a
	}
	a.Status, a.DecidedAt, a.DecidedBy, a.ForRun, a.Note, a.Seal = Pending, time.Time{}, "", false, "", ""
	return a
}
