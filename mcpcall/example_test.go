package mcpcall_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// A tool that asks for an approval, run by a Runner as a transport hands
// it a tools/call: the first call is an input_required result, and the
// retry with the client's answer and the requestState runs the tool again.
func ExampleRunner_Run() {
	sealer, err := requeststate.NewSealer(requeststate.Options{
		Keys:     [][]byte{[]byte("an example key of 32 bytes, at least")}, // a secret in a real server
		Audience: "https://ops.example.com/mcp",
	})
	if err != nil {
		panic(err)
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{})
	if err != nil {
		panic(err)
	}
	deploy := toolnexus.ToolFor(func(_ context.Context, in struct {
		Env string `json:"env"`
	}, as toolnexus.Answers) toolnexus.ToolResult {
		if a := as.Latest(); a == nil {
			return toolnexus.Pending(toolnexus.Request{ID: "go", Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
		} else if !a.OK {
			return toolnexus.Error("not deployed")
		}
		return toolnexus.Ok("deployed to " + in.Env)
	})
	client := mcpcall.Client{Protocol: mcpcall.MultiRoundTrip, ElicitForm: true}
	call := mcpcall.Call{Tool: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`), Client: client}

	res, err := runner.Run(context.Background(), call, deploy)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.ResultType, res.InputRequests["go"].Method)

	call.RequestState = res.RequestState
	call.InputResponses = map[string]json.RawMessage{"go": json.RawMessage(`{"action":"accept"}`)}
	res, err = runner.Run(context.Background(), call, deploy)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.ResultType, res.Content[0].Text)
	// Output:
	// input_required elicitation/create
	// complete deployed to prod
}
