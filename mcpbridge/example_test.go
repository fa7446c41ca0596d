package mcpbridge_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpbridge"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// A tool that asks a person before it deploys. The client here answers the
// elicitation itself; a real client puts it to the person. The go-sdk
// client retries the call with the answer and the sealed state, and the tool
// runs again with the answer.
func ExampleHandler() {
	ctx := context.Background()
	key := []byte("an example key of 32 bytes, at least") // a secret in a real server
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{key}, Audience: "https://ops.example.com/mcp"})
	if err != nil {
		log.Fatal(err)
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{})
	if err != nil {
		log.Fatal(err)
	}
	bridge, err := mcpbridge.New(runner, nil)
	if err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "ops", Version: "v1"}, nil)
	type input struct {
		Env string `json:"env"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "deploy"}, mcpbridge.Handler(bridge,
		func(_ context.Context, in input, ans *toolnexus.Answer) toolnexus.ToolResult {
			if ans == nil {
				return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
			}
			if !ans.OK {
				return toolnexus.Error("deploy to " + in.Env + " " + ans.Reason)
			}
			return toolnexus.Ok("deployed to " + in.Env)
		}))

	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: Deploy to prod?
	// deployed to prod
}

// A result converted to the go-sdk's CallToolResult, without JSON.
func ExampleCallToolResult() {
	res := mcpbridge.CallToolResult(toolnexus.Ok("3 files changed"))
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, res.IsError)
	// Output: 3 files changed false
}

// A result of the go-sdk read back as a ToolResult.
func ExampleFromCallToolResult() {
	r, err := mcpbridge.FromCallToolResult(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no such key"}}, IsError: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r)
	// Output: error "no such key"
}
