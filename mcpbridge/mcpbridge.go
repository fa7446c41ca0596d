// Package mcpbridge serves toolnexus tools over MCP with the official Go SDK,
// github.com/modelcontextprotocol/go-sdk. [CallToolResult] and
// [FromCallToolResult] convert results to and from the SDK's types without a
// JSON round trip. [Handler] turns a tool that may suspend into an SDK tool
// handler: a suspension becomes input requests (elicitations, sampling,
// roots) that the client fulfils, and the client's answers reach the tool
// when it retries the call. The state the client holds in between is
// sealed by the [Bridge]'s [mcpcall.Runner], the core that the mcpgobridge
// module shares: package requeststate of the main module seals it. A
// [Relay] serves the tools of another MCP server, passing its questions
// on to its own client.
package mcpbridge

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// CallToolResult returns r as the SDK's CallToolResult, with the content
// [toolnexus.ToolResult.MCPCallToolResult] gives it: text blocks first, then
// the media in the order of r's parts. Each base64 payload is decoded once,
// into the bytes the SDK's content holds. A suspension is sent as its text,
// as a client that cannot answer it sees it; [Handler] asks its requests
// instead.
func CallToolResult(r toolnexus.ToolResult) *mcp.CallToolResult {
	return callToolResult(r.MCPCallToolResult())
}

// callToolResult returns c, written by [toolnexus.ToolResult.MCPCallToolResult],
// as the SDK's CallToolResult.
func callToolResult(c toolnexus.MCPCallToolResult) *mcp.CallToolResult {
	if len(c.Content) == 1 && c.Content[0].Type == "text" && len(c.StructuredContent) == 0 {
		// Most results are one text: one allocation holds it all.
		t := &textResult{text: mcp.TextContent{Text: c.Content[0].Text}}
		t.content[0] = &t.text
		t.res = mcp.CallToolResult{Content: t.content[:], IsError: c.IsError}
		return &t.res
	}
	res := &mcp.CallToolResult{Content: make([]mcp.Content, len(c.Content)), IsError: c.IsError}
	for i, b := range c.Content {
		res.Content[i] = sdkContent(b)
	}
	if len(c.StructuredContent) > 0 {
		res.StructuredContent = c.StructuredContent
	}
	return res
}

// textResult is a result of one text block, with its content.
type textResult struct {
	res     mcp.CallToolResult
	content [1]mcp.Content
	text    mcp.TextContent
}

// sdkContent returns the SDK's content for a block of
// [toolnexus.ToolResult.MCPCallToolResult], whose payloads are canonical
// base64.
func sdkContent(b toolnexus.MCPContent) mcp.Content {
	switch b.Type {
	case "text":
		return &mcp.TextContent{Text: b.Text}
	case "image", "audio":
		data, err := base64.StdEncoding.DecodeString(b.Data)
		if err != nil {
			break
		}
		if b.Type == "audio" {
			return &mcp.AudioContent{Data: data, MIMEType: b.MIMEType}
		}
		return &mcp.ImageContent{Data: data, MIMEType: b.MIMEType}
	case "resource":
		if b.Resource == nil {
			break
		}
		res := &mcp.ResourceContents{URI: b.Resource.URI, MIMEType: b.Resource.MIMEType, Text: b.Resource.Text}
		if b.Resource.Blob != "" { // a text resource has no blob, not an empty one
			blob, err := base64.StdEncoding.DecodeString(b.Resource.Blob)
			if err != nil {
				break
			}
			res.Blob = blob
		}
		return &mcp.EmbeddedResource{Resource: res}
	case "resource_link":
		return &mcp.ResourceLink{URI: b.URI, Name: b.Name, MIMEType: b.MIMEType}
	}
	// Not reached: MCPCallToolResult writes valid parts only.
	return &mcp.TextContent{Text: "[unsupported " + b.Type + " part]"}
}

// FromCallToolResult returns the ToolResult that res, a result of the SDK,
// stands for, as [toolnexus.MCPCallToolResult.ToolResult] reads it. Each
// payload is encoded to base64 once. A result with InputRequests asks for
// input: it is read as a suspension whose Request comes from its
// elicitation, with its RequestState under
// [toolnexus.MetadataRequestState]. It reports [toolnexus.ErrInvalidMCP]
// for a nil result or StructuredContent that does not encode to JSON.
func FromCallToolResult(res *mcp.CallToolResult) (toolnexus.ToolResult, error) {
	if res == nil {
		return toolnexus.ToolResult{}, fmt.Errorf("mcpbridge: %w: nil result", toolnexus.ErrInvalidMCP)
	}
	c := toolnexus.MCPCallToolResult{
		Content:      make([]toolnexus.MCPContent, 0, len(res.Content)),
		IsError:      res.IsError,
		RequestState: res.RequestState,
	}
	for _, b := range res.Content {
		if b, ok := mcpContent(b); ok {
			c.Content = append(c.Content, b)
		}
	}
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return toolnexus.ToolResult{}, fmt.Errorf("mcpbridge: %w: structuredContent: %v", toolnexus.ErrInvalidMCP, err)
		}
		if string(raw) != "null" {
			c.StructuredContent = raw
		}
	}
	if res.InputRequests != nil {
		c.ResultType = "input_required"
		c.InputRequests = make(map[string]toolnexus.MCPInputRequest, len(res.InputRequests))
		for id, ir := range res.InputRequests {
			in, err := inputRequest(ir)
			if err != nil {
				return toolnexus.ToolResult{}, err
			}
			c.InputRequests[id] = in
		}
	}
	return c.ToolResult()
}

// mcpContent returns the block of toolnexus for the SDK's content c, or
// false for a nil one.
func mcpContent(c mcp.Content) (toolnexus.MCPContent, bool) {
	switch c := c.(type) {
	case *mcp.TextContent:
		if c != nil {
			return toolnexus.MCPContent{Type: "text", Text: c.Text}, true
		}
	case *mcp.ImageContent:
		if c != nil {
			return toolnexus.MCPContent{Type: "image", Data: encode(c.Data), MIMEType: c.MIMEType}, true
		}
	case *mcp.AudioContent:
		if c != nil {
			return toolnexus.MCPContent{Type: "audio", Data: encode(c.Data), MIMEType: c.MIMEType}, true
		}
	case *mcp.EmbeddedResource:
		if c != nil {
			b := toolnexus.MCPContent{Type: "resource"}
			if r := c.Resource; r != nil {
				b.Resource = &toolnexus.MCPResource{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text, Blob: encode(r.Blob)}
			}
			return b, true
		}
	case *mcp.ResourceLink:
		if c != nil {
			return toolnexus.MCPContent{Type: "resource_link", URI: c.URI, Name: c.Name, MIMEType: c.MIMEType}, true
		}
	case nil:
	default:
		// Sampling content, which has no place in a tool result: its
		// placeholder says so.
		return toolnexus.MCPContent{Type: "sampling"}, true
	}
	return toolnexus.MCPContent{}, false
}

// inputRequest returns the input request of toolnexus for the SDK's ir,
// its method and params as the SDK writes them; an elicitation's mode is
// written as the SDK infers it when it sends the request.
func inputRequest(ir mcp.InputRequest) (toolnexus.MCPInputRequest, error) {
	if p, ok := ir.(*mcp.ElicitParams); ok && p != nil && p.Mode == "" {
		q := *p
		q.Mode = "form"
		if p.URL != "" || p.ElicitationID != "" {
			q.Mode = "url"
		}
		ir = &q
	}
	data, err := json.Marshal(mcp.InputRequestMap{"": ir})
	if err != nil {
		return toolnexus.MCPInputRequest{}, fmt.Errorf("mcpbridge: %w: input request: %v", toolnexus.ErrInvalidMCP, msg.JSONCause(err))
	}
	var m map[string]toolnexus.MCPInputRequest
	if err := json.Unmarshal(data, &m); err != nil {
		return toolnexus.MCPInputRequest{}, fmt.Errorf("mcpbridge: %w: input request: %v", toolnexus.ErrInvalidMCP, err)
	}
	return m[""], nil
}

// encode returns the standard base64 encoding of b, written once into the
// string it returns.
func encode(b []byte) string {
	var sb strings.Builder
	sb.Grow(base64.StdEncoding.EncodedLen(len(b)))
	w := base64.NewEncoder(base64.StdEncoding, &sb)
	w.Write(b)
	w.Close()
	return sb.String()
}
