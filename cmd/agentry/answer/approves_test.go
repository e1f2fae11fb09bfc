package answer

import (
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/trace/approval"
)

func TestApprovePatternsCoverToolsCommandsAndDelegations(t *testing.T) {
	shell := func(cmd string) approval.Approval {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return approval.Approval{Tool: "shell.run", Subject: "shell.run", Arguments: string(args)}
	}
	deleg := approval.Approval{Tool: "delegate", Subject: "delegate:deployer", Arguments: `{"agent":"deployer","task":"ship"}`}
	tests := []struct {
		pattern string
		call    approval.Approval
		want    bool
	}{
		{"shell.run", shell("rm -rf build"), true},
		{"shell", shell("ls"), true},
		{"shell.run(git *)", shell("git push origin main"), true},
		{"shell.run(git *)", shell("git add . && rm -rf /"), false},
		{"filesystem.write_file", shell("ls"), false},
		{"delegate:deploy*", deleg, true},
		{"delegate:writer", deleg, false},
		{"*", deleg, false},
	}
	for _, tc := range tests {
		if got := Approves(tc.pattern, tc.call); got != tc.want {
			t.Errorf("Approves(%q, %s %s) = %v, want %v", tc.pattern, tc.call.Tool, tc.call.Arguments, got, tc.want)
		}
	}
}
