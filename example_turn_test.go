package toolnexus_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolnexus-go/toolnexus"
)

// A model asked for two tools at once; one finished, one waits for an
// approval. The host parks the whole turn, and sends it once the approval
// came and the waiting tool ran again.
func ExampleTurn() {
	deploy := func(answers toolnexus.Answers) toolnexus.ToolResult {
		if len(answers) == 0 {
			return toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Deploy to prod?"})
		}
		return toolnexus.Ok("deployed to prod")
	}
	turn := toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "toolu_01", Name: "status", Result: toolnexus.Ok("all green")},
		{ID: "toolu_02", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`), Result: deploy(nil)},
	}}
	stored, _ := json.Marshal(turn) // a file, a database row

	parked, err := toolnexus.ParseTurn(stored, 1<<20)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range parked.Waiting() {
		fmt.Printf("%s waits: %s\n", w.Tool, w.Request.Prompt)
	}
	call, err := parked.Answer(toolnexus.Answer{ID: "req-1", OK: true}, time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	call.Result = deploy(call.Answers)
	if parked, err = parked.WithCall(call); err != nil {
		fmt.Println(err)
		return
	}
	msg, err := parked.AnthropicMessage()
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(msg)
	fmt.Println(parked.Complete())
	fmt.Println(string(out))
	// Output:
	// deploy waits: Deploy to prod?
	// true
	// {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","is_error":false,"content":[{"type":"text","text":"all green"}]},{"type":"tool_result","tool_use_id":"toolu_02","is_error":false,"content":[{"type":"text","text":"deployed to prod"}]}]}
}

// OpenAI Chat takes the tool messages of a turn first, then one user message
// with the media of every call under its heading.
func ExampleTurn_OpenAIChatMessages() {
	img, err := toolnexus.PartFromFile("testdata/fixture.png")
	if err != nil {
		fmt.Println(err)
		return
	}
	turn := toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "call_1", Name: "screenshot", Result: toolnexus.Ok("fixture.png (image/png, 82 bytes)", img)},
		{ID: "call_2", Name: "status", Result: toolnexus.Ok("all green")},
	}}
	msgs, err := turn.OpenAIChatMessages()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		fmt.Println(m.Role, m.ToolCallID)
	}
	// Output:
	// tool call_1
	// tool call_2
	// user
}

// An answer to a request no call waits on is refused.
func ExampleTurn_Answer() {
	turn := toolnexus.Turn{Calls: []toolnexus.ToolCall{
		{ID: "call_1", Name: "deploy", Result: toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"})},
	}}
	_, err := turn.Answer(toolnexus.Answer{ID: "req-2", OK: true}, time.Now())
	fmt.Println(err)
	// Output:
	// toolnexus: answer does not match request: no call of the turn waits on request "req-2"
}
