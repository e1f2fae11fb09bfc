package approval_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace/approval"
)

// TestAPendingApprovalHasNoDecisionTime: a call still waiting says nothing
// about when it was decided, rather than "0001-01-01T00:00:00Z".
func TestAPendingApprovalHasNoDecisionTime(t *testing.T) {
	a := approval.Approval{ID: "a1", Status: approval.Pending, RequestedAt: time.Now()}
	raw, err := json.Marshal(a)
	if err != nil || strings.Contains(string(raw), "decided_at") {
		t.Errorf("pending: %s %v", raw, err)
	}
	a.Status, a.DecidedAt = approval.Approved, time.Now()
	if raw, _ := json.Marshal(a); !strings.Contains(string(raw), `"decided_at":"`) {
		t.Errorf("answered: %s", raw)
	}
}
