package script_test

import (
	"strconv"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/modeltest"
	"github.com/agentry/agentry/delegation/model/script"
)

func TestScriptPassesTheProviderContract(t *testing.T) {
	parse := func(t *testing.T, text string) model.LLM {
		m, err := script.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	modeltest.Run(t, modeltest.Subject{
		New:     func(t *testing.T, _ int) model.LLM { return parse(t, "geographer: [{say: Paris.}]\n") },
		Hanging: func(t *testing.T) model.LLM { return parse(t, "geographer: [{latency: 1h, say: late}]\n") },
		// Each call is its own invocation, which plays the agent's first turn.
		Prepare: func(req *model.Request, i int) { req.Invocation = "inv-" + strconv.Itoa(i) },
	})
}
