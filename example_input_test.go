package toolnexus_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolnexus-go/toolnexus"
)

// A tool asks for several things at once: an approval and the client's
// roots. PendingOf sees the first, PendingAllOf every one.
func ExamplePendingAll() {
	r := toolnexus.PendingAll(
		toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"},
		toolnexus.Request{ID: "roots", Kind: toolnexus.KindRoots, Prompt: "Which folders may I read?"},
	)
	fmt.Println(r.Output)
	first, _ := toolnexus.PendingOf(r)
	fmt.Println("first:", first.ID)
	out, _ := json.Marshal(r.Metadata)
	fmt.Println(string(out))
	// Output:
	// Deploy to prod?
	// Which folders may I read?
	// first: approve
	// {"pending":{"id":"approve","kind":"approval","prompt":"Deploy to prod?"},"pendingMore":[{"id":"roots","kind":"roots","prompt":"Which folders may I read?"}]}
}

// A host answers every request of a suspension, whether one or several
// were asked, and the tool finds each answer by its request's id.
func ExamplePendingAllOf() {
	r := toolnexus.PendingAll(
		toolnexus.Request{ID: "env", Kind: toolnexus.KindInput, Prompt: "Which environment?", Data: map[string]any{"choices": []string{"dev", "prod"}}},
		toolnexus.Request{ID: "ok", Kind: toolnexus.KindApproval, Prompt: "Deploy?"},
	)
	reqs, _ := toolnexus.PendingAllOf(r)
	var answers toolnexus.Answers
	for _, req := range reqs {
		if req.Kind == toolnexus.KindApproval {
			answers = append(answers, req.Resolve(nil))
			continue
		}
		answers = append(answers, req.Resolve(map[string]any{"answer": "prod"}))
	}
	env, _ := answers.Get("env")
	ok, _ := answers.Get("ok")
	fmt.Println(len(reqs), env.Data["answer"], ok.OK)
	// Output: 2 prod true
}

// A choice without JSON Schema: the choices under Data's "choices" become
// an MCP form with one required string "answer" whose enum they are.
func ExampleRequest_MCPElicitParams_choices() {
	req := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "Which environment?",
		Data: map[string]any{"choices": []string{"dev", "prod"}}}
	params, err := req.MCPElicitParams()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(params.RequestedSchema))
	// Output:
	// {"type":"object","properties":{"answer":{"type":"string","description":"Which environment?","enum":["dev","prod"]}},"required":["answer"]}
}

// The client's response becomes the tool's Answer only when it fits what
// was asked: here, one of the choices.
func ExampleRequest_AnswerFromMCP() {
	req := toolnexus.Request{ID: "pnd-1", Kind: toolnexus.KindInput, Prompt: "Which environment?",
		Data: map[string]any{"choices": []string{"dev", "prod"}}}
	ans, err := req.AnswerFromMCP(json.RawMessage(`{"action":"accept","content":{"answer":"prod"}}`))
	fmt.Println(ans.OK, ans.Data["answer"], err)

	_, err = req.AnswerFromMCP(json.RawMessage(`{"action":"accept","content":{"answer":{"$ne":""}}}`))
	fmt.Println(errors.Is(err, toolnexus.ErrInvalidAnswer), err)

	ans, _ = req.AnswerFromMCP(json.RawMessage(`{"action":"decline"}`))
	fmt.Println(ans.OK, ans.Reason)
	// Output:
	// true prod <nil>
	// true toolnexus: invalid answer: request "pnd-1": property "answer" is an object, not a string
	// false declined
}

// A tool asks the client's model, through the MCP client, and reads its
// message from the answer.
func ExampleRequest_MCPInputRequest() {
	req := toolnexus.Request{ID: "pnd-2", Kind: toolnexus.KindSampling, Prompt: "Ask the model for the capital",
		Data: map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Capital of France?"}}},
			"maxTokens": 100,
		}}
	ir, err := req.MCPInputRequest()
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(ir)
	fmt.Println(string(out))
	ans, _ := req.AnswerFromMCP(json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"Paris."},"model":"m"}`))
	fmt.Println(ans.Data["content"].(map[string]any)["text"])
	// Output:
	// {"method":"sampling/createMessage","params":{"maxTokens":100,"messages":[{"content":{"text":"Capital of France?","type":"text"},"role":"user"}]}}
	// Paris.
}
