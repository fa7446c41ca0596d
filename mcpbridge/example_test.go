package mcpbridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"sync/atomic"

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

// deployIn is the input of deploy.
type deployIn struct {
	Env string `json:"env"`
}

// deploy is a tool of the shape every host runs (see toolnexus.ToolFor):
// its input and every answer so far, the latest of which is the one of a
// tool that asks once.
func deploy(_ context.Context, in deployIn, as toolnexus.Answers) toolnexus.ToolResult {
	ans := as.Latest()
	switch {
	case ans == nil:
		return toolnexus.Pending(toolnexus.Request{Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
	case !ans.OK:
		return toolnexus.Error("deploy to " + in.Env + " " + ans.Reason)
	}
	return toolnexus.Ok("deployed to " + in.Env)
}

// newDeployServer returns an SDK server of deploy, its states sealed for
// the audience of the example, that counts in deploys the runs that
// deploy.
func newDeployServer(deploys *atomic.Int32) *mcp.Server {
	keys, err := requeststate.KeysFromHex(strings.Repeat("ab", 32)) // TOOLNEXUS_STATE_KEYS in a real server
	if err != nil {
		log.Fatal(err)
	}
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: keys, Audience: "https://deploy.example.com/mcp"})
	if err != nil {
		log.Fatal(err)
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{}) // a parked call is answerable for park.DefaultExpiry
	if err != nil {
		log.Fatal(err)
	}
	bridge, err := mcpbridge.New(runner, nil)
	if err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "deploy"}, mcpbridge.CallHandler(bridge,
		func(ctx context.Context, c mcpbridge.Call[deployIn]) toolnexus.ToolResult {
			if len(c.Answers) > 0 {
				deploys.Add(1)
			}
			return deploy(ctx, c.In, c.Answers) // the tool of a Turn, unchanged
		}))
	return server
}

// A host that parks a call itself: the go-sdk's client, its multi round
// trip disabled, returns the input_required result; FromCallToolResult
// reads it as a suspension, which the host stores; Retry makes the call
// that answers it, later, on any server with the same keys. A host that
// lost the reply sends it again: it gets the same result, and the tool
// does not run again.
func ExampleRetry() {
	ctx := context.Background()
	var deploys atomic.Int32
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newDeployServer(&deploys).Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}, // the host takes input_required results
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	call := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}}
	res, err := cs.CallTool(ctx, call)
	if err != nil {
		log.Fatal(err)
	}
	parked, err := mcpbridge.FromCallToolResult(res) // a suspension: store it
	if err != nil {
		log.Fatal(err)
	}
	req, _ := toolnexus.PendingOf(parked)
	fmt.Println("parked:", req.Prompt)

	for range 2 { // the reply of the first was lost
		retry, err := mcpbridge.Retry(call, parked, req.Resolve(nil)) // the person said yes
		if err != nil {
			log.Fatal(err)
		}
		res, err = cs.CallTool(ctx, retry)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	fmt.Println("deploys:", deploys.Load())
	// Output:
	// parked: Deploy to prod?
	// deployed to prod
	// deployed to prod
	// deploys: 1
}

// A relay in front of an upstream MCP server whose tool asks for a
// confirmation. The relay passes the upstream's question on as its own
// round, its state sealing the upstream's; the client here answers it
// itself, and the upstream gets the answer and its own state back.
func ExampleNewRelay() {
	ctx := context.Background()
	upstream := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "v1"}, nil)
	upstream.AddTool(&mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if e, ok := req.Params.InputResponses["go"].(*mcp.ElicitResult); ok && e.Action == "accept" && req.Params.RequestState == "deploy:prod" {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed to prod"}}}, nil
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"go": &mcp.ElicitParams{Message: "Deploy to prod?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
				RequestState:  "deploy:prod", // the upstream's own state, which the client never sees
			}, nil
		})
	dial := func() mcp.Transport { // in a real relay: &mcp.StreamableClientTransport{Endpoint: url}
		st, ct := mcp.NewInMemoryTransports()
		if _, err := upstream.Connect(ctx, st, nil); err != nil {
			log.Fatal(err)
		}
		return ct
	}

	key := []byte("an example key of 32 bytes, at least") // a secret in a real relay
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{key}, Audience: "https://relay.example.com/mcp"})
	if err != nil {
		log.Fatal(err)
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{}) // the expiry, clock and logs of the relay's calls
	if err != nil {
		log.Fatal(err)
	}
	relay, err := mcpbridge.NewRelay(runner, dial, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer relay.Close()
	server := relay.NewServer(&mcp.Implementation{Name: "relay", Version: "v1"}, nil)

	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: Deploy to prod?
	// deployed to prod
}
