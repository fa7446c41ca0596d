package toolnexus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/toolnexus-go/toolnexus"
)

// A deploy tool that asks a person first, but only for production: a
// deploy to dev runs at once, one to prod parks the model's turn on an
// approval, the answer runs it once, and the same approval given again
// runs nothing.
func ExampleGate() {
	type deployIn struct {
		Env string `json:"env"`
	}
	deploy := toolnexus.ToolFor(func(_ context.Context, in deployIn, _ toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok("deployed to " + in.Env)
	})
	onlyProd := func(_ context.Context, args json.RawMessage) (toolnexus.Request, bool) {
		var in deployIn
		if err := toolnexus.DecodeArguments(args, &in); err == nil && in.Env != "prod" {
			return toolnexus.Request{}, false
		}
		return toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to production?"}, true
	}
	gated, err := toolnexus.Gate(deploy, onlyProd, &toolnexus.GateOptions{
		Logger: slog.New(slog.DiscardHandler), // where refused approvals are logged
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tools := map[string]toolnexus.Tool{"deploy": gated}
	ctx := context.Background()

	turn, err := toolnexus.RunTurn(ctx, tools,
		toolnexus.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"env":"dev"}`)},
		toolnexus.ToolCall{ID: "call_2", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(turn.Calls[0].Result.Output)
	req := turn.Waiting()[0].Request
	fmt.Println(req.Kind+":", req.Prompt)

	done, err := turn.Resume(ctx, tools, req.Resolve(nil)) // the person said yes
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(done.Calls[1].Result.Output)

	// A host that kept the parked turn runs it again with the same answer.
	again, err := turn.Resume(ctx, tools, req.Resolve(nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	refused := again.Calls[1].Result
	fmt.Println(refused.IsError, strings.HasPrefix(refused.Output, toolnexus.ErrApprovalUsed.Error()))
	// Output:
	// deployed to dev
	// approval: Deploy to production?
	// deployed to prod
	// true true
}
