package mcpgobridge_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcpgobridge"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// A tool that asks a person before it deploys, on an mcp-go server. The
// first call suspends: a client on 2026-07-28 gets an input_required result
// with the question and a sealed requestState.
func ExampleHandler() {
	key := []byte("an example key of 32 bytes, at least") // a secret in a real server
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{key}, Audience: "https://ops.example.com/mcp"})
	if err != nil {
		panic(err)
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{})
	if err != nil {
		panic(err)
	}
	bridge, err := mcpgobridge.New(runner, nil)
	if err != nil {
		panic(err)
	}
	srv := server.NewMCPServer("ops", "v1", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("deploy", mcp.WithString("env")),
		mcpgobridge.Handler(bridge, func(_ context.Context, in struct {
			Env string `json:"env"`
		}, ans *toolnexus.Answer) toolnexus.ToolResult {
			if ans == nil {
				return toolnexus.Pending(toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
			}
			return toolnexus.Ok("deployed to " + in.Env)
		}))

	res := srv.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
		"name":"deploy","arguments":{"env":"prod"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}`))
	r, err := mcpgobridge.FromCallToolResult(res.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult))
	if err != nil {
		panic(err)
	}
	req, _ := toolnexus.PendingOf(r)
	fmt.Println(req.ID, req.Kind, req.Prompt)
	// Output: approve approval Deploy to prod?
}

func ExampleCallToolResult() {
	res := mcpgobridge.CallToolResult(toolnexus.Ok("3 files changed"))
	fmt.Println(res.Content[0].(mcp.TextContent).Text, res.IsError)
	// Output: 3 files changed false
}
