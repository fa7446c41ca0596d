package mcptasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/mcptasks"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// deploy is a toolnexus tool that asks for an approval before it deploys.
func deploy(_ context.Context, args json.RawMessage, answers toolnexus.Answers) toolnexus.ToolResult {
	var in struct {
		Env string `json:"env"`
	}
	json.Unmarshal(args, &in)
	a, ok := answers.Get("approve")
	switch {
	case !ok:
		return toolnexus.Pending(toolnexus.Request{ID: "approve", Kind: toolnexus.KindApproval, Prompt: "Deploy to " + in.Env + "?"})
	case !a.OK:
		return toolnexus.Error("not deployed: " + a.Reason)
	}
	return toolnexus.Ok("deployed to " + in.Env)
}

// call sends one stateless MCP request, as a client that declared the
// tasks extension, and returns its result.
func call(url, method string, params map[string]any) map[string]any {
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{
			"elicitation": map[string]any{}, "extensions": map[string]any{mcptasks.ExtensionID: map[string]any{}}},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if id, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", id) // the task, for the load balancer
	} else {
		req.Header.Set("Mcp-Name", params["name"].(string))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	var out struct {
		Result map[string]any `json:"result"`
	}
	json.NewDecoder(res.Body).Decode(&out)
	return out.Result
}

// poll calls tasks/get until the task's status is not working.
func poll(url, id string) map[string]any {
	for {
		task := call(url, "tasks/get", map[string]any{"taskId": id})
		if task["status"] != "working" {
			return task
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A tool that asks for an approval, served as a task: the call returns the
// task at once, tasks/get shows what it asks, tasks/update answers, and
// the tool runs again with the answer.
func Example() {
	server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "v1"}, nil)
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{bytes.Repeat([]byte{7}, 32)}}) // 32 secret bytes in real life
	if err != nil {
		panic(err)
	}
	runner, err := mcpcall.NewRunner(sealer, mcpcall.Options{})
	if err != nil {
		panic(err)
	}
	tasks, err := mcptasks.New(server, runner, nil)
	if err != nil {
		panic(err)
	}
	err = tasks.AddTool(mcptasks.Tool{Tool: &mcp.Tool{Name: "deploy", Description: "Deploys, once approved"}, Run: deploy})
	if err != nil {
		panic(err)
	}
	handler := mcptasks.RoutingHandler(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	hs := httptest.NewServer(handler)
	defer hs.Close()

	created := call(hs.URL, "tools/call", map[string]any{"name": "deploy", "arguments": map[string]any{"env": "prod"}})
	id := created["taskId"].(string)
	fmt.Println(created["resultType"], created["status"])

	task := poll(hs.URL, id)
	asked := task["inputRequests"].(map[string]any)["approve"].(map[string]any)
	fmt.Println(task["status"], asked["method"], asked["params"].(map[string]any)["message"])

	call(hs.URL, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"approve": map[string]any{"action": "accept", "content": map[string]any{}}}})
	task = poll(hs.URL, id)
	fmt.Println(task["status"], task["result"].(map[string]any)["content"])
	// Output:
	// task working
	// input_required elicitation/create Deploy to prod?
	// completed [map[text:deployed to prod type:text]]
}
