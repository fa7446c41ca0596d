package main

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connect returns an mcp-go client, initialized, of a new conformance
// server, and the methods of the notifications it receives.
func connect(t *testing.T) (*client.Client, <-chan string) {
	t.Helper()
	srv, err := newServer(bytes.Repeat([]byte{1}, 32))
	require.NoError(t, err)
	c, err := client.NewInProcessClient(srv)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	notes := make(chan string, 16)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		select {
		case notes <- n.Method:
		default:
		}
	})
	require.NoError(t, c.Start(t.Context()))
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "v0"}
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	return c, notes
}

func call(t *testing.T, c *client.Client, tool string) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	res, err := c.CallTool(t.Context(), req)
	require.NoError(t, err, tool)
	return res
}

// TestContentTools checks the embedded resources of the content tools,
// toolnexus results through the bridge, against what the suite's
// scenarios ask for.
func TestContentTools(t *testing.T) {
	t.Parallel()
	c, _ := connect(t)
	assert.Equal(t, []mcp.Content{mcp.EmbeddedResource{Type: "resource", Resource: mcp.TextResourceContents{
		URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}}},
		call(t, c, "test_embedded_resource").Content)
	mixed := call(t, c, "test_multiple_content_types").Content
	require.Len(t, mixed, 3)
	assert.Equal(t, mcp.TextContent{Type: "text", Text: "Multiple content types test:"}, mixed[0])
	img, ok := mixed[1].(mcp.ImageContent)
	require.True(t, ok, "%T", mixed[1])
	assert.Equal(t, "image/png", img.MIMEType)
	assert.Equal(t, mcp.EmbeddedResource{Type: "resource", Resource: mcp.TextResourceContents{
		URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}}, mixed[2])
}

// TestListChanges calls the tools that change the tool and prompt lists:
// the lists change, and the client is told.
func TestListChanges(t *testing.T) {
	t.Parallel()
	c, notes := connect(t)
	for _, tt := range []struct{ tool, note string }{
		{"test_trigger_tool_change", "notifications/tools/list_changed"},
		{"test_trigger_prompt_change", "notifications/prompts/list_changed"},
	} {
		assert.Equal(t, []mcp.Content{mcp.TextContent{Type: "text", Text: tt.tool + ": list changed"}}, call(t, c, tt.tool).Content)
		select {
		case got := <-notes:
			assert.Equal(t, tt.note, got)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no %s", tt.tool, tt.note)
		}
	}
	tools, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(tools.Tools, func(tool mcp.Tool) bool { return tool.Name == "transient_tool" }))
	prompts, err := c.ListPrompts(t.Context(), mcp.ListPromptsRequest{})
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(prompts.Prompts, func(p mcp.Prompt) bool { return p.Name == "transient_prompt" }))
	assert.Equal(t, []mcp.Content{mcp.TextContent{Type: "text", Text: "transient_tool ran"}}, call(t, c, "transient_tool").Content)
}
