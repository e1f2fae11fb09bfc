package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/delegation/model"
)

func TestAnAgentsSamplingSettingsReachTheWire(t *testing.T) {
	temp := 0.25
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"}, reply{Status: 200, File: "text.response.json"})
	llm := newLLM(t, api)
	msgs := []model.Message{{Role: model.RoleUser, Content: "Hi"}}
	if _, err := llm.Generate(context.Background(), &model.Request{Messages: msgs, Temperature: &temp, MaxTokens: 321}); err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Generate(context.Background(), &model.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	reqs := api.Requests()
	var set, unset map[string]any
	if err := json.Unmarshal(reqs[0].Body, &set); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(reqs[1].Body, &unset); err != nil {
		t.Fatal(err)
	}
	if set["temperature"] != 0.25 || set["max_tokens"] != float64(321) {
		t.Errorf("request with sampling = %v, want temperature 0.25 and %s 321", set, "max_tokens")
	}
	if _, ok := unset["temperature"]; ok {
		t.Errorf("request without sampling sends temperature: %v", unset)
	}
}
