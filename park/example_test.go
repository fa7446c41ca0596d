package park_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/park"
)

// deployTo is a tool that waits for a person: nil on its first
// run, the person's answer on the next.
func deployTo(env string, ans *toolnexus.Answer) toolnexus.ToolResult {
	if ans == nil {
		return toolnexus.Pending(toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Deploy to " + env + "?"})
	}
	if !ans.OK {
		return toolnexus.Error("deploy to " + env + " " + ans.Reason)
	}
	return toolnexus.Ok("deployed to " + env)
}

// exampleTools are the tools of the examples: deploy, as a Tool, and a
// status that answers at once.
var exampleTools = map[string]toolnexus.Tool{
	"deploy": toolnexus.ToolFor(func(_ context.Context, in struct {
		Env string `json:"env"`
	}, answers toolnexus.Answers) toolnexus.ToolResult {
		return deployTo(in.Env, answers.Latest())
	}),
	"status": func(context.Context, json.RawMessage, toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok("all green")
	},
}

// A model asked for three calls; RunTurn runs them, the host stores the
// turn while deploy waits, and another process resumes it with the
// person's answer.
func ExampleRunTurn() {
	ctx := context.Background()
	turn, err := park.RunTurn(ctx, exampleTools,
		toolnexus.ToolCall{ID: "toolu_01", Name: "status", Arguments: json.RawMessage(`{}`)},
		toolnexus.ToolCall{ID: "toolu_02", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)},
		toolnexus.ToolCall{ID: "toolu_03", Name: "deploy", Arguments: json.RawMessage(`{"env": prod}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range turn.Waiting() {
		fmt.Printf("%s waits: %s\n", w.Tool, w.Request.Prompt)
	}
	stored, _ := json.Marshal(turn) // a database row

	parked, err := toolnexus.ParseTurn(stored, 1<<20) // in another process
	if err != nil {
		fmt.Println(err)
		return
	}
	done, err := park.Resume(ctx, exampleTools, parked, toolnexus.Answer{ID: "req-1", OK: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range done.Calls {
		fmt.Printf("%s: %s\n", c.ID, c.Result.Output)
	}
	// Output:
	// deploy waits: Deploy to prod?
	// toolu_01: all green
	// toolu_02: deployed to prod
	// toolu_03: toolnexus: arguments of "deploy" are not JSON: invalid character 'p' looking for beginning of value
}

// A request parked in a turn can be answered for the Runner's Expiry
// (here, an hour): a later answer is refused, and the tool does not run.
func ExampleRunner() {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	runner := park.Runner{Expiry: time.Hour, Time: func() time.Time { return now }}
	turn, err := runner.RunTurn(ctx, exampleTools, toolnexus.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(turn.Waiting()[0].Request.ExpiresAt)

	now = now.Add(2 * time.Hour)
	_, err = runner.Resume(ctx, exampleTools, turn, toolnexus.Answer{ID: "req-1", OK: true})
	fmt.Println(errors.Is(err, toolnexus.ErrExpired), err)
	// Output:
	// 2026-12-01T10:00:00Z
	// true toolnexus: request expired: request "req-1" expired at 2026-12-01T10:00:00Z
}

// A parking is answered once: a host that resumes the same stored turn
// twice, as two servers that read one row may, runs the tool once, and
// the second resume gets the turn with the first run's result.
func ExampleResume() {
	ctx := context.Background()
	runs := 0
	tools := map[string]toolnexus.Tool{"deploy": func(_ context.Context, _ json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
		runs++
		return deployTo("prod", answers.Latest())
	}}
	turn, err := park.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		done, err := park.Resume(ctx, tools, turn, toolnexus.Answer{ID: "req-1", OK: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(done.Calls[0].Result.Output)
	}
	fmt.Println("runs:", runs)
	// Output:
	// deployed to prod
	// deployed to prod
	// runs: 2
}

// deploy is the README's tool: it asks a person once, then deploys or
// says why not. Answers.Latest is the answer of a tool that asks once.
func deploy(ctx context.Context, in deployIn, as toolnexus.Answers) toolnexus.ToolResult {
	ans := as.Latest()
	switch {
	case ans == nil: // the first run: park, asking for an approval
		return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
	case !ans.OK:
		return toolnexus.Error("deploy to " + in.Env + " " + ans.Reason)
	}
	return toolnexus.Ok("deployed to " + in.Env)
}

// The README's story: a tool that waits for a person, run by a Turn,
// stored while the person thinks, and answered within DefaultExpiry.
func Example_story() {
	ctx := context.Background()
	tools := map[string]toolnexus.Tool{"deploy": toolnexus.ToolFor(deploy)}
	turn, _ := park.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	stored, _ := json.Marshal(turn) // a database, a queue, a file

	turn, _ = toolnexus.ParseTurn(stored, 1<<20) // exact keys, a limit, validated
	w := turn.Waiting()[0]                       // w.CallID, w.Tool, w.Request: put it to the person
	fmt.Println(w.Tool, "waits:", w.Request.Prompt, w.Request.Expired(time.Now().Add(park.DefaultExpiry)))
	turn, _ = park.Resume(ctx, tools, turn, w.Request.Resolve(nil)) // checked: the id echoes, not expired
	msg, _ := turn.AnthropicMessage()                               // or OpenAIChatMessages, GeminiContent, …
	out, _ := json.Marshal(msg)
	fmt.Println(turn.Complete(), string(out))
	// Output:
	// deploy waits: Deploy to prod? true
	// true {"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","is_error":false,"content":[{"type":"text","text":"deployed to prod"}]}]}
}
