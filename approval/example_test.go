package approval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/park"
)

// A deploy tool that asks a person first, but only for production: a
// deploy to dev runs at once, one to prod parks the model's turn on an
// approval, and the answer runs it once. A host that resumes the same
// parked turn again gets the result of that one run.
func ExampleGate() {
	type deployIn struct {
		Env string `json:"env"`
	}
	runs := 0
	deploy := toolnexus.ToolFor(func(_ context.Context, in deployIn, _ toolnexus.Answers) toolnexus.ToolResult {
		runs++
		return toolnexus.Ok("deployed to " + in.Env)
	})
	onlyProd := func(_ context.Context, args json.RawMessage) (toolnexus.Request, bool) {
		var in deployIn
		if err := toolnexus.DecodeArguments(args, &in); err == nil && in.Env != "prod" {
			return toolnexus.Request{}, false
		}
		return toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to production?"}, true
	}
	gated, err := approval.Gate(deploy, onlyProd, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tools := map[string]toolnexus.Tool{"deploy": gated}
	runner := park.Runner{Logger: slog.New(slog.DiscardHandler)} // where refused approvals are logged
	ctx := context.Background()

	turn, err := runner.RunTurn(ctx, tools,
		toolnexus.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"env":"dev"}`)},
		toolnexus.ToolCall{ID: "call_2", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(turn.Calls[0].Result.Output)
	req := turn.Waiting()[0].Request
	fmt.Println(req.Kind+":", req.Prompt)

	done, err := runner.Resume(ctx, tools, turn, req.Resolve(nil)) // the person said yes
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(done.Calls[1].Result.Output)

	// A host that kept the parked turn resumes it again with the same answer.
	again, err := runner.Resume(ctx, tools, turn, req.Resolve(nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(again.Calls[1].Result.Output, "- runs:", runs)
	// Output:
	// deployed to dev
	// approval: Deploy to production?
	// deployed to prod
	// deployed to prod - runs: 2
}
