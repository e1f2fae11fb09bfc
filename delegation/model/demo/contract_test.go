package demo_test

import (
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/model/modeltest"
)

func TestDemoPassesTheProviderContract(t *testing.T) {
	modeltest.Run(t, modeltest.Subject{
		New:     func(*testing.T, int) model.LLM { return &demo.Model{} },
		Hanging: func(*testing.T) model.LLM { return &demo.Model{Latency: time.Hour} },
	})
}
