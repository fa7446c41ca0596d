package toolnexus_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolnexus-go/toolnexus"
)

// deploy is the README's tool that waits for a person: nil on its first
// run, the person's answer on the next.
func deploy(env string, ans *toolnexus.Answer) toolnexus.ToolResult {
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
		return deploy(in.Env, answers.Latest())
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
	turn, err := toolnexus.RunTurn(ctx, exampleTools,
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
	done, err := parked.Resume(ctx, exampleTools, toolnexus.Answer{ID: "req-1", OK: true})
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

// A request parked in a turn can be answered for [toolnexus.DefaultExpiry]
// (here, an hour): a later answer is refused, and the tool does not run.
func ExampleTurnRunner() {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	runner := toolnexus.TurnRunner{Tools: exampleTools, Expiry: time.Hour, Time: func() time.Time { return now }}
	turn, err := runner.Run(ctx, toolnexus.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(turn.Waiting()[0].Request.ExpiresAt)

	now = now.Add(2 * time.Hour)
	_, err = runner.Resume(ctx, turn, toolnexus.Answer{ID: "req-1", OK: true})
	fmt.Println(errors.Is(err, toolnexus.ErrExpired), err)
	// Output:
	// 2026-12-01T10:00:00Z
	// true toolnexus: request expired: request "req-1" expired at 2026-12-01T10:00:00Z
}

// ToolFor decodes a tool's arguments into its input with exact keys: a key
// that matches a field only when case is folded is ignored.
func ExampleToolFor() {
	greet := toolnexus.ToolFor(func(_ context.Context, in struct {
		Name string `json:"name"`
	}, _ toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok("hello, " + cmp.Or(in.Name, "stranger"))
	})
	fmt.Println(greet(context.Background(), json.RawMessage(`{"name":"Ada"}`), nil).Output)
	fmt.Println(greet(context.Background(), json.RawMessage(`{"NAME":"Ada"}`), nil).Output)
	fmt.Println(greet(context.Background(), json.RawMessage(`{"name":7}`), nil).Output)
	// Output:
	// hello, Ada
	// hello, stranger
	// toolnexus: arguments are not what the tool takes: json: cannot unmarshal number into Go struct field .name of type string
}

// Latest is the answer of a tool that asks once: nil on its first run.
func ExampleAnswers_Latest() {
	fmt.Println(deploy("prod", toolnexus.Answers(nil).Latest()).Output)
	answers := toolnexus.Answers{{ID: "req-1", OK: false, Reason: toolnexus.ReasonDeclined}}
	fmt.Println(deploy("prod", answers.Latest()).Output)
	// Output:
	// Deploy to prod?
	// deploy to prod declined
}
