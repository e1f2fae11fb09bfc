package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

// JudgeAgent is the agent name the judge's requests carry, so a script
// model plays the judge's answer from its judge: turns.
const JudgeAgent = "judge"

const judgeSystem = `You grade the answer an AI agent gave to a task against a rubric.
Read the task, the answer and the rubric. Decide whether the answer meets the rubric.
Reply with one JSON object and nothing else: {"pass": true or false, "reasoning": "one or two sentences on why"}.`

// verdict is the JSON the judge is asked for.
type verdict struct {
	Pass      *bool  `json:"pass"`
	Reasoning string `json:"reasoning"`
}

// judge asks llm whether output meets rubric. The check keeps the judge's
// answer and reasoning, or what it said when that was not a verdict.
func judge(ctx context.Context, llm model.LLM, invocation, rubric, task, output string) trace.EvalCheck {
	j := &trace.Judgement{Model: llm.Name(), Rubric: rubric}
	check := trace.EvalCheck{Kind: "rubric", Judge: j}
	req := &model.Request{Agent: JudgeAgent, Invocation: invocation, System: judgeSystem, Messages: []model.Message{{
		Role: model.RoleUser, Content: fmt.Sprintf("Task:\n%s\n\nAnswer:\n%s\n\nRubric:\n%s", task, output, rubric)}}}
	resp, err := llm.Generate(ctx, req)
	if err != nil {
		check.Detail = "the judge could not answer: " + err.Error()
		return check
	}
	v, ok := readVerdict(resp.Text)
	if !ok {
		j.Reasoning = resp.Text
		check.Detail = "the judge did not answer with {\"pass\", \"reasoning\"}: " + quote(resp.Text)
		return check
	}
	j.Answer, j.Reasoning = "fail", v.Reasoning
	if *v.Pass {
		j.Answer = "pass"
	}
	check.Passed = *v.Pass
	check.Detail = fmt.Sprintf("judged %s: %s", j.Answer, v.Reasoning)
	return check
}

// readVerdict finds the judge's JSON object in its text, which models
// sometimes wrap in a code fence or a sentence.
func readVerdict(text string) (verdict, bool) {
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end < start {
		return verdict{}, false
	}
	var v verdict
	if err := json.Unmarshal([]byte(text[start:end+1]), &v); err != nil || v.Pass == nil {
		return verdict{}, false
	}
	return v, true
}
