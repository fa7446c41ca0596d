package toolnexus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/toolnexus-go/toolnexus"
)

// A tool that deletes files runs only once a person has approved the very
// call: the model's turn parks on the approval, the answer runs it, and
// the same approval given again runs nothing.
func ExampleGate() {
	remove := func(_ context.Context, args json.RawMessage, _ toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok("removed " + string(args))
	}
	gated, err := toolnexus.Gate(remove, toolnexus.RequireApproval("Remove these files?"),
		&toolnexus.GateOptions{Logger: slog.New(slog.DiscardHandler)}) // refusals are logged there
	if err != nil {
		fmt.Println(err)
		return
	}
	tools := map[string]toolnexus.Tool{"remove": gated}
	ctx := context.Background()
	turn, err := toolnexus.RunTurn(ctx, tools, toolnexus.ToolCall{ID: "call_1", Name: "remove", Arguments: json.RawMessage(`{"glob":"*.tmp"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	req := turn.Waiting()[0].Request
	fmt.Println(req.Kind+":", req.Prompt)

	done, err := turn.Resume(ctx, tools, req.Resolve(nil)) // the person said yes
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(done.Calls[0].Result.Output)

	again, _ := turn.Resume(ctx, tools, req.Resolve(nil)) // the parked turn, replayed
	fmt.Println(strings.Split(again.Calls[0].Result.Output, ":")[:2])
	// Output:
	// approval: Remove these files?
	// removed {"glob":"*.tmp"}
	// [toolnexus  approval already used]
}
